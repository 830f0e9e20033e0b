/**
 * The request of one top-level skill call (docs/pipeline.md "Skill call"): typed once by its
 * caller — the chat turn from its resolved turn, the loose boundaries (`skill run --context`,
 * `chain run --context`, a persisted async job) through {@link callFromContext} — and read as
 * it is by the executor, which re-parses nothing.
 *
 * The values are the ones the runtime context shows (docs/requirements.md#R-PCTX-01 ..
 * #R-PCTX-12, the coercion rules of src/runtime/coerce.ts applied at the boundary).
 */
import type { SkillRecord } from '../registry/types.ts';
import { normalizeAttachments } from '../runtime/attachments.ts';
import { parseTriggeredAtStr, toBool, toEpochSeconds, toStr, toStrList, toTeamRole } from '../runtime/coerce.ts';
import { applyAdminProxyFill, emptyFixedContext } from '../runtime/fixed.ts';
import { ACTOR_KEYS } from '../runtime/keys.ts';
import type { ContextDefaults } from '../runtime/context.ts';
import type { AttachmentItem, FixedContext, TeamRole } from '../runtime/types.ts';
import type { SessionRecord } from '../session/sessions.ts';

/**
 * Which line a call comes from. `chat` and `cli` are the dialog layer (post-processing runs,
 * the user's own text may overwrite a prompt field); the others are delegated.
 */
export type RunLine = 'chat' | 'cli' | 'chain' | 'schedule' | 'async';

/** The actor_* keys of the fixed context (R-CTX-07/08), `actor_is_admin` included (R-ADM). */
export type ActorContextFields = Pick<
  FixedContext,
  | 'actor_name'
  | 'actor_emp_no'
  | 'actor_department'
  | 'actor_department_path'
  | 'actor_position'
  | 'actor_title'
  | 'actor_phone'
  | 'actor_email'
  | 'actor_tags'
  | 'actor_key'
  | 'actor_id'
  | 'actor_is_admin'
>;

/** Who the call runs for, as the context shows it. */
export interface CallActor {
  /** The actor_* keys; the admin proxy-fill already applied (R-ADM-01..03). */
  readonly fields: Readonly<ActorContextFields>;
  /** `user_id` (R-PCTX-01): the contact key, or the platform id of an unknown sender; "" when none. */
  readonly userId: string;
  /** `team_id` (R-PCTX-01); "" when none. */
  readonly teamId: string;
  /**
   * The sender's key in the directory (`<channel>:<id>` for an unknown sender), which
   * confirmations are bound to (src/turn/confirm-tokens.ts); "" off the chat line.
   */
  readonly contactKey: string;
}

/** Where the call comes from and under which switches it runs (R-CTX-04/06/09/10, R-PCTX). */
export interface CallOrigin {
  /** The role the call runs as: its skills, stored parameters and `role_id`. */
  readonly roleId: string;
  /** `org_id`, raw (may be "", R-ORG-01). */
  readonly orgId: string;
  /** The channel name (R-CTX-09). */
  readonly channel: string;
  /** The user's text of the turn, byte for byte (R-CTX-04); "" when none. */
  readonly rawInput: string;
  /** Attachments the caller names, after the session's own (R-CTX-06). */
  readonly attachments?: readonly AttachmentItem[];
  /** Trigger time, Unix seconds (R-CTX-10); absent: the call's clock. */
  readonly triggeredAt?: number;
  readonly chatMode: boolean;
  readonly allowSql: boolean;
  /** `is_admin`: an admin session (R-PCTX-03; not actor_is_admin). */
  readonly isAdmin: boolean;
  /**
   * `team_role` when the caller knows it (a resolved sender, `--context`); absent: `member`,
   * and inside a chain the directory's (docs/requirements.md#R-CHAIN-41).
   */
  readonly teamRole?: TeamRole;
  /** `skill_config.sandbox` (R-PCTX-10, A-50). */
  readonly sandbox?: Readonly<Record<string, unknown>>;
}

