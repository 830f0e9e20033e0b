/**
 * SQL of the outbox (table `skillgate.outbox_messages`, migration 0006). One statement per
 * function; no transaction is held across a send. Times are ms from the outbox clock.
 */
import { storableCopy, storableText } from '../channel/storable.ts';
import type { OutboundTarget } from '../channel/types.ts';
import type { Queryable } from '../store/db.ts';
import { processSecrets } from '../log/secret-values.ts';
import type { CompletesEvent, OutboxItem, OutboxRecord } from './types.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** `<channel>:<account>:<chat_id>[:<thread_id>]`, the same key as the inbox's `chatKey`. */
export function targetChatKey(t: Pick<OutboundTarget, 'channel' | 'account' | 'chat_id' | 'thread_id'>): string {
  const base = `${t.channel}:${t.account}:${t.chat_id}`;
  return t.thread_id ? `${base}:${t.thread_id}` : base;
}

const COLUMNS = `id::text AS id, idempotency_key, channel, account, chat_key, target, message, status,
  attempts, next_attempt_at, last_error, error_code, platform_message_ids, origin, created_at, sent_at, parts_done`;

/** A lease to take in the INSERT itself (see {@link insertMessage}). */
export interface InsertClaim {
  owner: string;
  leaseMs: number;
}

/**
 * Insert one message; with an idempotency key already stored, return that row's id instead.
 * The lookup is a second statement so it sees a row a concurrent transaction committed while
 * the INSERT waited on it.
 *
 * With `claim`, the new row is taken for `claim.owner` in the same statement (`sending`, lease,
 * attempt 1) when it is the head of its chat (no earlier `queued`/`sending` message visible),
 * and returned as `claimed` so the caller delivers it after commit without a claim statement.
 * Two processes taking one chat's head at once cannot both win (migration 0030); the loser's
 * row is stored `queued`. With `notifyChannel`, a `queued` row is announced in the statement.
 */
export async function insertMessage(
  q: Queryable,
  item: OutboxItem,
  nowMs: number,
  claim?: InsertClaim,
  notifyChannel?: string,
  completes?: CompletesEvent,
): Promise<{ id: string; claimed: OutboxRecord | null; completed: boolean }> {
  try {
    return await insertMessageOnce(q, item, nowMs, claim, notifyChannel, completes);
  } catch (err) {
    // Another process took the chat's head at the same moment (migration 0030): store it queued.
    if (!claim || !isChatSending(err)) throw err;
    return insertMessageOnce(q, item, nowMs, undefined, notifyChannel, completes);
  }
}

/**
 * True for the error of a statement that would have left two messages of one chat `sending`
 * (constraint `outbox_one_sending_per_chat`, migration 0030). The statement changed nothing.
 */
export function isChatSending(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '23P01';
}

