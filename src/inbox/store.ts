/**
 * SQL of the inbox (table `skillgate.inbox_events`, migration 0006). Each function is one
 * statement, so nothing holds a transaction while a handler runs (the embedded engine has one
 * session). Times are ms from the inbox clock, stored as timestamptz.
 */
import type { InboundMessage } from '../channel/types.ts';
import type { Queryable } from '../store/db.ts';
import { claimOnceMore, isChatTaken } from '../store/chat-taken.ts';
import { processSecrets } from '../log/secret-values.ts';
import { TAKEOVER_MS } from '../recovery/takeover.ts';

/** A row taken by a worker. */
export interface ClaimedRow {
  id: string;
  payload: InboundMessage;
  chat_key: string;
  attempts: number;
  received_at: Date;
  /** The skill call a run of this event had started and not finished (docs/recovery.md), else null. */
  started_call: StartedCall | null;
}

/** A skill call recorded as started (`inbox_events.started_call`). */
export interface StartedCall {
  skill: string;
  input: Record<string, unknown>;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export { isChatTaken };

/**
 * Insert the event unless its (channel, account, dedupe_key) exists, in one statement that
 * first takes the chat's transaction-scoped lock (`skillgate.inbox_lock_head`, migration 0036):
 * inserts of one chat get their ids in commit order, so a worker never sees a later event of a
 * chat while an earlier one is still uncommitted (ids are the order of a chat), even when events
 * of one chat arrive on several connections or replicas at once.
 *
 * With `claim`, the new row is taken for `claim.owner` in the same statement (`processing`,
 * lease, attempt 1) when it is the head of its chat (no earlier unfinished event visible) —
 * the caller then runs it without a claim statement. Two processes taking one chat's head at
 * once cannot both win (migration 0030): the loser's row is stored again as `received`.
 * With `notifyChannel`, a row left
 * `received` is announced by `pg_notify(notifyChannel, id)` in the same statement (a server
 * delivers it at commit). `payload`: `JSON.stringify(msg)` when the caller has it.
 * @returns the new id and whether it was taken, or null for a duplicate
 */
export async function insertEvent(
  q: Queryable,
  msg: InboundMessage,
  chatKey: string,
  nowMs: number,
  claim?: { owner: string; leaseMs: number },
  notifyChannel?: string,
  flood?: SenderLimit,
  payload: string = JSON.stringify(msg),
): Promise<StoredEvent | null> {
  try {
    return await insertEventOnce(q, msg, payload, chatKey, nowMs, claim, notifyChannel, flood);
  } catch (err) {
    if (!claim || !isChatTaken(err)) throw err;
    return insertEventOnce(q, msg, payload, chatKey, nowMs, undefined, notifyChannel, flood);
  }
}

/**
 * Per-sender flood control inside {@link insertEvent} (docs/operations-delivery.md "Per-sender
 * flood control"): when the sender already has `perMinute` events (not refused) in the window
 * ending at the event's time, the event is stored `refused` instead — never taken, never run.
 */
export interface SenderLimit {
  perMinute: number;
  /** The sender's id (`actor.id`). */
  senderId: string;
  /** The window, ms. */
  windowMs: number;
}

/** A stored event: its id, whether this statement took it, whether flood control refused it. */
export interface StoredEvent {
  id: string;
  claimed: boolean;
  /** Stored `refused` by {@link SenderLimit}. */
  refused: boolean;
  /** Refused events of the sender in the window before this one (the notice goes with the first). */
  refusedBefore: number;
}

const INSERT_COLUMNS = `(channel, account, dedupe_key, chat_key, payload, received_at, next_attempt_at,
        status, lease_owner, lease_until, attempts, processed_at, error)`;

/** The INSERT of `$1…$9` (see insertEventOnce), reading the sender's window from `w` (`over`). */
const insertFrom = (window: string): string => `INSERT INTO skillgate.inbox_events
       ${INSERT_COLUMNS}
     SELECT $1, $2, $3, $4, $5::jsonb, $6::timestamptz, $6::timestamptz,
            CASE WHEN w.over THEN 'refused' WHEN h.head THEN 'processing' ELSE 'received' END,
            CASE WHEN h.head THEN $7 END,
            CASE WHEN h.head THEN $8::timestamptz END,
            CASE WHEN h.head THEN 1 ELSE 0 END,
            CASE WHEN w.over THEN $6::timestamptz END,
            CASE WHEN w.over THEN 'over the per-sender message limit' END
       FROM ${window} w
       CROSS JOIN LATERAL (
         SELECT CASE WHEN w.over THEN false
                     ELSE skillgate.inbox_lock_head($4) AND $7::text IS NOT NULL END AS head) h
     ON CONFLICT (channel, account, dedupe_key) DO NOTHING
     RETURNING id::text AS id, status = 'processing' AS claimed, status = 'refused' AS refused,
               CASE WHEN status = 'received' AND $9::text IS NOT NULL THEN pg_notify($9::text, id::text) END AS notified`;

/** Without flood control: never over. */
const INSERT_PLAIN = insertFrom('(SELECT false AS over)');

/**
 * With flood control: `$10` per minute, `$11` the sender id, `$12` the window start. The window
 * is read once (a CTE) for the decision and for the refusals before this one, under the
 * sender's lock (migration 0040), so events of one sender arriving together are counted in turn.
 */
const INSERT_LIMITED = `WITH w AS (
       SELECT c.taken >= $10::int AS over, c.refused AS refused_before
         FROM skillgate.inbox_sender_window($1, $2, $11::text, $12::timestamptz) c),
     ins AS (${insertFrom('w')})
     SELECT ins.id, ins.claimed, ins.refused, w.refused_before FROM ins CROSS JOIN w`;

async function insertEventOnce(
  q: Queryable,
  msg: InboundMessage,
  payload: string,
  chatKey: string,
  nowMs: number,
  claim?: { owner: string; leaseMs: number },
  notifyChannel?: string,
  flood?: SenderLimit,
): Promise<StoredEvent | null> {
  const params: unknown[] = [
    msg.channel,
    msg.account,
    msg.dedupe_key,
    chatKey,
    payload,
    iso(nowMs),
    claim?.owner ?? null,
    claim ? iso(nowMs + claim.leaseMs) : null,
    notifyChannel ?? null,
  ];
  if (flood) params.push(flood.perMinute, flood.senderId, iso(nowMs - flood.windowMs));
  const { rows } = await q.query<{ id: string; claimed: boolean; refused: boolean; refused_before: number | null }>(
    flood ? INSERT_LIMITED : INSERT_PLAIN,
    params,
  );
  const row = rows[0];
  return row ? { id: row.id, claimed: row.claimed, refused: row.refused, refusedBefore: row.refused_before ?? 0 } : null;
}

/**
 * Take up to `limit` due events for `owner`: only the head (lowest id) of each chat's
 * unfinished events, when it is `received` and due, or `processing` with an expired lease (a
 * stopped or crashed worker). One UPDATE over a `FOR UPDATE SKIP LOCKED` selection, so two
 * workers never take the same row; `attempts` counts the run.
 */
export async function claimEvents(q: Queryable, owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedRow[]> {
  return (await claimDue(q, owner, nowMs, leaseMs, limit)).rows;
}

/**
 * {@link claimEvents}, and whether events are left `received` after it (waiting behind a chat's
 * running event, for a slot, or for their retry time) — the inbox then keeps looking after
 * each finished turn; with none left it need not.
 */
export async function claimDue(
  q: Queryable,
  owner: string,
  nowMs: number,
  leaseMs: number,
  limit: number,
): Promise<{ rows: ClaimedRow[]; more: boolean }> {
  return claimOnceMore(() => claimDueOnce(q, owner, nowMs, leaseMs, limit), { rows: [], more: true });
}

async function claimDueOnce(
  q: Queryable,
  owner: string,
  nowMs: number,
  leaseMs: number,
  limit: number,
): Promise<{ rows: ClaimedRow[]; more: boolean }> {
  const { rows } = await q.query<ClaimedRow & { id: string | null; more: boolean }>(
    `WITH c AS (
       UPDATE skillgate.inbox_events e
          SET status = 'processing', lease_owner = $1, lease_until = $3::timestamptz,
              attempts = e.attempts + 1
        WHERE e.id IN (
          SELECT h.id FROM skillgate.inbox_events h
           WHERE h.status IN ('received', 'processing')
             AND ((h.status = 'received' AND h.next_attempt_at <= $2::timestamptz)
               OR (h.status = 'processing' AND h.lease_until <= $2::timestamptz))
             AND NOT EXISTS (
               SELECT 1 FROM skillgate.inbox_events p
                WHERE p.chat_key = h.chat_key AND p.id < h.id
                  AND p.status IN ('received', 'processing'))
           ORDER BY h.id
           LIMIT $4
           FOR UPDATE OF h SKIP LOCKED)
          AND (e.status = 'received' OR e.lease_until <= $2::timestamptz)
        RETURNING e.id, e.payload, e.chat_key, e.attempts, e.received_at, e.started_call
     )
     SELECT c.id::text AS id, c.payload, c.chat_key, c.attempts, c.received_at, c.started_call,
            EXISTS (SELECT 1 FROM skillgate.inbox_events r
                     WHERE r.status = 'received' AND r.id NOT IN (SELECT id FROM c)) AS more
       FROM (SELECT 1) one LEFT JOIN c ON true`,
    [owner, iso(nowMs), iso(nowMs + leaseMs), limit],
  );
  const more = rows[0]?.more === true;
  const claimed = rows.filter((r) => r.id !== null).map(({ more: _more, ...r }) => r as ClaimedRow);
  return { rows: claimed.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1)), more };
}

