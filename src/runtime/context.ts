/**
 * The runtime_context builder (README.md "The skillgate command"): one context per skill
 * call, in three sections — fixed (always all 17 keys, typed), platform-injected, config —
 * plus the config's top-level flat copies and the platform-internal `_` keys.
 *
 * Requirement ids: R-CTX-01..11, R-PCTX-01..12, R-ADM-01..03, R-ORG-01, R-CFG-02, A-45,
 *
 *
 * This module also re-exports the context helpers other modules use, so `runtime/context.ts`
 * is the one import: key vocabularies, `cfg`, `pseudoOrgId`, department-path helpers,
 * identity stripping and the call_skill child context.
 */
import { toBool, toStr, toTeamRole } from './coerce.ts';
import { configSection, type SkillConfigValues } from './config-section.ts';
import { coerceFixed } from './fixed.ts';
import type { CallSkill, ChannelRegistry, DbFactory, RuntimeContext, TeamRole } from './types.ts';
import type { Queryable } from '../store/db.ts';

export { emptyFixedContext, applyAdminProxyFill, coerceFixed } from './fixed.ts';
export { configSection, type SkillConfigValues, type ConfigSection } from './config-section.ts';
export {
  isFixedOrPlatformKey,
  stripIdentityFromInput,
  IDENTITY_INPUT_KEYS,
  RESERVED_CTX_KEYS,
  PLATFORM_CTX_KEYS,
  CALL_PASS_KEYS,
  ACTOR_KEYS,
  ADMIN_CLEARED_KEYS,
} from './keys.ts';
export { cfg, pseudoOrgId } from './cfg.ts';
export { departmentPath, deptPathContains, currentDepartment, departmentSegments, MAX_DEPARTMENT_DEPTH } from './department.ts';
export { callSkillChildContext } from './call-context.ts';
export { normalizeAttachment, normalizeAttachments } from './attachments.ts';

/**
 * The line's defaults for the platform keys (README.md "The skillgate command" lists those of `skill run`).
 * Every one can be overridden by `given`.
 */
export interface ContextDefaults {
  role_id: string;
  /** Raw org id; may be "" (R-ORG-01). */
  org_id: string;
  session_id: string;
  /** Absolute path of the session workspace (R-PCTX-06). */
  workspace_dir: string;
  /** The channel name (R-CTX-09), e.g. `cli`, `web`, `telegram`. */
  channel: string;
  chat_mode: boolean;
  allow_sql: boolean;
  /** Anything but owner/admin becomes member (R-PCTX-02). */
  team_role: TeamRole | string;
  is_admin: boolean;
  /** Default "" (R-PCTX-01). */
  user_id?: string;
  /** Default "" (R-PCTX-01). */
  team_id?: string;
}

/** The in-process-only objects (R-PCTX-07, R-PCTX-08, R-PCTX-11); never serialised. */
export interface InProcessParts {
  /** The legacy pre-injected session (null when none). */
  db?: Queryable | null;
  db_factory?: DbFactory | null;
  /** Present only when given (R-PCTX-11: a function in process, absent elsewhere). */
  call_skill?: CallSkill;
  abort_signal?: AbortSignal | null;
  /** Messaging services of the gateway ; set as key `messaging` only when given. */
  messaging?: unknown;
  /** `await_reply(req)` (docs/messaging.md); set only when given. */
  await_reply?: (req: never) => Promise<unknown>;
  /** `report_progress(note)`: a progress line for the person waiting (docs/skill-authoring.md); set only when given. */
  report_progress?: (note: string) => void;
  /**
   * What create_skill / edit_skill need (`src/lifecycle/authoring.ts`
   * AuthoringServices); set as key `lifecycle` only when given.
   */
  lifecycle?: unknown;
}

/** Arguments of {@link buildRuntimeContext}. */
export interface BuildContextArgs {
  /**
   * What the channel / `--context` supplied: fixed keys, platform keys, `_meta` and other
   * `_` keys. Other names (including `emp_no`, `skill_configs`, `skill_args` and any flat
   * parameter) are ignored: parameters come from the store only (README.md "The skillgate command").
   */
  given?: Record<string, unknown>;
  defaults: ContextDefaults;
  /** The skill's stored parameters, already decrypted (R-CFG-01/02). */
  config?: SkillConfigValues;
  inProcess?: InProcessParts;
  /** The chat line's registry; null elsewhere (R-PCTX-09). */
  channelRegistry?: ChannelRegistry | null;
  /** The inbound request object on the chat line; null elsewhere (R-PCTX-09). */
  request?: unknown;
  /** `skill_config.sandbox`; else a plain-object `given.skill_config.sandbox`. */
  sandbox?: Record<string, unknown>;
  /**
   * Clock for the trigger time when `given` has none (default `() => new Date()`); `null`
   * leaves `triggered_at` 0 / `triggered_at_str` "".
   */
  clock?: (() => Date) | null;
}

