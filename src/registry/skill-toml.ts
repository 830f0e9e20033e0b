/**
 * skill.toml: the optional descriptor of a skill folder (docs/skill-authoring.md).
 *
 * Requirement ids: R-FORM-05, R-FORM-10, R-PRE-05, A-01 (`[skill].skill_md`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import type { SkillIssue } from './types.ts';

/** The keys of skill.toml the platform reads; all optional (preflight reports missing ones). */
export interface SkillToml {
  skill: {
    name?: string;
    description?: string;
    version?: string;
    /** Seconds (docs/skill-authoring.md). */
    timeout_sec?: number;
    /** Alternative SKILL.md path relative to the folder. */
    skill_md?: string;
    /** Sub-folder holding SKILL.md / skill.md (R-LOAD-02 step 2). */
    origin_path?: string;
  };
  /** `[exec]`, or `[exec.primary]` read as the same table (docs/skill-authoring.md). */
  exec?: { type?: string; config?: string; command?: string };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/**
 * Turn a parsed TOML table into {@link SkillToml}, reporting keys of the wrong type.
 * `[exec.primary]` is used when `[exec]` has no `type` of its own.
 */
export function toSkillToml(data: Record<string, unknown>, issues: SkillIssue[]): SkillToml {
  const skill = isRecord(data.skill) ? data.skill : {};
  const out: SkillToml = { skill: {} };
  for (const key of ['name', 'description', 'version', 'skill_md', 'origin_path'] as const) {
    const v = str(skill[key]);
    if (v !== undefined) out.skill[key] = v;
    else if (skill[key] !== undefined)
      issues.push({ severity: 'warning', code: 'toml.type', message: `skill.toml [skill].${key} must be a string; ignored` });
  }
  const t = skill.timeout_sec;
  if (typeof t === 'number' && Number.isFinite(t) && t > 0) out.skill.timeout_sec = t;
  else if (typeof t === 'bigint' && t > 0n) out.skill.timeout_sec = Number(t);
  else if (t !== undefined)
    issues.push({
      severity: 'warning',
      code: 'toml.type',
      message: 'skill.toml [skill].timeout_sec must be a positive number of seconds; ignored',
    });

  if (isRecord(data.exec)) {
    const table = data.exec.type === undefined && isRecord(data.exec.primary) ? data.exec.primary : data.exec;
    const exec: NonNullable<SkillToml['exec']> = {};
    for (const key of ['type', 'config', 'command'] as const) {
      const v = str(table[key]);
      if (v !== undefined) exec[key] = v;
    }
    out.exec = exec;
  }
  return out;
}

/**
 * Read `<dir>/skill.toml` (docs/skill-authoring.md).
 * @returns `toml: null` and no issue when the file does not exist; `toml: null` and one
 *   `error` issue (`toml.parse`) when it does not parse; otherwise the typed table.
 */
export async function readSkillToml(dir: string): Promise<{ toml: SkillToml | null; issues: SkillIssue[] }> {
  let text: string;
  try {
    text = await readFile(join(dir, 'skill.toml'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { toml: null, issues: [] };
    return {
      toml: null,
      issues: [{ severity: 'error', code: 'toml.unreadable', message: `skill.toml cannot be read: ${(err as Error).message}` }],
    };
  }
  let data: Record<string, unknown>;
  try {
    data = parse(text) as Record<string, unknown>;
  } catch (err) {
    const msg = err instanceof TomlError ? `line ${err.line}, column ${err.column}: ${err.message.split('\n')[0]}` : String(err);
    return { toml: null, issues: [{ severity: 'error', code: 'toml.parse', message: `skill.toml does not parse: ${msg}` }] };
  }
  const issues: SkillIssue[] = [];
  return { toml: toSkillToml(data, issues), issues };
}
