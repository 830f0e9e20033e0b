/**
 * The final replies of several turns in one statement (docs/pipeline.md "Group commit"): each
 * turn's reply row, its inbox event's done mark and its audit rows, for turns of different
 * chats, commit together — one round trip and one commit for the lot instead of one per turn.
 * Each row is taken for its sender in the INSERT when it is its chat's head, as a single reply's
 * statement does (src/outbox/store.ts `insertMessage`); a `queued` row is announced only when it
 * is its chat's head (one behind an unfinished row is taken by whoever finishes that one).
 */
import type { Queryable } from '../store/db.ts';
import type { SqlWrite } from '../store/sql-write.ts';
import type { Logger } from '../log/logger.ts';
import { AHEAD, claimedRecord, idOfKey, insertMessage, paceFree, storableRow, type InsertClaim, type StorableRow } from './store.ts';
import type { CompletesEvent, OutboxItem, OutboxRecord, OutboxStatus } from './types.ts';

/** One turn's final reply: one message and the event it ends. */
export interface FinalReply {
  item: OutboxItem;
  completes: CompletesEvent;
}

/** What the statement did for one reply (as `insertMessage` answers for one). */
export interface FinalOutcome {
  /** The row id; null when its idempotency key was stored before (the caller looks it up). */
  id: string | null;
  claimed: OutboxRecord | null;
  completed: boolean;
  /** Stored `queued` behind an unfinished row of its chat (as `InsertedMessage.ahead`). */
  ahead: boolean;
}

/**
 * The carried writes of `replies` merged into one, or undefined when none carries one.
 * @returns null when they cannot be merged (different kinds, or a kind without `merge`)
 */
export function mergedAlongside(replies: readonly FinalReply[]): SqlWrite | undefined | null {
  const writes = replies.map((r) => r.completes.alongside).filter((w): w is SqlWrite => w !== undefined);
  if (writes.length === 0) return undefined;
  const merge = writes[0]!.merge;
  if (!merge || writes.some((w) => w.merge !== merge)) return null;
  return writes.length === 1 ? writes[0]! : merge(writes);
}

/**
 * Store `replies` (two or more, of different chats, every one with an idempotency key) in one
 * statement on `q`. With `claim`, each row that is its chat's head and not held back by flood
 * control is taken in the INSERT. With `notifyChannel`, a `queued` row is announced.
 * @returns one outcome per reply, in order
 * @throws the database error (nothing of the batch is stored then); Error when the carried
 *   writes cannot be merged
 */
export async function insertFinalReplies(
  q: Queryable,
  replies: readonly FinalReply[],
  nowMs: number,
  claim: InsertClaim | undefined,
  notifyChannel: string | undefined,
): Promise<FinalOutcome[]> {
  const side = mergedAlongside(replies);
  if (side === null) throw new Error('outbox: the replies carry writes that cannot be merged');
  const rows = replies.map((r) => storableRow(r.item));
  const json = batchJson(rows, replies);
  const { rows: out } = await q.query<{ i: number; id: string | null; status: OutboxStatus | null; ahead: boolean | null; completed: boolean }>(batchSql(side), [
    json,
    new Date(nowMs).toISOString(),
    claim?.owner ?? null,
    claim ? new Date(nowMs + claim.leaseMs).toISOString() : null,
    notifyChannel ?? null,
    ...(side?.params ?? []),
  ]);
  const byIndex = new Map(out.map((o) => [Number(o.i), o]));
  return rows.map((row, i) => {
    const o = byIndex.get(i);
    const id = o?.id ?? null;
    return {
      id,
      claimed: id !== null && o?.status === 'sending' ? claimedRecord(id, row, nowMs) : null,
      completed: o?.completed === true,
      ahead: o?.ahead === true,
    };
  });
}

/** The batch's rows as one JSON array, the message texts spliced in as they were made once. */
function batchJson(rows: readonly StorableRow[], replies: readonly FinalReply[]): string {
  const parts = rows.map((r, i) => {
    const c = replies[i]!.completes;
    if (r.key === null) throw new Error('outbox: a batched reply needs an idempotency key');
    return `{"i":${i},"key":${JSON.stringify(r.key)},"channel":${JSON.stringify(r.target.channel)},"account":${JSON.stringify(
      r.target.account,
    )},"chat_key":${JSON.stringify(r.chatKey)},"target":${r.targetJson},"message":${r.messageJson},"origin":${
      r.originJson ?? 'null'
    },"event_id":${JSON.stringify(c.inboxEventId)},"lease_owner":${JSON.stringify(c.leaseOwner)}}`;
  });
  return `[${parts.join(',')}]`;
}