async function insertMessageOnce(
  q: Queryable,
  item: OutboxItem,
  nowMs: number,
  claim?: InsertClaim,
  notifyChannel?: string,
  completes?: CompletesEvent,
): Promise<{ id: string; claimed: OutboxRecord | null; completed: boolean }> {
  // NUL / lone surrogates (a hostile event's chat id, a skill echoing one) cannot be stored in jsonb/text.
  const t = storableCopy(item.target);
  const key = item.idempotency_key === undefined || item.idempotency_key === null ? null : storableText(item.idempotency_key);
  const chatKey = targetChatKey(t);
  const insert = `INSERT INTO skillgate.outbox_messages
       (idempotency_key, channel, account, chat_key, target, message, origin, next_attempt_at, created_at,
        status, lease_owner, lease_until, attempts)
     SELECT $1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::timestamptz, $8::timestamptz,
            CASE WHEN h.head THEN 'sending' ELSE 'queued' END,
            CASE WHEN h.head THEN $9 END,
            CASE WHEN h.head THEN $10::timestamptz END,
            CASE WHEN h.head THEN 1 ELSE 0 END
       FROM (SELECT $9::text IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM skillgate.outbox_messages p
                WHERE p.chat_key = $4 AND p.status IN ('queued', 'sending')) AS head) h
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING ${COLUMNS},
               CASE WHEN status = 'queued' AND $11::text IS NOT NULL THEN pg_notify($11::text, id::text) END AS notified`;
  // With `completes`: the done mark of the inbox event this message ends, in the same statement
  // (as src/inbox/store.ts markDone); one row comes back also when the INSERT conflicted.
  const sql = completes
    ? `WITH done AS (
         UPDATE skillgate.inbox_events
            SET status = 'done', processed_at = $8::timestamptz, lease_owner = NULL, lease_until = NULL, error = NULL
          WHERE id = $12::bigint AND lease_owner = $13 AND status = 'processing'
          RETURNING id),
       ins AS (${insert})
       SELECT ins.*, EXISTS (SELECT 1 FROM done) AS completed FROM (SELECT 1) one LEFT JOIN ins ON true`
    : insert;
  const { rows } = await q.query<OutboxRecord & { notified?: unknown; completed?: boolean }>(sql, [
    key,
    t.channel,
    t.account,
    chatKey,
    JSON.stringify(t),
    JSON.stringify(storableCopy(processSecrets().scrubValues(item.message))), // a skill echoing a secret
    item.origin ? JSON.stringify(storableCopy(item.origin)) : null,
    iso(nowMs),
    claim?.owner ?? null,
    claim ? iso(nowMs + claim.leaseMs) : null,
    notifyChannel ?? null,
    ...(completes ? [completes.inboxEventId, completes.leaseOwner] : []),
  ]);
  const completed = rows[0]?.completed === true;
  if (rows[0]?.id) {
    const { notified: _notified, completed: _completed, ...row } = rows[0];
    return { id: row.id, claimed: row.status === 'sending' ? row : null, completed };
  }
  const existing = await q.query<{ id: string }>(
    'SELECT id::text AS id FROM skillgate.outbox_messages WHERE idempotency_key = $1',
    [key],
  );
  if (!existing.rows[0]) throw new Error(`outbox: idempotency key ${JSON.stringify(key)} conflicted but no row was found`);
  return { id: existing.rows[0].id, claimed: null, completed };
}

/**
 * Take up to `limit` due messages for `owner`: the head (lowest id) of each chat's unsent
 * messages, when `queued` and due, or `sending` with an expired lease (a sender that died).
 * `FOR UPDATE SKIP LOCKED` + lease: two replicas never send the same row at once.
 */
export async function claimMessages(q: Queryable, owner: string, nowMs: number, leaseMs: number, limit: number): Promise<OutboxRecord[]> {
  try {
    return await claimMessagesOnce(q, owner, nowMs, leaseMs, limit);
  } catch (err) {
    // A chat of the selection was taken by an insert meanwhile: once more, it is no head now.
    if (!isChatSending(err)) throw err;
    return claimMessagesOnce(q, owner, nowMs, leaseMs, limit).catch((again: unknown) => {
      if (isChatSending(again)) return [];
      throw again;
    });
  }
}

