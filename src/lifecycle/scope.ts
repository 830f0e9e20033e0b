/**
 * Which skills a role may call (docs/skill-authoring.md):
 * the built-in / shared / market skills (and saved chains) its config `skills:` list gives it
 * (`*` or an unknown role = all of them), minus the console's `enabled=false` overrides, plus
 * the ones the console enabled although the list omits them, plus the role's own skills
 * (`source: role` with `ownerRole` = the role; the console may disable those too).
 * Another role's own skills are never in scope.
 *
 * Opt-in skills (frontmatter `opt-in: true`: `create_skill`, `edit_skill` — code written from
 * chat runs with the gateway's rights) are never given by `*`: a role gets one only by naming it
 * in `skills:` or by the console's override (docs/skill-lifecycle.md "Opt-in skills").
 */
import type { SkillRecord } from '../registry/types.ts';
import type { Overrides } from './enablement.ts';

/** True when `rec` is a role's own skill (found under `<data>/role-skills/<role>/`). */
export function isOwnedRoleSkill(rec: Pick<SkillRecord, 'source' | 'ownerRole'>): boolean {
  return rec.source === 'role' && rec.ownerRole !== undefined;
}

/** True when the skill's frontmatter says `opt-in: true` (never enabled by `*`). */
export function isOptIn(rec: { frontmatter?: { raw?: Record<string, unknown> } }): boolean {
  const v = rec.frontmatter?.raw?.['opt-in'];
  return v === true || v === 'true';
}

/**
 * Whether role `roleId` has `rec` enabled.
 * @param configList the role's config `skills:` as written (may hold `*` and names together);
 *   undefined (unknown role) is treated as `*`.
 */
export function enabledFor(
  rec: Pick<SkillRecord, 'name' | 'source' | 'ownerRole'> & {
    frontmatter?: { raw?: Record<string, unknown> };
    mcp?: { roles: readonly string[] };
  },
  roleId: string,
  configList: readonly string[] | '*' | undefined,
  overrides: Overrides,
): boolean {
  // An MCP server's tools exist only for the roles its `roles:` names (docs/mcp.md).
  if (rec.mcp && !rec.mcp.roles.includes('*') && !rec.mcp.roles.includes(roleId)) return false;
  const override = overrides.get(roleId)?.get(rec.name);
  if (isOwnedRoleSkill(rec)) return rec.ownerRole === roleId && override !== false;
  if (override !== undefined) return override;
  if (configList === undefined || configList === '*') return !isOptIn(rec);
  if (configList.includes(rec.name)) return true;
  return configList.includes('*') && !isOptIn(rec);
}

/** The names (registry order) of the records `roleId` may call. */
export function scopeNames(
  records: readonly SkillRecord[],
  roleId: string,
  configList: readonly string[] | '*' | undefined,
  overrides: Overrides,
): string[] {
  return records.filter((r) => enabledFor(r, roleId, configList, overrides)).map((r) => r.name);
}
