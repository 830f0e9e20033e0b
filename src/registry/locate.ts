/**
 * Locating a skill's SKILL.md.
 *
 * Order (R-LOAD-02 with ), first existing file wins:
 *   1. `<dir>/<skill_md>` when skill.toml `[skill].skill_md` names one; otherwise
 *      `<dir>/SKILL.md` (then `<dir>/skill.md`), and when that file's frontmatter sets
 *      `skill_md`, that file instead (followed once, A-01);
 *   2. `<dir>/<origin_path>/SKILL.md`, then `<dir>/<origin_path>/skill.md`;
 *   3. `<dir>/optional-skills/<name>`: `<name>/SKILL.md`, `<name>.md`, `<name>` as a file;
 *   4. `<dir>/docs/<name>`: same three forms;
 *   5. `<dir>/README.md`.
 * Every candidate is confined to the skill folder: absolute paths and `..` escapes (also
 * through symlinks) are never read.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { splitSkillMd } from './frontmatter.ts';
import { confine, isConfinedFile } from './paths.ts';
import type { SkillIssue } from './types.ts';

/** Which rule of R-LOAD-02 found the file. */
export type LocateStep = 'skill_md' | 'default' | 'origin_path' | 'optional-skills' | 'docs' | 'readme';

/** Inputs of {@link locateSkillMd} besides the folder. */
export interface LocateOptions {
  /** skill.toml `[skill].skill_md`, relative to the folder. */
  skillMd?: string;
  /** skill.toml `[skill].origin_path` (or a registry record's), a sub-folder. */
  originPath?: string;
  /** Names tried under optional-skills/ and docs/ (skill.toml name, folder name); default: folder name. */
  names?: string[];
}

/** Result of {@link locateSkillMd}. */
export interface LocateResult {
  /** Absolute path of the SKILL.md to use, or null when no candidate exists. */
  path: string | null;
  step: LocateStep | null;
  issues: SkillIssue[];
}

/** Confine `rel` to `dir` and return it when it is an existing file there; reports escapes. */
async function candidate(dir: string, rel: string, what: string, issues: SkillIssue[]): Promise<string | null> {
  const abs = confine(dir, rel);
  if (abs === null) {
    issues.push({ severity: 'error', code: 'locate.escape', message: `${what} "${rel}" points outside the skill folder; ignored` });
    return null;
  }
  return (await isConfinedFile(dir, abs)) ? abs : null;
}

/** `<base>/<name>/SKILL.md`, `<base>/<name>.md`, `<base>/<name>`. */
async function underFolder(dir: string, base: string, names: string[], issues: SkillIssue[]): Promise<string | null> {
  for (const name of names) {
    for (const rel of [`${base}/${name}/SKILL.md`, `${base}/${name}.md`, `${base}/${name}`]) {
      const hit = await candidate(dir, rel, `${base} entry`, issues);
      if (hit) return hit;
    }
  }
  return null;
}

/** `skill_md` set in the frontmatter of the file at `abs`, if any. */
async function frontmatterSkillMd(abs: string): Promise<string | undefined> {
  try {
    const parsed = splitSkillMd(await readFile(abs, 'utf8'));
    const v = parsed.data?.skill_md ?? parsed.data?.['skill-md'];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Find the SKILL.md of the skill folder `dir` (absolute) in the order of R-LOAD-02 / A-01 /
 * A-02 described in this module's header.
 * @returns the absolute path (or null), the rule that found it, and issues (`locate.escape`
 *   for a candidate outside the folder, `locate.skill_md_missing` when a named skill_md does
 *   not exist).
 */
export async function locateSkillMd(dir: string, opts: LocateOptions = {}): Promise<LocateResult> {
  const issues: SkillIssue[] = [];
  const names = [...new Set((opts.names ?? [basename(dir)]).filter((n) => n && !n.includes('/') && n !== '..'))];

  // 1. skill_md from skill.toml, else SKILL.md (following its frontmatter skill_md once).
  if (opts.skillMd) {
    const hit = await candidate(dir, opts.skillMd, 'skill_md', issues);
    if (hit) return { path: hit, step: 'skill_md', issues };
    if (!issues.some((i) => i.code === 'locate.escape'))
      issues.push({ severity: 'warning', code: 'locate.skill_md_missing', message: `skill_md "${opts.skillMd}" does not exist` });
  } else {
    const dflt = (await candidate(dir, 'SKILL.md', 'SKILL.md', issues)) ?? (await candidate(dir, 'skill.md', 'skill.md', issues));
    if (dflt) {
      const redirect = await frontmatterSkillMd(dflt);
      if (redirect && confine(dir, redirect) !== dflt) {
        const hit = await candidate(dir, redirect, 'skill_md', issues);
        if (hit) return { path: hit, step: 'skill_md', issues };
        if (!issues.some((i) => i.code === 'locate.escape'))
          issues.push({
            severity: 'warning',
            code: 'locate.skill_md_missing',
            message: `skill_md "${redirect}" named in ${basename(dflt)} does not exist; using ${basename(dflt)}`,
          });
      }
      return { path: dflt, step: 'default', issues };
    }
  }

  // 2. origin_path/{SKILL.md, skill.md}
  if (opts.originPath) {
    for (const file of ['SKILL.md', 'skill.md']) {
      const hit = await candidate(dir, `${opts.originPath}/${file}`, 'origin_path', issues);
      if (hit) return { path: hit, step: 'origin_path', issues };
    }
  }

  // 3. optional-skills/<name>, 4. docs/<name>
  const opt = await underFolder(dir, 'optional-skills', names, issues);
  if (opt) return { path: opt, step: 'optional-skills', issues };
  const docs = await underFolder(dir, 'docs', names, issues);
  if (docs) return { path: docs, step: 'docs', issues };

  // 5. README.md
  const readme = await candidate(dir, 'README.md', 'README.md', issues);
  if (readme) return { path: readme, step: 'readme', issues };
  return { path: null, step: null, issues };
}