async function claimMessagesOnce(q: Queryable, owner: string, nowMs: number, leaseMs: number, limit: number): Promise<OutboxRecord[]> {
  const { rows } = await q.query<OutboxRecord>(
    `UPDATE skillgate.outbox_messages m
        SET status = 'sending', lease_owner = $1, lease_until = $3::timestamptz, attempts = m.attempts + 1
      WHERE m.id IN (
        SELECT h.id FROM skillgate.outbox_messages h
         WHERE h.status IN ('queued', 'sending')
           AND ((h.status = 'queued' AND h.next_attempt_at <= $2::timestamptz)
             OR (h.status = 'sending' AND h.lease_until <= $2::timestamptz))
           AND NOT EXISTS (
             SELECT 1 FROM skillgate.outbox_messages p
              WHERE p.chat_key = h.chat_key AND p.id < h.id
                AND p.status IN ('queued', 'sending'))
         ORDER BY h.id
         LIMIT $4
         FOR UPDATE OF h SKIP LOCKED)
        AND (m.status = 'queued' OR m.lease_until <= $2::timestamptz)
      RETURNING ${COLUMNS}`,
    [owner, iso(nowMs), iso(nowMs + leaseMs), limit],
  );
  return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/**
 * Record a delivery. `messageIds` are the ids of the parts this attempt sent; they are added to
 * those of earlier attempts that delivered some parts (`parts_done`), so the row lists them all.
 * @returns false when the lease was no longer ours
 */
export async function markSent(q: Queryable, id: string, owner: string, messageIds: string[], nowMs: number): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.outbox_messages
        SET status = 'sent', sent_at = $4::timestamptz,
            platform_message_ids = CASE WHEN parts_done > 0 THEN COALESCE(platform_message_ids, '[]'::jsonb) || $3::jsonb ELSE $3::jsonb END,
            lease_owner = NULL, lease_until = NULL
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'sending'`,
    [id, owner, JSON.stringify(messageIds), iso(nowMs)],
  );
  return res.rowCount > 0;
}

/** One delivery to record with {@link markSentMany}. */
export interface SentMark {
  id: string;
  owner: string;
  messageIds: string[];
  nowMs: number;
}

/**
 * {@link markSent} for many rows in one statement (the outbox's group commit,
 * src/store/batch.ts). @returns per mark, in order, whether it took effect (the lease was ours)
 */
export async function markSentMany(q: Queryable, marks: SentMark[]): Promise<boolean[]> {
  if (marks.length === 1) {
    const m = marks[0]!;
    return [await markSent(q, m.id, m.owner, m.messageIds, m.nowMs)];
  }
  const { rows } = await q.query<{ id: string }>(
    `UPDATE skillgate.outbox_messages m
        SET status = 'sent', sent_at = v.at,
            platform_message_ids = CASE WHEN m.parts_done > 0 THEN COALESCE(m.platform_message_ids, '[]'::jsonb) || v.ids ELSE v.ids END,
            lease_owner = NULL, lease_until = NULL
       FROM unnest($1::bigint[], $2::text[], $3::jsonb[], $4::timestamptz[]) AS v(id, owner, ids, at)
      WHERE m.id = v.id AND m.lease_owner = v.owner AND m.status = 'sending'
      RETURNING m.id::text AS id`,
    [marks.map((m) => m.id), marks.map((m) => m.owner), marks.map((m) => JSON.stringify(m.messageIds)), marks.map((m) => iso(m.nowMs))],
  );
  const done = new Set(rows.map((r) => r.id));
  return marks.map((m) => done.has(m.id));
}

/**
 * Record a failed attempt with the platform's error: `queued` again, due at `retryAtMs`, or
 * `failed` for good when `retryAtMs` is null. `progress` (a multi-part message that failed
 * mid-way, src/channel/parts.ts): the parts delivered so far, earlier attempts included, and
 * the ids this attempt produced — stored so the retry resumes after them.
 * @returns false when the lease was no longer ours
 */
export async function markAttemptFailed(
  q: Queryable,
  id: string,
  owner: string,
  error: string,
  code: string | null,
  retryAtMs: number | null,
  progress?: { partsDone: number; messageIds: string[] },
): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.outbox_messages
        SET status = CASE WHEN $5::timestamptz IS NULL THEN 'failed' ELSE 'queued' END,
            next_attempt_at = COALESCE($5::timestamptz, next_attempt_at),
            last_error = $3, error_code = $4, lease_owner = NULL, lease_until = NULL,
            parts_done = GREATEST(parts_done, COALESCE($6::int, 0)),
            platform_message_ids = CASE WHEN $7::jsonb = '[]'::jsonb THEN platform_message_ids
                                        ELSE COALESCE(platform_message_ids, '[]'::jsonb) || $7::jsonb END
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'sending'`,
    [id, owner, processSecrets().scrub(error), code, retryAtMs === null ? null : iso(retryAtMs), progress?.partsDone ?? null, JSON.stringify(progress?.messageIds ?? [])],
  );
  return res.rowCount > 0;
}

/** Give back messages taken but not sent (a stopping sender): as if never taken. */
export async function releaseMessages(q: Queryable, ids: string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `UPDATE skillgate.outbox_messages
        SET status = 'queued', lease_owner = NULL, lease_until = NULL, attempts = attempts - 1
      WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND status = 'sending'`,
    [ids, owner],
  );
}

/** One message by id. */
export async function selectMessage(q: Queryable, id: string): Promise<OutboxRecord | undefined> {
  if (!/^\d{1,19}$/.test(id)) return undefined;
  const { rows } = await q.query<OutboxRecord>(`SELECT ${COLUMNS} FROM skillgate.outbox_messages WHERE id = $1::bigint`, [id]);
  return rows[0];
}

/** Messages not yet sent or failed. */
export async function countBacklog(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM skillgate.outbox_messages WHERE status IN ('queued', 'sending')`,
  );
  return rows[0]?.n ?? 0;
}
