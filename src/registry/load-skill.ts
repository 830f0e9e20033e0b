/**
 * Loading one skill folder into a {@link SkillRecord}.
 *
 * Source: docs/skill-authoring.md. Requirement ids: R-FORM-01, R-FORM-10, R-LOAD-01..04, R-LOAD-13,
 * R-LOAD-14, R-LOAD-16, R-SCH-02, R-CFG-06, A-01, A-02, A-03, A-43, D-14.
 */
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { findHandlerFiles, resolveExec, type ExecResolution, type Inspector } from './exec-type.ts';
import { readFrontmatter, splitSkillMd } from './frontmatter.ts';
import { inspectHandler } from './inspect/index.ts';
import { locateSkillMd } from './locate.ts';
import { loadInputSchema, normalizeSubcommands } from './schema.ts';
import { detectSecretParams } from './secrets.ts';
import { readSkillToml } from './skill-toml.ts';
import { chooseSubcommands } from './subcommands.ts';
import type { SkillIssue, SkillRecord, SkillSource, SkillType } from './types.ts';

/** A folder whose sub-folders are skills (docs/skill-authoring.md). */
export interface SkillRoot {
  /** Absolute (or cwd-relative) folder. */
  dir: string;
  /** Recorded on every skill found under it (R-LOAD-04). */
  source: SkillSource;
}

/** Options of {@link loadSkill} and `discoverSkills`. */
export interface LoadOptions {
  /** D-14 legacy: a handler file without an entry silently becomes a document skill. Default false. */
  legacyDocFallback?: boolean;
  /** Secret substrings (D-20); default `SECRET_SUBSTRINGS`. */
  secretSubstrings?: readonly string[];
  /** Handler inspector; default `inspectHandler` of `./inspect/index.ts`. */
  inspect?: Inspector;
}

/** First non-empty, non-heading line of a markdown body, at most 200 characters. */
function firstLine(body: string): string {
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line && !line.startsWith('#') && !line.startsWith('---')) return line.length > 200 ? line.slice(0, 199) + '…' : line;
  }
  return '';
}

/**
 * Load the skill folder `dir` found under `root` (never throws for a bad skill: problems are
 * `issues`, and a skill that cannot run has `status: 'broken'` — D-14).
 *
 * - SKILL.md located by R-LOAD-02 / A-01 / A-02 (`locate.ts`); its frontmatter read with
 *   R-LOAD-03 defaults; a YAML error → broken.
 * - Name: frontmatter `name`, else skill.toml `[skill].name`, else the folder name (R-LOAD-14;
 *   a mismatch with the folder is a warning `name.mismatch`).
 * - Type: frontmatter `skill_type`, else `handler` when a handler file or `[exec]` exists,
 *   else `skill_md` (R-FORM-01, D-14). A handler file without an entry → broken.
 * - Input schema: schema.json over a code constant (R-LOAD-13), normalised (R-SCH-02);
 *   secret params detected (R-CFG-06); sub-commands from frontmatter, schema.json or code.
 * - Version: skill.toml, else frontmatter `version`, else "0.0.0" with a notice (R-FORM-10).
 */
