/**
 * Pending replies (R-MSG-09, A-24; docs/messaging.md): "wait for a reply from
 * `<channel>:<recipient>` for skill S with state X until T", stored in
 * `skillgate.pending_replies` (migration 0011).
 *
 * - Registered in process by `runtime_context.await_reply({to, skill, state, ref?, expires_in_s})`
 *   or by the built-in `await_reply` skill through `call_skill`.
 * - {@link PendingRepliesRouter} is the turn's `PendingReplyRouter`: before any planning, the
 *   next message from that recipient is routed to S with input
 *   `{"reply": {"raw_input", "attachments"}, "state", "ref"}` and the replier's context. A
 *   message starting with `/` bypasses it; 「取消」 cancels the waiting record instead of
 *   answering it.
 * - Several open records for one person: the one whose `ref` the reply names (e.g. a ticket
 *   number, matched as a whole token), else the newest. Expired records are ignored.
 * - Consumed once, also across processes: a conditional UPDATE takes the record; the loser of
 *   a race looks again. A redelivered inbox event may take the record its first run took (the
 *   run died before it finished), so a crash does not lose the reply.
 */
import type { PendingReplyRouter, TurnContext } from '../turn/turn.ts';
import { listAttachments } from '../session/attachments.ts';
import type { Queryable } from '../store/db.ts';
import { parseRecipient } from './recipients.ts';
import { questionOf } from '../turn/reply/question.ts';

/** Longest wait a record may ask for, seconds (30 days). */
export const MAX_EXPIRES_IN_S = 30 * 24 * 3600;
/** Default wait when `expires_in_s` is absent, seconds (1 day). */
export const DEFAULT_EXPIRES_IN_S = 24 * 3600;

/** One stored record. */
export interface PendingReply {
  id: string;
  org_id: string;
  role_id: string;
  channel: string;
  account: string | null;
  recipient: string;
  skill: string;
  state: unknown;
  ref: string | null;
  created_by_skill: string;
  session_id: string;
  created_at: Date;
  expires_at: Date;
}

/** The argument of `await_reply` (docs/messaging.md). */
export interface AwaitReplyRequest {
  /** `<channel>[@<account>]:<recipient id>` (web: a contact key). */
  to: string;
  /** The continuation skill. */
  skill: string;
  /** What the continuation needs (plain JSON). */
  state?: unknown;
  /** Tells several waits for one person apart (a ticket number the reply will name). */
  ref?: string | null;
  /** Seconds until the record expires (default 1 day, at most 30 days). */
  expires_in_s?: number;
}

/** Who registers: from the registering skill's context. */
export interface AwaitReplyOrigin {
  org_id: string;
  role_id: string;
  session_id: string;
  skill: string;
}

/** `await_reply`'s answer: never throws. */
export type AwaitReplyResult = { ok: true; id: string; expires_at: string; to: string; ref: string | null } | { ok: false; error: string };

const COLUMNS = `id::text AS id, org_id, role_id, channel, account, recipient, skill, state, ref,
  created_by_skill, session_id, created_at, expires_at`;

/**
 * Validate and store one pending reply. @returns `{ok, id, expires_at}` or `{ok:false, error}`
 * (a bad argument, or the database error text); never throws.
 */
