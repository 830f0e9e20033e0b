/**
 * Where role-scoped skills live and which file paths a create/edit may name
 * (R-PRE-08, R-PRE-09). Role skills live in the data dir —
 * `<data>/role-skills/<role>/<name>/` — never in the repository.
 */
import { lstat, mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { HANDLER_FILES } from '../registry/exec-type.ts';
import { isInside } from '../registry/paths.ts';
import type { SkillRoot } from '../registry/load-skill.ts';

/** Folder under the data dir that holds every role's skills. */
export const ROLE_SKILLS_DIR = 'role-skills';

/** Skill name rule of R-PRE-03. */
export const SKILL_NAME_RE = /^[a-z0-9][a-z0-9_-]*$/;
/** A role id usable as one folder name (no separators, no `..`, at most 64 characters). */
export const ROLE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Files create_skill writes (R-PRE-08): SKILL.md, the handler file and skill.toml. */
export const CREATE_FILES: readonly string[] = ['SKILL.md', ...HANDLER_FILES, 'skill.toml'];
/** Top-level files edit_skill may also write: schema.json (plus anything under `references/`). */
export const EDIT_EXTRA_FILES: readonly string[] = ['schema.json'];
/** The folder edit_skill may add documents to. */
export const REFERENCES_DIR = 'references';

/** Longest relative path accepted, in characters. */
export const MAX_PATH_CHARS = 200;

/** The folder holding role `roleId`'s skills (not created). */
export function roleSkillsDir(dataDir: string, roleId: string): string {
  return join(dataDir, ROLE_SKILLS_DIR, roleId);
}

/** The discovery root of role `roleId`'s skills: pass it to `discoverSkills` after the built-in and shared roots. */
export function roleSkillRoot(dataDir: string, roleId: string): SkillRoot {
  return { dir: roleSkillsDir(dataDir, roleId), source: 'role' };
}

/**
 * Why a relative file path of a create/edit request is unsafe, or null when it is fine:
 * non-empty, `/`-separated, not absolute, no `.`/`..`/empty/hidden segment, no backslash or
 * control character, at most {@link MAX_PATH_CHARS} characters.
 */
export function unsafePath(rel: string): string | null {
  if (rel === '' || rel.length > MAX_PATH_CHARS) return 'empty or too long';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\\]/.test(rel)) return 'control character or backslash';
  if (rel.startsWith('/') || /^[A-Za-z]:/.test(rel)) return 'absolute path';
  for (const seg of rel.split('/')) {
    if (seg === '..') return 'leaves the skill folder (..)';
    if (seg === '' || seg === '.') return 'empty segment';
    if (seg.startsWith('.')) return 'hidden file or folder';
  }
  return null;
}

/** True when create_skill writes `rel` (R-PRE-08). */
export function isCreateFile(rel: string): boolean {
  return CREATE_FILES.includes(rel);
}

/** True when edit_skill may write `rel`: a create file, schema.json, or a file under `references/`. */
export function isEditFile(rel: string): boolean {
  return (
    isCreateFile(rel) || EDIT_EXTRA_FILES.includes(rel) || (rel.startsWith(REFERENCES_DIR + '/') && rel.length > REFERENCES_DIR.length + 1)
  );
}

/**
 * Create (when missing) `<data>/role-skills/<role>/` and check that neither it nor
 * `role-skills/` is a symbolic link and that its real path is inside the data dir's.
 * @returns the folder, or null when it is a link or leaves the data dir.
 */
export async function ensureRoleDir(dataDir: string, roleId: string): Promise<string | null> {
  const dir = roleSkillsDir(dataDir, roleId);
  await mkdir(dir, { recursive: true });
  for (const p of [join(dataDir, ROLE_SKILLS_DIR), dir]) {
    if ((await lstat(p)).isSymbolicLink()) return null;
  }
  const [realData, realDir] = await Promise.all([realpath(dataDir), realpath(dir)]);
  return isInside(realData, realDir) ? dir : null;
}