/** A session the call opens (once) from this description. */
export interface SessionToOpen {
  readonly id: string;
  /** Absent: derived under the data directory from role and id (R-PCTX-06). */
  readonly workspaceDir?: string;
  /** Owner of a new session row; absent: `actor_key`, else `<channel>:<user_id>`, else `<channel>:anonymous`. */
  readonly ownerKey?: string;
}

/** The session of a call: opened by the caller (the chat turn), or described and opened by the call. */
export type CallSession = { readonly opened: Pick<SessionRecord, 'id' | 'workspaceDir'> } | { readonly open: SessionToOpen };

/**
 * The platform-internal `_` keys a caller hands to the skill (R-PCTX-12: in-process only,
 * never passed to subprocesses): the only free keys of the context contract.
 */
export type ContextExtras = Readonly<Record<`_${string}`, unknown>>;

/** One top-level skill call. */
export interface RunSkillRequest {
  /** A registered skill name, a fan-out tool name `<skill>__<sub>`, or a loaded record. */
  readonly skill: string | SkillRecord;
  /** The call's arguments (what the model or the user filled). */
  readonly input: Record<string, unknown>;
  readonly actor: CallActor;
  readonly origin: CallOrigin;
  readonly session: CallSession;
  /** `_` keys, validated where they entered ({@link extrasOf}). */
  readonly extras?: ContextExtras;
  readonly line: RunLine;
  /** The user pressed stop. */
  readonly abortSignal?: AbortSignal;
  /** The inbound request object on the chat line (R-PCTX-09); ignored on other lines. */
  readonly request?: unknown;
  /** Language of platform texts (default zh-CN). */
  readonly lang?: 'zh-CN' | 'en';
  /** Progress notes of the running call (MCP progress notifications): the chat's progress line. */
  readonly onProgress?: (note: string) => void;
  /** Clock for the trigger time (tests). */
  readonly clock?: () => Date;
  /**
   * The background cap of an `async: true` skill, seconds (A-48; the async runner passes
   * SKILL_WALL_HARDCAP × its factor). Ignored for other skills; default see `wallFor`.
   */
  readonly backgroundWallSec?: number;
  /**
   * The wall the caller decided, seconds; replaces `wallFor`. Chain steps (D-06,
   * R-CHAIN-05/06): the skill's own wall, else CHAIN_STEP_WALL_SEC, cut by what is left of
   * the chain wall — so an undeclared skill is not held to SKILL_WALL_DEFAULT inside a chain.
   */
  readonly wallSec?: number;
}

/** The parts of a request that say who, from where, in which session. */
export type CallParties = Pick<RunSkillRequest, 'actor' | 'origin' | 'session' | 'extras'>;

/** An actor nobody is (a schedule, a chain test without an employee number). */
export const NO_ACTOR: CallActor = Object.freeze({
  fields: Object.freeze(emptyActorFields()),
  userId: '',
  teamId: '',
  contactKey: '',
});

/** The actor_* keys of an empty fixed context (src/runtime/fixed.ts), `actor_is_admin` false. */
function emptyActorFields(): ActorContextFields {
  const empty = emptyFixedContext();
  const fields = Object.fromEntries([...ACTOR_KEYS, 'actor_id' as const, 'actor_is_admin' as const].map((k) => [k, empty[k]]));
  return fields as unknown as ActorContextFields;
}

/** The session id of a request. */
export function sessionIdOf(session: CallSession): string {
  return 'opened' in session ? session.opened.id : session.open.id;
}

/** The owner key of a session the call opens (see {@link SessionToOpen.ownerKey}). */
export function ownerKeyOf(actor: CallActor, channel: string): string {
  return actor.fields.actor_key || (actor.userId ? `${channel}:${actor.userId}` : `${channel}:anonymous`);
}

/**
 * The line's defaults of a loose boundary (what `skill run` / `chain run` / an old async row
 * fall back to when `--context` does not name a key).
 */
