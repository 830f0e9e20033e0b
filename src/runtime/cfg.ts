/**
 * SDK helpers skills and built-ins use on a runtime_context: the parameter lookup
 * and the pseudo-org fallback.
 *
 * Requirement ids: R-CFG-04, R-ORG-03.
 */

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `String(v)` for primitives, JSON for objects/arrays (Python's `str()` of the original). */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'object') {
    try {
      return JSON.stringify(v) ?? '';
    } catch {
      return '';
    }
  }
  return String(v);
}

/**
 * Look up skill parameter `key` (R-CFG-04) in order:
 * `ctx.skill_configs[skillName]` → `ctx.skill_configs` → `ctx.skill_args` → `ctx` top level
 * → `env`. The first value that is not null/undefined and not blank after trim wins and is
 * returned as text, untrimmed (objects as JSON); a blank value falls through to the next
 * level. An environment value counts only when non-blank. Nothing found → "".
 * Own properties only (a key such as `constructor` never reads a prototype).
 */
export function cfg(ctx: Record<string, unknown>, key: string, skillName: string, env: NodeJS.ProcessEnv = process.env): string {
  const configs = isRecord(ctx.skill_configs) ? ctx.skill_configs : {};
  const nested = Object.hasOwn(configs, skillName) && isRecord(configs[skillName]) ? configs[skillName] : {};
  const args = isRecord(ctx.skill_args) ? ctx.skill_args : {};
  for (const src of [nested, configs, args, ctx]) {
    if (!Object.hasOwn(src, key)) continue;
    const v = src[key];
    if (v === null || v === undefined || typeof v === 'function') continue;
    const text = asText(v);
    if (text.trim() !== '') return text;
  }
  const fromEnv = Object.hasOwn(env, key) ? env[key] : undefined;
  return fromEnv !== undefined && fromEnv.trim() !== '' ? fromEnv : '';
}

/**
 * The org a skill uses to query profile / org tables itself (R-ORG-03):
 * `trim(ctx.org_id)` when non-empty, else `"r_" + role_id`. Never use it for data tables
 * (R-ORG-04: an empty org_id is refused there).
 */
export function pseudoOrgId(ctx: { org_id?: unknown; role_id?: unknown }): string {
  const org = typeof ctx.org_id === 'string' ? ctx.org_id.trim() : '';
  if (org !== '') return org;
  const role = typeof ctx.role_id === 'string' || typeof ctx.role_id === 'number' ? String(ctx.role_id) : '';
  return `r_${role}`;
}