const ROWS = `r AS (
         SELECT * FROM json_to_recordset($1::json) AS x(i int, key text, channel text, account text, chat_key text,
                target jsonb, message jsonb, origin jsonb, event_id bigint, lease_owner text))`;

const DONE = `done AS (
         UPDATE skillgate.inbox_events e
            SET status = 'done', processed_at = $2::timestamptz, lease_owner = NULL, lease_until = NULL, error = NULL
           FROM r
          WHERE e.id = r.event_id AND e.lease_owner = r.lease_owner AND e.status = 'processing'
          RETURNING e.id)`;

// As src/outbox/store.ts INSERT_SQL, for every row of `r` (of different chats: no row of the
// batch is ahead of another).
const INS = `ins AS (
         INSERT INTO skillgate.outbox_messages AS o
                (idempotency_key, channel, account, chat_key, target, message, origin, next_attempt_at, created_at,
                 status, lease_owner, lease_until, attempts)
         SELECT r.key, r.channel, r.account, r.chat_key, r.target, r.message, r.origin, $2::timestamptz, $2::timestamptz,
                CASE WHEN h.head THEN 'sending' ELSE 'queued' END,
                CASE WHEN h.head THEN $3 END,
                CASE WHEN h.head THEN $4::timestamptz END,
                CASE WHEN h.head THEN 1 ELSE 0 END
           FROM r CROSS JOIN LATERAL (
                SELECT $3::text IS NOT NULL AND NOT EXISTS (
                         SELECT 1 FROM skillgate.outbox_messages p
                          WHERE p.chat_key = r.chat_key AND p.status IN ('queued', 'sending'))
                   AND ${paceFree('r.chat_key', 'r.channel', 'r.account', '$2::timestamptz', 'r.target', 'r.origin')} AS head) h
          ORDER BY r.i
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING o.id::text AS id, o.idempotency_key, o.status, ${AHEAD} AS ahead,
                   CASE WHEN o.status = 'queued' AND $5::text IS NOT NULL AND NOT ${AHEAD}
                        THEN pg_notify($5::text, o.id::text) END AS notified)`;

const texts = new Map<SqlWrite['sql'] | null, string>();

/** The statement, built once per kind of carried write (params $6… are the write's). */
function batchSql(side: SqlWrite | undefined): string {
  const key = side?.sql ?? null;
  let sql = texts.get(key);
  if (sql === undefined) {
    sql = `WITH ${ROWS},
       ${DONE},${side ? `\n       side AS (${side.sql((i) => `$${5 + i}`)}),` : ''}
       ${INS}
       SELECT r.i, ins.id, ins.status, ins.ahead, ins.notified, EXISTS (SELECT 1 FROM done WHERE done.id = r.event_id) AS completed
         FROM r LEFT JOIN ins ON ins.idempotency_key = r.key
        ORDER BY r.i`;
    // A carried write whose text function is made per call would grow this without bound.
    if (texts.size < 32) texts.set(key, sql);
  }
  return sql;
}

/**
 * Store final replies (each one message with its event's done mark) on `q`: several in one
 * statement ({@link insertFinalReplies}); one statement each when alone, when their carried
 * writes do not merge, or when the batch's statement failed (so one bad reply fails only itself).
 * @returns one settled outcome per reply, in order (ids always set)
 */
export async function storeFinalReplies(
  q: Queryable,
  replies: readonly FinalReply[],
  o: { nowMs: number; claim: InsertClaim | undefined; notifyChannel: string | undefined; log: Logger },
): Promise<Settled<FinalOutcome>[]> {
  if (replies.length > 1 && mergedAlongside(replies) !== null) {
    const outs = await insertFinalReplies(q, replies, o.nowMs, o.claim, o.notifyChannel).catch((err: unknown) => {
      o.log.warn({ replies: replies.length, err: (err as Error)?.message ?? String(err) }, 'outbox: a batch of replies failed; storing them one by one');
      return null;
    });
    if (outs) {
      return Promise.all(
        outs.map((out, i) => settle(async () => (out.id !== null ? out : { ...out, id: await idOfKey(q, replies[i]!.item.idempotency_key ?? null) }))),
      );
    }
  }
  return Promise.all(replies.map((r) => settle(() => insertMessage(q, r.item, o.nowMs, o.claim, o.notifyChannel, r.completes))));
}

/** A result or the error it failed with (one reply of a batch failing alone). */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Run `f`, keeping its failure as a value. */
export async function settle<T>(f: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await f() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The value of `s`. @throws its error */
export function unsettle<T>(s: Settled<T>): T {
  if (s.ok) return s.value;
  throw s.error;
}
