/**
 * Preflight (`_preflight_check`): the ONE routine that checks a skill folder
 * before it is created, edited or installed (R-PRE-01). Nothing in the folder is executed.
 *
 * Checks, each violation a separate issue (details in the modules of `./preflight/`):
 * - SKILL.md (or skill.toml) exists; `---` frontmatter with `name:` and `description:`
 *   (R-PRE-02); the name matches `^[a-z0-9][a-z0-9_\-]*$` and equals the folder (R-PRE-03);
 *   SKILL.md over 8000 characters (R-LOAD-17, advice);
 * - skill.toml `[skill].name` / `description`, `[exec].type`, the `[exec].config` file
 *   (INLINE_SHELL: `command`); a missing version is a "will default" notice (R-PRE-05, R-FORM-10);
 * - the handler parses, has `execute(input_data, runtime_context)`, is async (R-PRE-04);
 *   no entry at all (D-14), a defaulted context parameter (D-15, advice), CLI markers next to
 *   an entry (R-ENTRY-09), imports from outside the folder (R-LOAD-15), python3 missing (advice);
 * - the input schema: valid JSON, object-valued properties, boolean/object
 *   `additionalProperties` / `items` (R-SCH-03); secret parameters listed (D-20, notice).
 *
 * Severity (R-PRE-06, README.md "The skillgate command"): see `severityOf` in `./preflight/findings.ts`.
 */
import { readdir } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { findHandlerFiles } from './exec-type.ts';
import { readSkillToml } from './skill-toml.ts';
import type { SkillIssue } from './types.ts';
import { fatal, fromIssue, severityOf, type Finding, type PreflightMode } from './preflight/findings.ts';
import { checkHandler } from './preflight/handler.ts';
import { checkSchema } from './preflight/schema.ts';
import { checkSkillMd } from './preflight/skill-md.ts';
import { checkSkillToml, type TomlExec } from './preflight/skill-toml.ts';

export type { PreflightMode } from './preflight/findings.ts';

/** Options of {@link preflight}. */
export interface PreflightOptions {
  /**
   * `create`: in-chat create_skill / edit_skill and `skill check` by default — every problem
   * is an `error` except "will default" notices and the information listed as advice.
   * `install`: zip / directory install — problems are `warning`s (the skill installs), except
   * a missing or unreadable folder.
   */
  mode: PreflightMode;
}

/**
 * Pre-check the skill folder `dir` (R-PRE-01..06).
 * @returns every issue found, in a stable order (folder, SKILL.md, skill.toml, handler,
 *   schema); empty when the skill is clean. Severity per `opts.mode` (R-PRE-06). Messages
 *   are English and carry no "❌" prefix. Never rejects for a bad skill: a missing or
 *   unreadable folder is one `error` issue (`dir.unreadable`) in either mode.
 */
export async function preflight(dir: string, opts: PreflightOptions): Promise<SkillIssue[]> {
  return (await collectFindings(resolve(dir))).map((f) => ({ severity: severityOf(f.kind, opts.mode), code: f.code, message: f.message }));
}

/** Run every check on the absolute folder `abs`. */
async function collectFindings(abs: string): Promise<Finding[]> {
  try {
    await readdir(abs);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code === 'ENOENT' ? 'does not exist' : e.code === 'ENOTDIR' ? 'is not a folder' : `cannot be read (${e.code ?? e.message})`;
    return [fatal('dir.unreadable', `the skill folder ${why}`)];
  }
  const folder = basename(abs);
  const findings: Finding[] = [];

  const { toml, issues: tomlIssues } = await readSkillToml(abs);
  findings.push(...tomlIssues.map(fromIssue));

  const skillMd = await checkSkillMd(abs, folder, toml);
  findings.push(...skillMd.findings);

  let tomlExec: TomlExec | null = null;
  if (toml) {
    const raw = skillMd.frontmatter?.raw.version;
    const fmVersion = (typeof raw === 'string' && raw.trim() !== '') || typeof raw === 'number';
    const checked = await checkSkillToml(abs, folder, toml, fmVersion);
    findings.push(...checked.findings);
    if (toml.exec) tomlExec = checked.exec;
  }

  const handler = await checkHandler(abs, await findHandlerFiles(abs), tomlExec);
  findings.push(...handler.findings);
  findings.push(...(await checkSchema(abs, handler.inspection, skillMd.frontmatter)));
  return findings;
}
