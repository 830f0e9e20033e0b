/**
 * Path confinement for skill folders: every file the registry reads on behalf of a skill
 * (SKILL.md candidates, exec config, schema.json) must stay inside the skill folder.
 *
 * Source: docs/skill-authoring.md ("relative to the skill folder"); R-LOAD-02, R-FORM-10.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** True when `child` is `parent` itself or below it (both absolute, already normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Resolve `rel` (relative to `dir`) and confine it to `dir`.
 * @returns the absolute path, or null when `rel` is absolute or escapes `dir` with `..`.
 */
export function confine(dir: string, rel: string): string | null {
  if (rel.trim() === '' || isAbsolute(rel)) return null;
  const abs = resolve(dir, rel);
  return isInside(resolve(dir), abs) ? abs : null;
}

/**
 * True when `abs` is an existing regular file whose real path (symlinks followed) is still
 * inside the real path of `dir`.
 */
export async function isConfinedFile(dir: string, abs: string): Promise<boolean> {
  try {
    const st = await stat(abs);
    if (!st.isFile()) return false;
    const [realDir, realFile] = await Promise.all([realpath(dir), realpath(abs)]);
    return isInside(realDir, realFile);
  } catch {
    return false;
  }
}