/** Extend the lease of a running event. @returns false when the lease is no longer ours */
export async function renewLease(q: Queryable, id: string, owner: string, untilMs: number): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.inbox_events SET lease_until = $3::timestamptz
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'processing'`,
    [id, owner, iso(untilMs)],
  );
  return res.rowCount > 0;
}

/** Record a finished run. @returns false when the lease was no longer ours (nothing changed) */
export async function markDone(q: Queryable, id: string, owner: string, nowMs: number): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.inbox_events
        SET status = 'done', processed_at = $3::timestamptz, lease_owner = NULL, lease_until = NULL, error = NULL
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'processing'`,
    [id, owner, iso(nowMs)],
  );
  return res.rowCount > 0;
}

/**
 * Record a finished run and, in the same statement, take up to `limit` further due events for
 * `owner` (the slot it frees): {@link markDone} + {@link claimEvents} in one round trip. The
 * finished event counts as finished for its chat's head rule only when the done mark took
 * effect (the lease was still ours).
 * @returns whether the done mark took effect, and the rows taken (in id order)
 */
export async function markDoneAndClaim(
  q: Queryable,
  id: string,
  owner: string,
  nowMs: number,
  leaseMs: number,
  limit: number,
): Promise<{ done: boolean; claimed: ClaimedRow[] }> {
  try {
    return await markDoneAndClaimOnce(q, id, owner, nowMs, leaseMs, limit);
  } catch (err) {
    // The next head was taken by an insert meanwhile: record the done mark alone.
    if (!isChatTaken(err) || limit === 0) throw err;
    return markDoneAndClaimOnce(q, id, owner, nowMs, leaseMs, 0);
  }
}