export async function registerPendingReply(
  q: Queryable,
  req: AwaitReplyRequest,
  origin: AwaitReplyOrigin,
  opts: { now?: () => Date; skillExists?: (name: string) => boolean; lang?: 'zh-CN' | 'en' } = {},
): Promise<AwaitReplyResult> {
  const en = opts.lang === 'en';
  const r = typeof req?.to === 'string' ? parseRecipient(req.to) : null;
  if (!r) return { ok: false, error: en ? 'to must look like <channel>[@<account>]:<id>' : 'to 须为 <渠道>[@<账号>]:<ID>' };
  const skill = typeof req.skill === 'string' ? req.skill.trim() : '';
  if (!skill) return { ok: false, error: en ? 'skill (the continuation skill) is missing' : '缺少 skill（收到回复后要调用的技能）' };
  if (opts.skillExists && !opts.skillExists(skill))
    return { ok: false, error: en ? `unknown skill "${skill}"` : `没有名为「${skill}」的技能` };
  const given = req.expires_in_s;
  const secs = given === undefined || given === null ? DEFAULT_EXPIRES_IN_S : Number(given);
  if (!Number.isFinite(secs) || secs <= 0 || secs > MAX_EXPIRES_IN_S) {
    return {
      ok: false,
      error: en ? `expires_in_s must be between 1 and ${MAX_EXPIRES_IN_S}` : `expires_in_s 须在 1 到 ${MAX_EXPIRES_IN_S} 秒之间`,
    };
  }
  const ref = req.ref === undefined || req.ref === null ? null : String(req.ref).trim() || null;
  let state: string;
  try {
    state = JSON.stringify(req.state ?? null);
  } catch {
    return { ok: false, error: en ? 'state must be plain JSON' : 'state 须为纯 JSON' };
  }
  const now = (opts.now ?? (() => new Date()))();
  const expires = new Date(now.getTime() + Math.round(secs * 1000));
  try {
    const { rows } = await q.query<{ id: string }>(
      `INSERT INTO skillgate.pending_replies
         (org_id, role_id, channel, account, recipient, skill, state, ref, created_by_skill, session_id, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12) RETURNING id::text AS id`,
      [
        origin.org_id,
        origin.role_id,
        r.channel,
        r.account,
        r.id,
        skill,
        state,
        ref,
        origin.skill,
        origin.session_id,
        now.toISOString(),
        expires.toISOString(),
      ],
    );
    return { ok: true, id: rows[0]!.id, expires_at: expires.toISOString(), to: r.to, ref };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Who a message comes from, for matching. */
export interface ReplySender {
  org_id: string;
  channel: string;
  account: string;
  /** Every id the sender is known by on the channel (platform ids, contact key). */
  ids: string[];
}

/** Open, unexpired records of a sender, newest first. */
export async function openPendingReplies(q: Queryable, s: ReplySender, now: Date): Promise<PendingReply[]> {
  const { rows } = await q.query<PendingReply>(
    `SELECT ${COLUMNS} FROM skillgate.pending_replies
      WHERE resolved_at IS NULL AND expires_at > $1 AND org_id = $2 AND channel = $3
        AND (account IS NULL OR account = $4) AND recipient = ANY($5::text[])
      ORDER BY created_at DESC, id DESC`,
    [now.toISOString(), s.org_id, s.channel, s.account, s.ids],
  );
  return rows;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Does `text` name `ref` as a whole token — not inside a longer ASCII word or number, so
 * `T-10` is not found in `T-100`, while Chinese text around it needs no spaces (`工单T-10修好了`)?
 */
export function namesRef(text: string, ref: string): boolean {
  return new RegExp(`(?<![A-Za-z0-9_])${escapeRe(ref)}(?![A-Za-z0-9_])`, 'i').test(text);
}

/** The record a reply is for: the newest whose ref the text names, else the newest. */
export function pickPendingReply(open: readonly PendingReply[], text: string): PendingReply | undefined {
  return open.find((p) => p.ref !== null && p.ref !== '' && namesRef(text, p.ref)) ?? open[0];
}

/**
 * Take record `id` for inbox event `eventId` once: succeeds when it is still open and
 * unexpired, or when this same event took it before. @returns false when another message won
 */
export async function resolvePendingReply(
  q: Queryable,
  id: string,
  resolution: 'consumed' | 'cancelled',
  eventId: string,
  now: Date,
): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.pending_replies
        SET resolved_at = $2, resolution = $3, resolved_by_event = $4
      WHERE id = $1::bigint AND expires_at > $2
        AND (resolved_at IS NULL OR (resolution = $3 AND resolved_by_event = $4))`,
    [id, now.toISOString(), resolution, eventId],
  );
  return res.rowCount > 0;
}

/**
 * Open records of a sender, including any this inbox event already took (a redelivery).
 * Newest first.
 */
async function candidates(q: Queryable, s: ReplySender, eventId: string, now: Date): Promise<PendingReply[]> {
  const { rows } = await q.query<PendingReply>(
    `SELECT ${COLUMNS} FROM skillgate.pending_replies
      WHERE resolved_by_event = $1 AND resolution = 'consumed' AND channel = $2 AND recipient = ANY($3::text[])`,
    [eventId, s.channel, s.ids],
  );
  return rows.length > 0 ? rows : openPendingReplies(q, s, now);
}

/** Who a turn's message comes from: every id the sender is known by on the channel. */
function senderOf(ctx: TurnContext): ReplySender {
  const { msg } = ctx;
  const ids = new Set<string>([msg.actor.id, ...Object.values(msg.actor.ids ?? {}), ctx.actor.contactKey]);
  if (msg.chat.type === 'direct') ids.add(msg.chat.id);
  return { org_id: ctx.role.org_id, channel: msg.channel, account: msg.account, ids: [...ids].filter((x) => x) };
}

/** Open again the record inbox event `eventId` took (its continuation asked a question instead). */
export async function reopenPendingReply(q: Queryable, id: string, eventId: string): Promise<void> {
  await q.query(
    `UPDATE skillgate.pending_replies SET resolved_at = NULL, resolution = NULL, resolved_by_event = NULL
      WHERE id = $1::bigint AND resolution = 'consumed' AND resolved_by_event = $2`,
    [id, eventId],
  );
}

const NOTICES = {
  'zh-CN': { cancelled: (ref: string | null) => `已取消等待中的回复${ref ? `（${ref}）` : ''}。` },
  en: { cancelled: (ref: string | null) => `The pending reply${ref ? ` (${ref})` : ''} was cancelled.` },
};

/** Options of {@link PendingRepliesRouter}. */
export interface PendingRepliesRouterOptions {
  /** The database the records live in (the gateway's). */
  db: Queryable;
  /** Clock of expiry (tests inject one). */
  now?: () => Date;
}

/**
 * The turn's pending-reply hook (src/turn/turn.ts `PendingReplyRouter`): offered every
 * message after confirmations and before the planner.
 */
export class PendingRepliesRouter implements PendingReplyRouter {
  readonly #db: Queryable;
  readonly #now: () => Date;

  constructor(opts: PendingRepliesRouterOptions) {
    this.#db = opts.db;
    this.#now = opts.now ?? (() => new Date());
  }

  /** @returns true when the message answered (or cancelled) a waiting record. */
  async route(ctx: TurnContext): Promise<boolean> {
    const { msg } = ctx;
    if (msg.kind !== 'message') return false;
    const text = ctx.text;
    if (text.startsWith('/') || text.startsWith('／')) return false;
    const cancel = ctx.input.kind === 'cancel';
    const q = this.#db;
    const sender = senderOf(ctx);
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.#now();
      const open = await candidates(q, sender, ctx.eventId, now);
      const chosen = pickPendingReply(open, cancel ? '' : text);
      if (!chosen) return false;
      if (!(await resolvePendingReply(q, chosen.id, cancel ? 'cancelled' : 'consumed', ctx.eventId, now))) continue;
      if (cancel) {
        await ctx.notice(NOTICES[ctx.lang].cancelled(chosen.ref));
        return true;
      }
      const input = {
        reply: { raw_input: msg.raw_input ?? '', attachments: await this.#replyAttachments(q, ctx) },
        state: chosen.state,
        ref: chosen.ref,
      };
      await this.#continue(ctx, chosen, input);
      return true;
    }
    return false;
  }

  /**
   * The person picked `choice.value` for a question a continuation asked: the open record of
   * that skill whose ref is the value is answered with the original reply and the value.
   * @returns false when no open record of the sender has that ref.
   */
  async answerChoice(
    ctx: TurnContext,
    choice: { tool: string; args: Record<string, unknown>; param: string; value: string },
  ): Promise<boolean> {
    const q = this.#db;
    const sender = senderOf(ctx);
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.#now();
      const open = await openPendingReplies(q, sender, now);
      const rec = open.find((p) => p.skill === choice.tool && p.ref !== null && p.ref.toLowerCase() === choice.value.toLowerCase());
      if (!rec) return false;
      if (!(await resolvePendingReply(q, rec.id, 'consumed', ctx.eventId, now))) continue;
      await this.#continue(ctx, rec, { reply: choice.args.reply ?? null, state: rec.state, ref: rec.ref, [choice.param]: choice.value });
      return true;
    }
    return false;
  }

  /**
   * Call the continuation and reply. A continuation that answers with a question (need_param
   * with options) changed nothing: its record is opened again, to be answered once the person
   * has picked an option.
   */
  async #continue(ctx: TurnContext, rec: PendingReply, input: Record<string, unknown>): Promise<void> {
    const envelope = await ctx.invoke(rec.skill, input);
    if (questionOf(envelope)) await reopenPendingReply(this.#db, rec.id, ctx.eventId);
    await ctx.reply({ text: '', invocations: [{ tool: rec.skill, args: input, envelope, via: 'pending_reply' }] });
  }

  /** The files this message brought (stored in the session by the turn), as context attachment items. */
  async #replyAttachments(
    q: Queryable,
    ctx: TurnContext,
  ): Promise<{ type: string; att_type: string; filename: string; local_path: string; url: string }[]> {
    const n = ctx.msg.attachments.length;
    if (n === 0) return [];
    const uploads = (await listAttachments(q, ctx.session.id))
      .filter((a) => a.origin === 'upload')
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return uploads
      .slice(0, n)
      .reverse()
      .map((a) => ({ type: a.type, att_type: a.type, filename: a.filename, local_path: a.localPath, url: a.url }));
  }
}
