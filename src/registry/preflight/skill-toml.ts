/**
 * Preflight of skill.toml (docs/skill-authoring.md): `[skill].name`,
 * `[skill].description`, `[exec].type`, and the `[exec].config` file (or the INLINE_SHELL
 * `command`). A missing version is only a "will default" notice.
 *
 * Requirement ids: R-PRE-05, R-FORM-10, R-FORM-08, R-PRE-03.
 */
import { TOML_EXEC_TYPES } from '../exec-type.ts';
import { confine, isConfinedFile } from '../paths.ts';
import type { SkillToml } from '../skill-toml.ts';
import { notice, problem, type Finding } from './findings.ts';
import { checkName } from './name.ts';

/** What {@link checkSkillToml} learned about `[exec]`, for the handler check. */
export interface TomlExec {
  /** `[exec].type` upper-cased, when it is one of TOML_EXEC_TYPES. */
  type?: (typeof TOML_EXEC_TYPES)[number];
  /** Absolute path of an existing `[exec].config` inside the folder. */
  configPath?: string;
}

/**
 * Check a parsed skill.toml of the skill folder `dir` (absolute; `folder` its base name).
 * `hasOtherVersion` is true when the SKILL.md frontmatter gives a version (the loader
 * then uses it, so nothing "will default").
 *
 * Each violation is its own problem: `toml.name_missing`, `toml.description_missing`,
 * `exec.type_missing`, `exec.type_invalid`, `exec.config_missing`, `exec.config_escape`,
 * `exec.config_not_found`, `exec.command_missing` (INLINE_SHELL), `exec.unsupported`
 * (BROWSER / MCP are recognised but never run, R-FORM-08); plus the name rule for
 * `[skill].name`. A missing `[skill].version` is the notice `version.default` (R-FORM-10).
 */
export async function checkSkillToml(
  dir: string,
  folder: string,
  toml: SkillToml,
  hasOtherVersion: boolean,
): Promise<{ findings: Finding[]; exec: TomlExec }> {
  const findings: Finding[] = [];
  const exec: TomlExec = {};
  const name = toml.skill.name?.trim();
  if (!name) findings.push(problem('toml.name_missing', `skill.toml has no [skill].name: add name = "${folder}"`));
  else findings.push(...checkName(name, folder, 'skill.toml [skill].name'));
  if (!toml.skill.description?.trim()) {
    findings.push(
      problem(
        'toml.description_missing',
        'skill.toml has no [skill].description: add one sentence saying when the model should call this skill',
      ),
    );
  }
  if (!toml.skill.version?.trim() && !hasOtherVersion) {
    findings.push(notice('version.default', 'skill.toml has no [skill].version; will default to 0.0.0'));
  }

  const rawType = toml.exec?.type?.trim() ?? '';
  const type = rawType.toUpperCase();
  const known = (TOML_EXEC_TYPES as readonly string[]).includes(type);
  if (!rawType) {
    findings.push(problem('exec.type_missing', `skill.toml has no [exec].type: set it to one of ${TOML_EXEC_TYPES.join(', ')}`));
  } else if (!known) {
    findings.push(problem('exec.type_invalid', `skill.toml [exec].type "${rawType}" is not one of ${TOML_EXEC_TYPES.join(', ')}`));
  } else {
    exec.type = type as TomlExec['type'];
  }

  if (exec.type === 'BROWSER' || exec.type === 'MCP') {
    findings.push(
      problem('exec.unsupported', `skill.toml [exec].type ${exec.type} is recognised but not implemented: the skill can never run`),
    );
    return { findings, exec };
  }
  if (exec.type === 'INLINE_SHELL') {
    if (!toml.exec?.command?.trim()) {
      findings.push(
        problem('exec.command_missing', 'skill.toml [exec].type INLINE_SHELL needs command = "…" (the command line run by /bin/sh -c)'),
      );
    }
    return { findings, exec };
  }

  const config = toml.exec?.config?.trim();
  if (!config) {
    findings.push(
      problem(
        'exec.config_missing',
        'skill.toml has no [exec].config: name the program (or HTTP request file) relative to the skill folder',
      ),
    );
    return { findings, exec };
  }
  const abs = confine(dir, config);
  if (abs === null) {
    findings.push(
      problem('exec.config_escape', `skill.toml [exec].config "${config}" points outside the skill folder; keep the program inside it`),
    );
  } else if (!(await isConfinedFile(dir, abs))) {
    findings.push(problem('exec.config_not_found', `skill.toml [exec].config "${config}" does not exist in the skill folder`));
  } else {
    exec.configPath = abs;
  }
  return { findings, exec };
}
