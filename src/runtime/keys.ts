/**
 * Key vocabularies of `runtime_context`: which names are fixed, which
 * are platform-injected, which the admin proxy-fill clears, which `call_skill` passes on,
 * and which input fields are identity the model could forge (R-ID-01).
 *
 * Requirement ids: R-CTX-02, R-CTX-11, R-PCTX-01..12, R-ADM-01/02, R-CALL-06/07, R-ID-01,
 *
 */
import { FIXED_CTX_FIELDS, type FixedCtxField } from './types.ts';

/** The platform-injected keys (R-PCTX-01..11), in the order a context lists them. */
export const PLATFORM_CTX_KEYS = [
  'org_id',
  'role_id',
  'session_id',
  'user_id',
  'team_id',
  'team_role',
  'is_admin',
  'chat_mode',
  'allow_sql',
  'workspace_dir',
  'skill_config',
  'db',
  'db_factory',
  'abort_signal',
  'call_skill',
  'channel_registry',
  'request',
] as const;

/** The config section's own keys (R-CFG-02). */
export const CONFIG_SECTION_KEYS = ['skill_configs', 'skill_args'] as const;

/**
 * Every name a stored skill parameter may not take, because its top-level flat copy would
 * collide with the context's own vocabulary: the 17 fixed keys, the platform keys, the
 * config-section keys, and `emp_no` (R-CTX-11: no alias of actor_emp_no may ever appear).
 */
export const RESERVED_CTX_KEYS: ReadonlySet<string> = new Set<string>([
  ...FIXED_CTX_FIELDS,
  ...PLATFORM_CTX_KEYS,
  ...CONFIG_SECTION_KEYS,
  'emp_no',
]);

/**
 * True when `name` belongs to the context's own vocabulary ({@link RESERVED_CTX_KEYS}) or
 * starts with `_` (platform-internal, R-PCTX-12). Such names never get a top-level flat
 * config copy and are refused when a parameter is saved. Exact, case-sensitive match.
 */
export function isFixedOrPlatformKey(name: string): boolean {
  return RESERVED_CTX_KEYS.has(name) || name.startsWith('_');
}

/** The 10 `actor_*` keys `call_skill` passes on (`ACTOR_KEYS`; R-CALL-06). */
export const ACTOR_KEYS = [
  'actor_name',
  'actor_emp_no',
  'actor_department',
  'actor_department_path',
  'actor_position',
  'actor_title',
  'actor_phone',
  'actor_email',
  'actor_tags',
  'actor_key',
] as const satisfies readonly FixedCtxField[];

/**
 * The exact `call_skill` context whitelist (R-CALL-06):
 * `_CALL_PASS_BASE` (14 keys) + `ACTOR_KEYS` (10) + `EXTRA_KEYS` (actor_id, actor_is_admin).
 */
export const CALL_PASS_KEYS = [
  'role_id',
  'session_id',
  'user_id',
  'team_id',
  'org_id',
  'team_role',
  'is_admin',
  'channel',
  'chat_mode',
  'workspace_dir',
  'channel_registry',
  'db_factory',
  'abort_signal',
  'allow_sql',
  ...ACTOR_KEYS,
  'actor_id',
  'actor_is_admin',
] as const;

/**
 * The 8 identity keys cleared to their typed empty values when `actor_is_admin` is true
 * (R-ADM-01). actor_name, actor_phone and actor_email are kept (R-ADM-02).
 */
export const ADMIN_CLEARED_KEYS = [
  'actor_title',
  'actor_department',
  'actor_department_path',
  'actor_position',
  'actor_tags',
  'actor_key',
  'actor_id',
  'actor_emp_no',
] as const satisfies readonly FixedCtxField[];

/**
 * Input fields that carry identity or permissions and that the model could forge
 * (R-ID-01, R-ID-02): employee number (also the legacy `emp_no`), org, role, team, session,
 * admin flags, the SQL switch and every `actor_*` key.
 */
export const IDENTITY_INPUT_KEYS: readonly string[] = Object.freeze([
  'emp_no',
  'org_id',
  'role_id',
  'team_role',
  'team_id',
  'user_id',
  'session_id',
  'is_admin',
  'allow_sql',
  ...ACTOR_KEYS,
  'actor_id',
  'actor_is_admin',
]);

/**
 * Split the top-level identity fields ({@link IDENTITY_INPUT_KEYS}) off a skill input
 * (R-ID-01). Does not mutate `input`. Built-in skills read identity from runtime_context
 * only and never from input, so the executor calls this for logging/warnings; it does not
 * rewrite a skill's input by default (a skill may own a business field named like one).
 * @returns `input` without those keys (a shallow copy) and the names removed, in input order.
 */
export function stripIdentityFromInput(input: Record<string, unknown>): { input: Record<string, unknown>; removed: string[] } {
  const out: Record<string, unknown> = {};
  const removed: string[] = [];
  for (const [k, v] of Object.entries(input)) {
    if (IDENTITY_INPUT_KEYS.includes(k)) removed.push(k);
    else if (k !== '__proto__') out[k] = v;
  }
  return { input: out, removed };
}