export type LineDefaults = Omit<ContextDefaults, 'workspace_dir'> & {
  /** Absent: derived from the session (R-PCTX-06). */
  workspace_dir?: string;
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `_` keys of a loose map (R-PCTX-12), as a frozen copy; every other key is left out. */
export function extrasOf(given: Readonly<Record<string, unknown>>): ContextExtras {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(given)) if (k.startsWith('_') && k !== '__proto__') out[k] = given[k];
  return Object.freeze(out);
}

/** The actor of a loose map: each actor_* key coerced (src/runtime/coerce.ts), proxy-fill applied. */
export function actorFromContext(given: Readonly<Record<string, unknown>>, d: Pick<LineDefaults, 'user_id' | 'team_id'>): CallActor {
  const str = (k: 'user_id' | 'team_id'): string => {
    const v = Object.hasOwn(given, k) ? given[k] : undefined;
    return typeof v === 'string' || typeof v === 'number' ? toStr(v) : toStr(d[k] ?? '');
  };
  const fields = applyAdminProxyFill({
    actor_name: toStr(given.actor_name),
    actor_emp_no: toStr(given.actor_emp_no),
    actor_department: toStr(given.actor_department),
    actor_department_path: toStr(given.actor_department_path),
    actor_position: toStr(given.actor_position),
    actor_title: toStr(given.actor_title),
    actor_phone: toStr(given.actor_phone),
    actor_email: toStr(given.actor_email),
    actor_tags: toStrList(given.actor_tags),
    actor_key: toStr(given.actor_key),
    actor_id: toStr(given.actor_id),
    actor_is_admin: toBool(given.actor_is_admin, false),
  });
  return { fields, userId: str('user_id'), teamId: str('team_id'), contactKey: toStr(d.user_id ?? '') };
}

/**
 * The one parser of a loose context map — `skill run --context` (README.md "The skillgate
 * command"), `chain run --context`, an async job persisted before the typed request — into
 * the typed parts of a request. Precedence: a key of `given` wins over the line's default.
 *
 * - role and channel: a non-empty string; org: a string, even "" (R-ORG-01); the session id
 *   and workspace: a non-empty string (the session is opened once from them);
 * - actor_*, user_id, team_id, raw_input, attachments, trigger time, chat_mode, allow_sql,
 *   is_admin: coerced as the runtime context coerces them (src/runtime/coerce.ts);
 * - team_role: told by a non-empty string (owner/admin/member, anything else member);
 * - `skill_config.sandbox` when a plain object; `_` keys as {@link extrasOf}; other keys are
 *   not part of the context (parameters come from the store only) and are dropped.
 *
 * Never throws on odd values.
 */
export function callFromContext(given: Readonly<Record<string, unknown>>, d: LineDefaults): CallParties {
  const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const roleId = nonEmpty(given.role_id) ?? d.role_id;
  const channel = nonEmpty(given.channel) ?? d.channel;
  const sandbox = isPlainObject(given.skill_config) ? given.skill_config.sandbox : undefined;
  let triggeredAt = toEpochSeconds(given.triggered_at);
  if (triggeredAt === undefined && typeof given.triggered_at_str === 'string') triggeredAt = parseTriggeredAtStr(given.triggered_at_str);
  const told = nonEmpty(given.team_role);
  const lineRole = toTeamRole(d.team_role);
  const teamRole =
    told !== undefined ? toTeamRole(told) : Object.hasOwn(given, 'team_role') || lineRole === 'member' ? undefined : lineRole;
  const attachments = normalizeAttachments(given.attachments);
  const actor = actorFromContext(given, d);
  const workspaceDir = nonEmpty(given.workspace_dir) ?? d.workspace_dir;
  const rawKey = nonEmpty(given.actor_key);
  const rawUser = nonEmpty(given.user_id);
  const origin: CallOrigin = {
    roleId,
    orgId: typeof given.org_id === 'string' ? given.org_id : d.org_id,
    channel,
    rawInput: toStr(given.raw_input),
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(triggeredAt !== undefined ? { triggeredAt } : {}),
    chatMode: toBool(given.chat_mode, toBool(d.chat_mode, true)),
    allowSql: toBool(given.allow_sql, toBool(d.allow_sql, true)),
    isAdmin: toBool(given.is_admin, toBool(d.is_admin, false)),
    ...(teamRole !== undefined ? { teamRole } : {}),
    ...(isPlainObject(sandbox) ? { sandbox } : {}),
  };
  return {
    actor,
    origin,
    session: {
      open: {
        id: nonEmpty(given.session_id) ?? d.session_id,
        ...(workspaceDir !== undefined ? { workspaceDir } : {}),
        // As the key was given, before the admin proxy-fill (a new session's owner).
        ownerKey: rawKey ?? (rawUser ? `${channel}:${rawUser}` : `${channel}:anonymous`),
      },
    },
    extras: extrasOf(given),
  };
}

