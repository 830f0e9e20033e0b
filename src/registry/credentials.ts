/**
 * The configuration parameters a skill declares, for operators (R-LOAD-10, R-LOAD-07, R-CFG-05,
 * `primaryEnv` — the skill's main credential variable — first, then the other `requires.env`
 * names, then the secret input properties. The console lists them before anything is stored, so an
 * operator sees what to set.
 */
import { isSecretName } from './secrets.ts';
import type { SkillRecord } from './types.ts';

/** One declared parameter. */
export interface DeclaredParam {
  /** The parameter (= environment variable) name. */
  key: string;
  /** Stored encrypted, never shown again: the primary credential, a secret input property, or a secret-looking name (R-CFG-05). */
  secret: boolean;
  /** It is `metadata.openclaw.primaryEnv` (R-LOAD-10). */
  primary: boolean;
  /** Blocks execution while missing (a `requires.env` entry without `required: false`, A-07). */
  required: boolean;
}

/**
 * The parameters `skill` declares, each name once, in the order primaryEnv, requires.env,
 * secret input properties. Pure.
 */
export function declaredParams(skill: Pick<SkillRecord, 'frontmatter' | 'secretParams'>): DeclaredParam[] {
  const out = new Map<string, DeclaredParam>();
  const requiredEnv = new Set(skill.frontmatter.requires.env.filter((e) => e.required).map((e) => e.name));
  const primary = skill.frontmatter.primaryEnv;
  if (primary) out.set(primary, { key: primary, secret: true, primary: true, required: requiredEnv.has(primary) });
  for (const e of skill.frontmatter.requires.env) {
    if (!out.has(e.name))
      out.set(e.name, {
        key: e.name,
        secret: isSecretName(e.name) || skill.secretParams.includes(e.name),
        primary: false,
        required: e.required,
      });
  }
  for (const p of skill.secretParams) if (!out.has(p)) out.set(p, { key: p, secret: true, primary: false, required: false });
  return [...out.values()];
}

/** The names stored encrypted for `skill`: its primary credential and its secret input properties (R-LOAD-10, R-CFG-05). */
export function secretParamNames(skill: Pick<SkillRecord, 'frontmatter' | 'secretParams'>): string[] {
  return declaredParams(skill)
    .filter((p) => p.primary || skill.secretParams.includes(p.key))
    .map((p) => p.key);
}
