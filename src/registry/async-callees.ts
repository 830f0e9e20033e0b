/**
 * Lint (R-CALL-16; the checklist of docs/skill-authoring.md "Rules for skill code"):
 * a skill whose handler calls an `async: true` skill through `call_skill` gets a warning. Such
 * a call runs synchronously (background dispatch is a dialog-layer feature) and spends the
 * caller's wall clock (R-ASYNC-09). Static and best-effort: only literal skill names are seen.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import type { SkillIssue, SkillRecord } from './types.ts';

/** Source file extensions scanned next to a handler. */
const SOURCE_EXT = new Set(['.ts', '.js', '.mjs', '.cjs', '.py']);

/**
 * Literal skill names passed as the first argument of `call_skill` in `source`: JS/TS
 * `ctx.call_skill('x', …)`, `runtime_context["call_skill"]("x", …)`, and a function value
 * taken from it and named `call` / `callSkill` / `call_skill` (`const call = ctx.call_skill;
 * call('x', …)`). Unique names in order of first appearance.
 */
export function callSkillTargets(source: string): string[] {
  const re = /(?:\bcall_skill\b['"]?\]?|\bcallSkill\b|(?<![.\w])call\b)\s*\(\s*(['"`])([A-Za-z0-9_-]+)\1/g;
  const out: string[] = [];
  for (const m of source.matchAll(re)) if (!out.includes(m[2]!)) out.push(m[2]!);
  return out;
}

/** The handler's folder's top-level source files (the handler and its helper modules). */
function sourcesOf(rec: SkillRecord): string[] {
  if (!rec.entryFile) return [];
  const dir = dirname(rec.entryFile);
  try {
    return readdirSync(dir)
      .filter((f) => SOURCE_EXT.has(extname(f)))
      .map((f) => readFileSync(join(dir, f), 'utf8'));
  } catch {
    return [];
  }
}

/**
 * One `warning` (code `call_skill.async_callee`) per skill of `records` that names an
 * `async: true` skill of `records` as a call_skill target; keyed by the caller's name.
 */
export function asyncCalleeIssues(records: readonly SkillRecord[]): Map<string, SkillIssue[]> {
  const asyncNames = new Set(records.filter((r) => r.frontmatter.async).map((r) => r.name));
  const out = new Map<string, SkillIssue[]>();
  if (asyncNames.size === 0) return out;
  for (const rec of records) {
    if (rec.skillType !== 'handler') continue;
    const targets = new Set(sourcesOf(rec).flatMap(callSkillTargets));
    const hits = [...targets].filter((t) => asyncNames.has(t) && t !== rec.name);
    if (hits.length === 0) continue;
    out.set(
      rec.name,
      hits.map((t) => ({
        severity: 'warning' as const,
        code: 'call_skill.async_callee',
        message:
          `calls the async skill "${t}" through call_skill: there it runs synchronously and uses this skill's wall clock; ` +
          'let the conversation start it, or connect the two by a chain',
      })),
    );
  }
  return out;
}