export async function loadSkill(dir: string, root: SkillRoot, opts: LoadOptions = {}): Promise<SkillRecord> {
  const abs = resolve(dir);
  const folder = basename(abs);
  const issues: SkillIssue[] = [];
  let broken = false;

  const { toml, issues: tomlIssues } = await readSkillToml(abs);
  issues.push(...tomlIssues);
  if (tomlIssues.some((i) => i.severity === 'error')) broken = true;

  // SKILL.md (R-LOAD-02)
  const names = [toml?.skill.name, folder].filter((n): n is string => !!n);
  const located = await locateSkillMd(abs, { skillMd: toml?.skill.skill_md, originPath: toml?.skill.origin_path, names });
  issues.push(...located.issues);
  let body = '';
  let data: Record<string, unknown> = {};
  let fmHasName = false;
  if (located.path) {
    let text = '';
    try {
      text = await readFile(located.path, 'utf8');
    } catch (e) {
      broken = true;
      issues.push({
        severity: 'error',
        code: 'skill_md.unreadable',
        message: `${basename(located.path)} cannot be read: ${(e as Error).message}`,
      });
    }
    const parsed = splitSkillMd(text);
    body = parsed.body;
    if (parsed.error) {
      broken = true;
      issues.push({ severity: 'error', code: 'frontmatter.invalid', message: `${basename(located.path)}: ${parsed.error}` });
    } else if (!parsed.hasFrontmatter) {
      issues.push({
        severity: located.step === 'readme' ? 'notice' : 'warning',
        code: 'frontmatter.missing',
        message: `${basename(located.path)} does not start with a --- frontmatter block`,
      });
    }
    data = parsed.data ?? {};
    fmHasName = typeof data.name === 'string' && data.name.trim() !== '';
  } else if (!toml) {
    issues.push({ severity: 'warning', code: 'skill_md.missing', message: 'no SKILL.md (nor skill.toml) found' });
  }

  const fallbackName = toml?.skill.name?.trim() || folder;
  const { frontmatter, issues: fmIssues } = readFrontmatter(data, fallbackName);
  issues.push(...fmIssues);
  const name = frontmatter.name;
  if (name !== folder)
    issues.push({
      severity: 'warning',
      code: 'name.mismatch',
      message: `name "${name}" differs from the folder name "${folder}"; registered as "${name}" (R-LOAD-14)`,
    });
  if (fmHasName && toml?.skill.name && toml.skill.name !== name)
    issues.push({
      severity: 'warning',
      code: 'name.toml_mismatch',
      message: `skill.toml [skill].name "${toml.skill.name}" differs from the SKILL.md name "${name}"`,
    });

  frontmatter.description = frontmatter.description || toml?.skill.description?.trim() || firstLine(body);
  if (!frontmatter.description)
    issues.push({
      severity: 'warning',
      code: 'frontmatter.description_missing',
      message: 'no description: the model has nothing to select this skill by',
    });
  if (frontmatter.timeoutSec === undefined && toml?.skill.timeout_sec !== undefined) frontmatter.timeoutSec = toml.skill.timeout_sec;

  // Skill type and exec type (R-FORM-01, D-14)
  const handlerFiles = await findHandlerFiles(abs);
  let skillType: SkillType;
  let exec: ExecResolution = { execType: null, inspection: null, broken: false, docFallback: false };
  const declared = frontmatter.skillType;
  if (declared === undefined || declared === 'handler') {
    exec = await resolveExec(
      abs,
      toml,
      handlerFiles,
      { inspect: opts.inspect ?? inspectHandler, legacyDocFallback: opts.legacyDocFallback ?? false },
      issues,
    );
    if (exec.broken) broken = true;
    const hasCode = handlerFiles.length > 0 || toml?.exec !== undefined;
    skillType = declared ?? (hasCode && !exec.docFallback ? 'handler' : 'skill_md');
    if (declared === 'handler' && !hasCode) {
      broken = true;
      issues.push({
        severity: 'error',
        code: 'handler.missing',
        message: 'skill_type is handler but there is no handler file and no skill.toml [exec]',
      });
    }
  } else {
    skillType = declared;
    if (handlerFiles.length > 0)
      issues.push({
        severity: 'notice',
        code: 'skill_type.ignores_handler',
        message: `skill_type ${declared}: the handler file is not run`,
      });
  }
  if (skillType === 'skill_md' && !located.path) {
    broken = true;
    issues.push({ severity: 'error', code: 'skill_md.missing', message: 'a document skill needs a SKILL.md' });
  }

  // Schemas (R-LOAD-13, R-SCH-02, A-43, A-03) and secrets (R-CFG-06)
  const schema = await loadInputSchema(abs, exec.inspection && !exec.inspection.unavailable ? exec.inspection : null);
  issues.push(...schema.issues);
  if (schema.issues.some((i) => i.severity === 'error')) broken = true;
  const fmCommands = frontmatter.cliCommands ? normalizeSubcommands(frontmatter.cliCommands, issues) : undefined;
  const subcommands = chooseSubcommands(fmCommands, schema, issues);
  const secretParams = detectSecretParams(schema.inputSchema, opts.secretSubstrings);

  // Version (R-FORM-10)
  const fmVersion = typeof data.version === 'string' || typeof data.version === 'number' ? String(data.version) : undefined;
  const version = toml?.skill.version?.trim() || fmVersion || '0.0.0';
  if (!toml?.skill.version?.trim() && !fmVersion)
    issues.push({ severity: 'notice', code: 'version.default', message: 'no version given; will default to 0.0.0' });

  const record: SkillRecord = {
    name,
    dir: abs,
    root: resolve(root.dir),
    source: root.source,
    skillType,
    execType: skillType === 'handler' ? exec.execType : null,
    version,
    skillMdPath: located.path,
    doc: body,
    frontmatter,
    inputSchema: schema.inputSchema,
    schemaSource: schema.schemaSource,
    subcommands,
    secretParams,
    status: broken ? 'broken' : 'ok',
    issues,
  };
  if (skillType === 'handler' && exec.entryFile) record.entryFile = exec.entryFile;
  if (skillType === 'handler' && exec.exec) record.exec = exec.exec;
  if (schema.outputSchema) record.outputSchema = schema.outputSchema;
  return record;
}
