/**
 * The skill name rule of preflight (R-PRE-03, R-LOAD-14): a name matches
 * `^[a-z0-9][a-z0-9_\-]*$` and equals the folder name.
 */
import { problem, type Finding } from './findings.ts';

/** Allowed skill names (R-PRE-03). */
export const SKILL_NAME_RE = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * Check one declared name. `where` says where it was declared (`SKILL.md`,
 * `skill.toml [skill].name`).
 * @returns `name.invalid` when the pattern does not match, `name.mismatch` when it differs
 *   from `folder` (the skill still registers under the declared name, R-LOAD-14); each separately.
 */
export function checkName(name: string, folder: string, where: string): Finding[] {
  const out: Finding[] = [];
  if (!SKILL_NAME_RE.test(name)) {
    out.push(
      problem(
        'name.invalid',
        `name "${name}" in ${where} is not allowed: use lower-case letters, digits, "_" and "-", starting with a letter or digit (^[a-z0-9][a-z0-9_\\-]*$)`,
      ),
    );
  }
  if (name !== folder) {
    out.push(
      problem(
        'name.mismatch',
        `name "${name}" in ${where} differs from the folder name "${folder}"; the skill would register as "${name}" — rename the folder or the name so they match`,
      ),
    );
  }
  return out;
}
