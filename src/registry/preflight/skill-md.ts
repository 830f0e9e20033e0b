/**
 * Preflight of SKILL.md: presence, the `---` frontmatter block with
 * `name:` and `description:`, the name rule, and the length advice.
 *
 * Requirement ids: R-PRE-02, R-PRE-03, R-LOAD-14, R-LOAD-17.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { readFrontmatter, splitSkillMd } from '../frontmatter.ts';
import { locateSkillMd, type LocateStep } from '../locate.ts';
import type { SkillToml } from '../skill-toml.ts';
import type { Frontmatter } from '../types.ts';
import { advice, fromIssue, problem, type Finding } from './findings.ts';
import { checkName } from './name.ts';

/** Characters above which the SKILL.md is cut when injected (R-LOAD-17). */
export const SKILL_MD_MAX_CHARS = 8000;

/** Locate steps that found an actual SKILL.md (the others are README / docs fallbacks). */
const SKILL_MD_STEPS: ReadonlySet<LocateStep> = new Set(['default', 'skill_md', 'origin_path']);

/** Result of {@link checkSkillMd}. */
export interface SkillMdCheck {
  findings: Finding[];
  /** The typed frontmatter when a SKILL.md with a readable frontmatter exists, else null. */
  frontmatter: Frontmatter | null;
}

/** A frontmatter value usable as text: a non-empty string (or number), trimmed. */
function text(v: unknown): string | undefined {
  const s = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
  return s === '' ? undefined : s;
}

/**
 * Check the SKILL.md of the skill folder `dir` (absolute; `folder` is its base name).
 *
 * - No SKILL.md and no skill.toml → `skill_md.missing` (R-PRE-02). A README.md alone does
 *   not count (it is only a documentation fallback, R-LOAD-02).
 * - No leading `---` block → `frontmatter.missing`; invalid YAML → `frontmatter.invalid`;
 *   missing `name:` / `description:` → `frontmatter.name_missing` /
 *   `frontmatter.description_missing`, one each (R-PRE-02).
 * - The name rule via {@link checkName} (R-PRE-03).
 * - Over {@link SKILL_MD_MAX_CHARS} characters → advice `skill_md.too_long` (R-LOAD-17).
 * Problems of the shared readers (locate, frontmatter keys) are adopted as problems.
 */
export async function checkSkillMd(dir: string, folder: string, toml: SkillToml | null): Promise<SkillMdCheck> {
  const findings: Finding[] = [];
  const names = [toml?.skill.name, folder].filter((n): n is string => !!n);
  const located = await locateSkillMd(dir, { skillMd: toml?.skill.skill_md, originPath: toml?.skill.origin_path, names });
  findings.push(...located.issues.map(fromIssue));

  if (!located.path || !located.step || !SKILL_MD_STEPS.has(located.step)) {
    if (!toml) {
      const fallback = located.path ? ` (${basename(located.path)} is only used as documentation)` : '';
      findings.push(
        problem(
          'skill_md.missing',
          `no SKILL.md and no skill.toml${fallback}: add a SKILL.md that starts with a --- frontmatter block containing name: and description:`,
        ),
      );
    }
    return { findings, frontmatter: null };
  }

  const file = basename(located.path);
  let content: string;
  try {
    content = await readFile(located.path, 'utf8');
  } catch (err) {
    findings.push(problem('skill_md.unreadable', `${file} cannot be read: ${(err as Error).message}`));
    return { findings, frontmatter: null };
  }
  const chars = Array.from(content).length;
  if (chars > SKILL_MD_MAX_CHARS) {
    findings.push(
      advice(
        'skill_md.too_long',
        `${file} has ${chars} characters (over ${SKILL_MD_MAX_CHARS}): the tail is cut when it is injected; move details to references/ and say in the body "read references/xxx.md before doing X"`,
      ),
    );
  }

  const parsed = splitSkillMd(content);
  if (!parsed.hasFrontmatter) {
    findings.push(
      problem(
        'frontmatter.missing',
        `${file} does not start with a --- frontmatter block: put "---", then name: and description: lines, then "---" at the very top`,
      ),
    );
    return { findings, frontmatter: null };
  }
  if (parsed.error || !parsed.data) {
    findings.push(problem('frontmatter.invalid', `${file}: ${parsed.error ?? 'frontmatter cannot be read'}`));
    return { findings, frontmatter: null };
  }

  const data = parsed.data;
  const name = text(data.name);
  if (!name) findings.push(problem('frontmatter.name_missing', `${file} frontmatter has no name: add name: ${folder}`));
  if (!text(data.description)) {
    findings.push(
      problem(
        'frontmatter.description_missing',
        `${file} frontmatter has no description: add one sentence saying when the model should call this skill`,
      ),
    );
  }
  if (name) findings.push(...checkName(name, folder, file));

  const { frontmatter, issues } = readFrontmatter(data, folder);
  findings.push(...issues.map(fromIssue));
  return { findings, frontmatter };
}