async function markDoneAndClaimOnce(
  q: Queryable,
  id: string,
  owner: string,
  nowMs: number,
  leaseMs: number,
  limit: number,
): Promise<{ done: boolean; claimed: ClaimedRow[] }> {
  const { rows } = await q.query<ClaimedRow & { kind: 'd' | 'c' }>(
    `WITH d AS (
       UPDATE skillgate.inbox_events
          SET status = 'done', processed_at = $3::timestamptz, lease_owner = NULL, lease_until = NULL, error = NULL
        WHERE id = $1::bigint AND lease_owner = $2 AND status = 'processing'
        RETURNING id
     ), c AS (
       UPDATE skillgate.inbox_events e
          SET status = 'processing', lease_owner = $2, lease_until = $4::timestamptz, attempts = e.attempts + 1
        WHERE e.id IN (
          SELECT h.id FROM skillgate.inbox_events h
           WHERE h.id <> $1::bigint AND h.status IN ('received', 'processing')
             AND ((h.status = 'received' AND h.next_attempt_at <= $3::timestamptz)
               OR (h.status = 'processing' AND h.lease_until <= $3::timestamptz))
             AND NOT EXISTS (
               SELECT 1 FROM skillgate.inbox_events p
                WHERE p.chat_key = h.chat_key AND p.id < h.id
                  AND p.status IN ('received', 'processing')
                  AND NOT (p.id = $1::bigint AND EXISTS (SELECT 1 FROM d)))
           ORDER BY h.id
           LIMIT $5
           FOR UPDATE OF h SKIP LOCKED)
          AND (e.status = 'received' OR e.lease_until <= $3::timestamptz)
        RETURNING e.id, e.payload, e.chat_key, e.attempts, e.received_at, e.started_call
     )
     SELECT 'd' AS kind, id::text AS id, NULL::jsonb AS payload, NULL::text AS chat_key, NULL::int AS attempts, NULL::timestamptz AS received_at, NULL::jsonb AS started_call FROM d
     UNION ALL
     SELECT 'c', id::text, payload, chat_key, attempts, received_at, started_call FROM c`,
    [id, owner, iso(nowMs), iso(nowMs + leaseMs), Math.max(0, limit)],
  );
  const claimed = rows.filter((r) => r.kind === 'c').map(({ kind: _kind, ...r }) => r);
  claimed.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  return { done: rows.some((r) => r.kind === 'd'), claimed };
}

