/**
 * The context a `call_skill` callee receives: exactly the whitelist from the
 * caller, the other fixed keys empty, the callee's own stored parameters, fresh in-process
 * objects — and nothing else of the caller's.
 *
 * Requirement ids: R-CALL-05..09, R-CALL-13, R-ADM-03, A-21.
 */
import { toBool, toStr, toTeamRole } from './coerce.ts';
import { configSection, type SkillConfigValues } from './config-section.ts';
import { coerceFixed } from './fixed.ts';
import { ACTOR_KEYS } from './keys.ts';
import type { CallSkill, DbFactory, RuntimeContext } from './types.ts';
import type { Queryable } from '../store/db.ts';

/** The callee's fresh in-process objects. */
export interface ChildInProcessParts {
  /** A new independent session for the callee (R-CALL-09); null when none. */
  db?: Queryable | null;
  /** Overrides the caller's db_factory when given. */
  db_factory?: DbFactory | null;
  /** The callee's call_skill (depth + 1, R-CALL-11); omitted when absent. */
  call_skill?: CallSkill;
  /** Overrides the caller's abort_signal when given. */
  abort_signal?: AbortSignal | null;
}

/**
 * Build the callee's context from the caller's `parent`.
 *
 * The key set is exactly:
 * - the whitelist `CALL_PASS_KEYS` (R-CALL-06) copied from the caller: role_id, session_id,
 *   user_id, team_id, org_id, team_role, is_admin, channel, chat_mode, workspace_dir,
 *   channel_registry, db_factory, abort_signal, allow_sql, the 10 actor_* keys, actor_id,
 *   actor_is_admin — re-typed, and with the admin proxy-fill re-applied (R-ADM-03);
 * - raw_input, attachments, triggered_at, triggered_at_str at their EMPTY values (A-21: the
 *   fixed keys stay present, nothing of the caller's turn leaks);
 * - `skill_configs` / `skill_args` / flat copies of the callee's own parameters, re-read
 *   from the store by the caller of this function (R-CALL-05), laid out as in
 *   configSection;
 * - `db` (from `inProcess`, else null), `call_skill` (when given), `request: null` and
 *   `skill_config: {}` — platform-shaped empties, nothing from the caller.
 *
 * Not passed (R-CALL-07): the caller's skill_configs / skill_args / flat copies, `emp_no` or
 * any other key, `_` keys, the caller's db / call_skill / request / skill_config.
 * `allow_sql` is true only when the caller's is exactly `true`, so a false never reopens
 * (R-CALL-08).
 */
export function callSkillChildContext(
  parent: Record<string, unknown>,
  calleeConfig: SkillConfigValues | undefined,
  inProcess: ChildInProcessParts = {},
): RuntimeContext {
  const actorSource: Record<string, unknown> = {
    channel: parent.channel,
    actor_id: parent.actor_id,
    actor_is_admin: parent.actor_is_admin,
  };
  for (const k of ACTOR_KEYS) actorSource[k] = parent[k];
  // clock: null → raw_input, attachments and the trigger time stay empty;
  // coerceFixed re-applies the admin proxy-fill (R-ADM-03).
  const fixed = coerceFixed(actorSource, { clock: null });
  const cfgSection = configSection(calleeConfig);
  const ctx: Record<string, unknown> = {
    ...fixed,
    org_id: toStr(parent.org_id),
    role_id: toStr(parent.role_id),
    session_id: toStr(parent.session_id),
    user_id: toStr(parent.user_id),
    team_id: toStr(parent.team_id),
    team_role: toTeamRole(parent.team_role),
    is_admin: toBool(parent.is_admin, false),
    chat_mode: toBool(parent.chat_mode, true),
    allow_sql: parent.allow_sql === true,
    workspace_dir: toStr(parent.workspace_dir),
    skill_config: {},
    db: inProcess.db ?? null,
    db_factory: inProcess.db_factory !== undefined ? inProcess.db_factory : (parent.db_factory ?? null),
    abort_signal: inProcess.abort_signal !== undefined ? inProcess.abort_signal : (parent.abort_signal ?? null),
    channel_registry: parent.channel_registry ?? null,
    request: null,
    skill_configs: cfgSection.skill_configs,
    skill_args: cfgSection.skill_args,
  };
  if (inProcess.call_skill) ctx.call_skill = inProcess.call_skill;
  // The gateway's messaging services follow the call, so a callee can notify.
  if (parent.messaging) ctx.messaging = parent.messaging;
  // So do the authoring services (create_skill / edit_skill); the role stays the caller's.
  if (parent.lifecycle) ctx.lifecycle = parent.lifecycle;
  for (const [k, v] of Object.entries(cfgSection.flat)) if (!Object.hasOwn(ctx, k)) ctx[k] = v;
  return ctx as RuntimeContext;
}