/** The actor of a resolved sender: its `actorFieldsFor` (src/identity/resolve.ts) and contact key. */
export function callActorOf(g: Readonly<ActorContextFields & { user_id: string; team_id: string }>, contactKey: string): CallActor {
  return {
    fields: {
      actor_name: g.actor_name,
      actor_emp_no: g.actor_emp_no,
      actor_department: g.actor_department,
      actor_department_path: g.actor_department_path,
      actor_position: g.actor_position,
      actor_title: g.actor_title,
      actor_phone: g.actor_phone,
      actor_email: g.actor_email,
      actor_tags: g.actor_tags,
      actor_key: g.actor_key,
      actor_id: g.actor_id,
      actor_is_admin: g.actor_is_admin,
    },
    userId: g.user_id,
    teamId: g.team_id,
    contactKey,
  };
}

/**
 * The origin of a call on the chat line (a chat turn, a call over /mcp): the role's org, the
 * channel, chat mode on, SQL allowed, not an admin session, the sender's team role.
 */
export function chatLineOrigin(a: {
  roleId: string;
  orgId: string;
  channel: string;
  rawInput: string;
  teamRole: TeamRole;
  triggeredAt?: number;
}): CallOrigin {
  return {
    roleId: a.roleId,
    orgId: a.orgId,
    channel: a.channel,
    rawInput: a.rawInput,
    ...(a.triggeredAt !== undefined ? { triggeredAt: a.triggeredAt } : {}),
    chatMode: true,
    allowSql: true,
    isAdmin: false,
    teamRole: a.teamRole,
  };
}

/**
 * The typed parts as the input of `buildRuntimeContext` (src/runtime/context.ts). Every value
 * is already of its type, so the builder's coercion keeps it as it is: the context a skill
 * sees is the one the loose map of the same values gave.
 */
export function contextInputOf(
  p: Pick<RunSkillRequest, 'actor' | 'origin'> & { readonly extras?: ContextExtras },
  where: { sessionId: string; workspaceDir: string; attachments: readonly AttachmentItem[] },
): { given: Record<string, unknown>; defaults: Required<LineDefaults>; sandbox?: Record<string, unknown> } {
  const { actor, origin } = p;
  const given: Record<string, unknown> = {
    ...actor.fields,
    raw_input: origin.rawInput,
    attachments: where.attachments,
    channel: origin.channel,
    ...p.extras,
  };
  if (origin.triggeredAt !== undefined) given.triggered_at = origin.triggeredAt;
  return {
    given,
    defaults: {
      role_id: origin.roleId,
      org_id: origin.orgId,
      session_id: where.sessionId,
      channel: origin.channel,
      user_id: actor.userId,
      team_id: actor.teamId,
      team_role: origin.teamRole ?? 'member',
      is_admin: origin.isAdmin,
      chat_mode: origin.chatMode,
      allow_sql: origin.allowSql,
      workspace_dir: where.workspaceDir,
    },
    ...(origin.sandbox ? { sandbox: { ...origin.sandbox } } : {}),
  };
}
