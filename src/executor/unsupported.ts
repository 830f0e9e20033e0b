/**
 * Skills this gateway recognises but does not execute here (R-FORM-08, R-LOAD-09,
 * README.md "The skillgate command"): BROWSER / MCP exec types, container skills (`exec_mode: shell|runtime`),
 * document skills without a model, knowledge skills, chains, broken skills.
 */
import type { RawOutcome } from '../envelope/types.ts';
import type { SkillRecord } from '../registry/types.ts';

/** A configuration failure that retrying will not fix. */
function configFailure(error: string, details?: Record<string, unknown>): RawOutcome {
  return { kind: 'failed', error, error_type: 'config', non_retriable: true, ...(details ? { details } : {}) };
}

/** BROWSER / MCP (R-FORM-08): recognised, never executed. */
export function unsupportedExecType(skill: SkillRecord, type: string): RawOutcome {
  return configFailure(`skill "${skill.name}": exec type ${type} is not implemented in this gateway`, { exec_type: type });
}

/** Container skills (`exec_mode: shell` or `runtime`, R-LOAD-09): no container runtime here. */
export function unsupportedExecMode(skill: SkillRecord, mode: string): RawOutcome {
  return configFailure(`skill "${skill.name}": exec_mode "${mode}" (container execution) is not implemented in this gateway`, {
    exec_mode: mode,
  });
}

/** A `skill_md` skill with no model configured (README.md "The skillgate command"). */
export function documentSkillWithoutModel(skill: SkillRecord): RawOutcome {
  return configFailure(
    `skill "${skill.name}" is a document (skill_md) skill and needs a model; set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL)`,
    { missing: ['LLM_BASE_URL'] },
  );
}

/** A `knowledge` skill: retrieval only, never executable. */
export function notExecutable(skill: SkillRecord): RawOutcome {
  return configFailure(`skill "${skill.name}" is a ${skill.skillType} skill and is not executable`);
}

/** A skill marked broken by the registry (D-14): names the first blocking problem. */
export function brokenSkill(skill: SkillRecord): RawOutcome {
  const first = skill.issues.find((i) => i.severity === 'error');
  return configFailure(`skill "${skill.name}" is broken and cannot run${first ? `: ${first.message}` : ''}`);
}

/** A handler skill whose exec type could not be resolved. */
export function noExecType(skill: SkillRecord): RawOutcome {
  return configFailure(`skill "${skill.name}" has no runnable handler (no handler file and no skill.toml [exec])`);
}
