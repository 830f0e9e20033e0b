/**
 * The config section of runtime_context: each stored parameter in four
 * places, with the context's own keys winning over colliding flat copies.
 *
 * Requirement ids: R-CFG-02, R-CALL-05, A-45.
 */
import { isFixedOrPlatformKey } from './keys.ts';

/** A skill's stored parameters, already decrypted (R-CFG-01). */
export interface SkillConfigValues {
  /** The skill the values belong to (the skill being run, or the callee of call_skill). */
  skill: string;
  /** Parameter name → value (names normalised, R-CFG-03). */
  values: Record<string, string>;
}

/** What {@link configSection} produces. */
export interface ConfigSection {
  skill_configs: Record<string, unknown>;
  skill_args: Record<string, unknown>;
  /** The top-level flat copies (A-45: never a fixed/platform/`_` key). */
  flat: Record<string, string>;
}

/**
 * Lay out `config` in the four places of R-CFG-02: `skill_configs[<skill>][k]`,
 * `skill_configs[k]`, `skill_args[k]` and top-level `ctx[k]` (returned in `flat`).
 * Collisions: a name of the context's own vocabulary or starting with `_` gets no
 * top-level copy (platform and fixed keys win); a name equal to the skill's name gets no
 * flat `skill_configs` copy (the nested object wins); `__proto__` is skipped everywhere.
 * Undefined `config` → empty objects.
 */
export function configSection(config: SkillConfigValues | undefined): ConfigSection {
  const skill_configs: Record<string, unknown> = {};
  const skill_args: Record<string, unknown> = {};
  const flat: Record<string, string> = {};
  if (!config) return { skill_configs, skill_args, flat };
  const nested: Record<string, string> = {};
  if (config.skill !== '__proto__') skill_configs[config.skill] = nested;
  for (const [k, v] of Object.entries(config.values)) {
    if (k === '__proto__' || typeof v !== 'string') continue;
    nested[k] = v;
    if (k !== config.skill) skill_configs[k] = v;
    skill_args[k] = v;
    if (!isFixedOrPlatformKey(k)) flat[k] = v;
  }
  return { skill_configs, skill_args, flat };
}