/**
 * Record a failed run: back to `received`, due at `retryAtMs`, or `failed` for good when
 * `retryAtMs` is null. @returns false when the lease was no longer ours
 */
export async function markFailed(
  q: Queryable,
  id: string,
  owner: string,
  error: string,
  nowMs: number,
  retryAtMs: number | null,
): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.inbox_events
        SET status = CASE WHEN $4::timestamptz IS NULL THEN 'failed' ELSE 'received' END,
            next_attempt_at = COALESCE($4::timestamptz, next_attempt_at),
            processed_at = CASE WHEN $4::timestamptz IS NULL THEN $5::timestamptz ELSE NULL END,
            error = $3, lease_owner = NULL, lease_until = NULL
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'processing'`,
    [id, owner, processSecrets().scrub(error), retryAtMs === null ? null : iso(retryAtMs), iso(nowMs)],
  );
  return res.rowCount > 0;
}

/**
 * Record that the run of event `id` starts the skill call `call` (docs/recovery.md): one
 * statement, written only before a skill that does not declare `idempotent: true`.
 * @returns false when the lease was no longer ours
 */
export async function markStarted(q: Queryable, id: string, owner: string, call: StartedCall): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.inbox_events SET started_call = $3::jsonb
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'processing'`,
    [id, owner, JSON.stringify(call)],
  );
  return res.rowCount > 0;
}

/** Give back events taken but not started (a worker stopping mid-claim): as if never taken. */
export async function releaseEvents(q: Queryable, ids: string[], owner: string): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `UPDATE skillgate.inbox_events
        SET status = 'received', lease_owner = NULL, lease_until = NULL, attempts = attempts - 1
      WHERE id = ANY($1::bigint[]) AND lease_owner = $2 AND status = 'processing'`,
    [ids, owner],
  );
}

/**
 * True when an event of `chatKey` is `processing` by a live process: a lease of an instance
 * whose heartbeat stopped (docs/recovery.md) is work nobody runs, so a stop is told so.
 */
export async function chatIsProcessing(q: Queryable, chatKey: string): Promise<boolean> {
  const { rows } = await q.query(
    `SELECT 1 FROM skillgate.inbox_events e
      WHERE e.chat_key = $1 AND e.status = 'processing'
        AND NOT EXISTS (SELECT 1 FROM skillgate.instances i
                         WHERE i.id = e.lease_owner AND i.heartbeat_at < now() - make_interval(secs => $2::double precision / 1000))
      LIMIT 1`,
    [chatKey, TAKEOVER_MS],
  );
  return rows.length > 0;
}

/** Events not finished yet (`received` or `processing`). */
export async function countBacklog(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM skillgate.inbox_events WHERE status IN ('received', 'processing')`,
  );
  return rows[0]?.n ?? 0;
}
