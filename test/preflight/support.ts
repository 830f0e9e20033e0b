/** Shared helpers of the preflight tests: fixture paths and throw-away skill folders. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SkillIssue } from '../../src/registry/types.ts';

/** Absolute path of `test/fixtures/preflight/<name>`. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../fixtures/preflight/${name}`, import.meta.url));
}

/** `[severity, code]` pairs, the shape most assertions compare. */
export function graded(issues: SkillIssue[]): [string, string][] {
  return issues.map((i) => [i.severity, i.code]);
}

/** A SKILL.md with a valid frontmatter for `name`. */
export function skillMd(name: string, extra = ''): string {
  return `---\nname: ${name}\ndescription: Use when testing preflight.\n${extra}---\n\n# ${name}\n`;
}

/**
 * Create `<tmp>/<name>/` with `files` (relative path → content) and return its path.
 * Each call uses a fresh parent folder, so sibling checks see only what the test made.
 */
export function makeSkill(name: string, files: Record<string, string>): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sg-preflight-')), name);
  mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}