type StringPlatformKey = 'org_id' | 'role_id' | 'session_id' | 'user_id' | 'team_id' | 'workspace_dir';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Build one runtime_context.
 *
 * - Fixed section (R-CTX-02/03): all 17 keys, typed; wrong-typed values replaced per the
 *   rules of coerce.ts (numbers → strings; "true"/"false" and 1/0 → booleans; a tag string
 *   split on commas); the trigger time from `given` or the clock, `triggered_at_str` derived
 *   from it (R-CTX-10); attachments normalised (R-CTX-06); no `emp_no` ever (R-CTX-11).
 * - Admin proxy-fill (R-ADM-01..03) happens while the fixed section is built, before any
 *   other part of the context exists; `is_admin` is independent of it.
 * - Platform section (R-PCTX): a string/number in `given` wins over the default, even ""
 *   (org_id is injected raw, R-ORG-01); booleans per toBool with the default as fallback;
 *   team_role ∈ owner/admin/member else member; `skill_config: {sandbox?}` nested;
 *   db / db_factory / abort_signal from `inProcess` (null when absent), call_skill only when
 *   given; channel_registry / request null unless given.
 * - Config section (R-CFG-02, A-45): see {@link configSection}; the flat copies follow the
 *   platform keys and never replace one.
 * - `_` keys of `given` are kept (in-process only; toSubprocessContext drops them).
 *
 * @returns a fresh object; `given` is not mutated. Never throws on odd input values.
 */
export function buildRuntimeContext(args: BuildContextArgs): RuntimeContext {
  const given = args.given ?? {};
  const d = args.defaults;
  const fixed = coerceFixed(given, { channel: d.channel, clock: args.clock });

  const str = (k: StringPlatformKey): string => {
    const v = Object.hasOwn(given, k) ? given[k] : undefined;
    return typeof v === 'string' || typeof v === 'number' ? toStr(v) : toStr(d[k] ?? '');
  };
  const givenSandbox = isPlainObject(given.skill_config) ? given.skill_config.sandbox : undefined;
  const sandbox = args.sandbox ?? (isPlainObject(givenSandbox) ? givenSandbox : undefined);
  const cfgSection = configSection(args.config);

  // Built by assignment in this order: an object literal spreading `fixed` and then naming
  // 20 more keys cost V8 over 100 µs per call (measured with test/bench).
  const ctx: Record<string, unknown> = Object.assign({} as Record<string, unknown>, fixed);
  ctx.org_id = str('org_id');
  ctx.role_id = str('role_id');
  ctx.session_id = str('session_id');
  ctx.user_id = str('user_id');
  ctx.team_id = str('team_id');
  ctx.team_role = toTeamRole(Object.hasOwn(given, 'team_role') ? given.team_role : d.team_role);
  ctx.is_admin = toBool(given.is_admin, toBool(d.is_admin, false));
  ctx.chat_mode = toBool(given.chat_mode, toBool(d.chat_mode, true));
  ctx.allow_sql = toBool(given.allow_sql, toBool(d.allow_sql, true));
  ctx.workspace_dir = str('workspace_dir');
  ctx.skill_config = sandbox ? { sandbox } : {};
  ctx.db = args.inProcess?.db ?? null;
  ctx.db_factory = args.inProcess?.db_factory ?? null;
  ctx.abort_signal = args.inProcess?.abort_signal ?? null;
  ctx.channel_registry = args.channelRegistry ?? null;
  ctx.request = args.request ?? null;
  ctx.skill_configs = cfgSection.skill_configs;
  ctx.skill_args = cfgSection.skill_args;

  if (args.inProcess?.call_skill) ctx.call_skill = args.inProcess.call_skill;
  if (args.inProcess?.messaging) ctx.messaging = args.inProcess.messaging;
  if (args.inProcess?.await_reply) ctx.await_reply = args.inProcess.await_reply;
  if (args.inProcess?.lifecycle) ctx.lifecycle = args.inProcess.lifecycle;
  if (args.inProcess?.report_progress) ctx.report_progress = args.inProcess.report_progress;
  for (const [k, v] of Object.entries(cfgSection.flat)) if (!Object.hasOwn(ctx, k)) ctx[k] = v;
  for (const [k, v] of Object.entries(given)) {
    if (k.startsWith('_') && k !== '__proto__') ctx[k] = v;
  }
  return ctx as RuntimeContext;
}
