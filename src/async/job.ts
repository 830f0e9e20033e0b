/**
 * The async job (R-ASYNC-01..07): which calls go to the
 * background and what is stored in the pg-boss job so a restarted gateway can still run it.
 */
import type { OutboundTarget } from '../channel/types.ts';
import {
  actorFromContext,
  callFromContext,
  extrasOf,
  type CallActor,
  type CallOrigin,
  type CallParties,
  type ContextExtras,
  type LineDefaults,
  type SessionToOpen,
} from '../executor/request.ts';
import type { RunSkillRequest } from '../executor/skill-call.ts';
import { normalizeAttachments } from '../runtime/attachments.ts';
import { toEpochSeconds, toTeamRole } from '../runtime/coerce.ts';
import type { Registry } from '../registry/discover.ts';

/** The pg-boss queue of async skill runs. */
export const ASYNC_QUEUE = 'skillgate-async-skill';

/** Channels that stay synchronous (R-ASYNC-04; A-56: web_admin is treated like web). */
export const SYNC_CHANNELS: ReadonlySet<string> = new Set(['web', 'web_admin']);

/** Where the background result goes: the chat the call came from. */
export interface AsyncOrigin {
  target: OutboundTarget;
  /** The platform message id the result answers (best effort; null when none). */
  reply_to?: string | null;
  /** The inbox event of the turn (recorded as the outbox origin). */
  event_id: string;
}

/**
 * The stored job: JSON only. The turn's `abortSignal`, `request` and `clock` are not kept —
 * background runs get none of them (R-ASYNC-05, R-PCTX-08/09). Written as version 2 (the typed
 * parts of the request); a version-1 row (`given` + `defaults`, written before) is still read
 * ({@link jobCallOf}).
 */
export interface AsyncJobData {
  v: 2;
  /** The registered skill name (for texts and logs). */
  skill: string;
  /** The tool name as called (`skill` or `skill__sub`). */
  tool: string;
  input: Record<string, unknown>;
  /** Who, from where, in which session (src/executor/request.ts); the session as an id to open. */
  call: { actor: CallActor; origin: CallOrigin; session: { open: SessionToOpen }; extras: ContextExtras };
  lang: 'zh-CN' | 'en';
  origin: AsyncOrigin;
}

/** A job row as it may be stored: version 2, or version 1 (`given` + `defaults`). */
export type StoredJobData =
  | AsyncJobData
  | (Omit<AsyncJobData, 'v' | 'call'> & { v: 1; given: Record<string, unknown>; defaults: LineDefaults });

/** The channel of a call. */
export function channelOf(req: Pick<RunSkillRequest, 'origin'>): string {
  return req.origin.channel;
}

/**
 * The skill name when this call is to run in the background, else null: a chat-line call of
 * a skill whose front matter says `async: true` (R-ASYNC-01), on a channel that is not web or
 * web_admin (R-ASYNC-02/04). `call_skill`, chains and schedules never come here (R-ASYNC-09).
 */
export function asyncSkillOf(registry: Registry, req: RunSkillRequest): string | null {
  if (req.line !== 'chat') return null;
  if (SYNC_CHANNELS.has(channelOf(req))) return null;
  const record = typeof req.skill === 'string' ? registry.resolveTool(req.skill)?.record : req.skill;
  if (!record || record.status === 'broken' || !record.frontmatter.async) return null;
  return record.name;
}

/** The JSON-safe job of a call (a deep copy; functions and signals dropped). */
export function jobDataOf(req: RunSkillRequest, skill: string, origin: AsyncOrigin): AsyncJobData {
  const json = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T;
  const session: SessionToOpen =
    'opened' in req.session ? { id: req.session.opened.id, workspaceDir: req.session.opened.workspaceDir } : req.session.open;
  return {
    v: 2,
    skill,
    tool: typeof req.skill === 'string' ? req.skill : req.skill.name,
    input: json(req.input ?? {}),
    call: json({ actor: req.actor, origin: req.origin, session: { open: session }, extras: req.extras ?? {} }),
    lang: req.lang === 'en' ? 'en' : 'zh-CN',
    origin: json({ target: origin.target, reply_to: origin.reply_to ?? null, event_id: origin.event_id }),
  };
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * The one parser of a stored job's call (a row is JSON from the database, read once here):
 * version 2 field by field with the context's coercions, version 1 through
 * {@link callFromContext} exactly as the call of that time read `given` over `defaults`.
 */
export function jobCallOf(data: StoredJobData): CallParties {
  if (data.v !== 2) return callFromContext(record(data.given), data.defaults);
  const call = record(data.call);
  const a = record(call.actor);
  const o = record(call.origin);
  const open = record(record(call.session).open);
  const fields = record(a.fields);
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const bool = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);
  const actor = actorFromContext({ ...fields, user_id: str(a.userId), team_id: str(a.teamId) }, {});
  const attachments = normalizeAttachments(o.attachments);
  const triggeredAt = toEpochSeconds(o.triggeredAt);
  const sandbox = record(o.sandbox);
  const workspaceDir = str(open.workspaceDir);
  const ownerKey = str(open.ownerKey);
  return {
    actor: { ...actor, contactKey: str(a.contactKey) },
    origin: {
      roleId: str(o.roleId),
      orgId: str(o.orgId),
      channel: str(o.channel),
      rawInput: str(o.rawInput),
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(triggeredAt !== undefined ? { triggeredAt } : {}),
      chatMode: bool(o.chatMode, true),
      allowSql: bool(o.allowSql, true),
      isAdmin: bool(o.isAdmin, false),
      ...(typeof o.teamRole === 'string' && o.teamRole ? { teamRole: toTeamRole(o.teamRole) } : {}),
      ...(typeof o.sandbox === 'object' && o.sandbox !== null && !Array.isArray(o.sandbox) ? { sandbox } : {}),
    },
    session: {
      open: { id: str(open.id), ...(workspaceDir ? { workspaceDir } : {}), ...(ownerKey ? { ownerKey } : {}) },
    },
    extras: extrasOf(record(call.extras)),
  };
}
