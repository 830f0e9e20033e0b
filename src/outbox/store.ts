/**
 * SQL of the outbox (table `skillgate.outbox_messages`, migration 0006). One statement per
 * function; no transaction is held across a send. Times are ms from the outbox clock.
 */
import { storableCopy, storableJson, storableText } from '../channel/storable.ts';
import { targetChatKey } from '../channel/chat-key.ts';
import type { Queryable } from '../store/db.ts';
import { claimOnceMore, isChatTaken } from '../store/chat-taken.ts';
import { processSecrets } from '../log/secret-values.ts';
import type { CompletesEvent, OutboxItem, OutboxRecord, OutboxStatus } from './types.ts';
import type { SqlWrite } from '../store/sql-write.ts';
import { ANSWERS_FREE_CHANNELS } from './pacing.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

export { targetChatKey };

const COLUMNS = `id::text AS id, idempotency_key, channel, account, chat_key, target, message, status,
  attempts, next_attempt_at, last_error, error_code, platform_message_ids, origin, created_at, sent_at, parts_done,
  ambiguity, ambiguous_part, ambiguous_attempts`;

/**
 * SQL: no pace row holds this chat or its account back at `now` (src/outbox/pacing.ts;
 * table `skillgate.delivery_pace`, migration 0020).
 */
function paceFree(chat: string, channel: string, account: string, now: string, target: string, origin: string): string {
  return `NOT EXISTS (
    SELECT 1 FROM skillgate.delivery_pace d
     WHERE d.not_before > ${now}
       AND ((d.scope = 'chat' AND d.key = ${chat} AND NOT ${answersPerson(target, origin)})
         OR (d.scope = 'account' AND d.key = ${channel} || ':' || ${account})))`;
}

/**
 * SQL: the message answers a person's own message in a one-to-one chat (its origin is an
 * inbox event; the chat is not a group or channel) of a channel whose pace lets answers go
 * (src/outbox/pacing.ts `Pace.answersFree`). Such answers are paced by the person and never
 * held by the chat's pace, which they still move (docs/operations-delivery.md "Flood control").
 */
function answersPerson(target: string, origin: string): string {
  return `(${target}->>'channel' IN (${FREE_CHANNELS}) AND COALESCE(${origin}, '{}'::jsonb) ? 'inbox_event_id'
           AND COALESCE(${target}->>'chat_type', 'direct') = 'direct')`;
}

/** The channels of {@link answersPerson} as SQL literals (names are [a-z_] identifiers). */
const FREE_CHANNELS =
  ANSWERS_FREE_CHANNELS.filter((c) => /^[a-z_]+$/.test(c))
    .map((c) => `'${c}'`)
    .join(', ') || 'NULL';

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
 * attempt 1) when it is the head of its chat (no earlier `queued`/`sending` message visible)
 * and neither the chat nor its account is held back by flood control (src/outbox/pacing.ts),
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
    if (!claim || !isChatTaken(err)) throw err;
    return insertMessageOnce(q, item, nowMs, undefined, notifyChannel, completes);
  }
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
  // One JSON text of the message; walked again only when it may hold a secret (a skill echoing one).
  let { value: message, json: messageJson } = storableJson(item.message);
  if (processSecrets().mayHold(messageJson)) {
    message = storableCopy(processSecrets().scrubValues(item.message));
    messageJson = JSON.stringify(message);
  }
  const origin = item.origin ? storableCopy(item.origin) : null;
  const originJson = origin === null ? null : JSON.stringify(origin);
  const targetJson = JSON.stringify(t);
  const { rows } = await q.query<{ id: string | null; status: OutboxStatus | null; completed?: boolean }>(insertSql(completes), [
    key,
    t.channel,
    t.account,
    chatKey,
    targetJson,
    messageJson,
    originJson,
    iso(nowMs),
    claim?.owner ?? null,
    claim ? iso(nowMs + claim.leaseMs) : null,
    notifyChannel ?? null,
    ...(completes ? [completes.inboxEventId, completes.leaseOwner, ...(completes.alongside?.params ?? [])] : []),
  ]);
  const completed = rows[0]?.completed === true;
  const id = rows[0]?.id;
  if (id) {
    // A row taken in its INSERT is what was written: built from the stored values, not read back
    // (nothing downstream changes a row's target or message).
    const claimed: OutboxRecord | null =
      rows[0]!.status === 'sending'
        ? {
            id,
            idempotency_key: key,
            channel: t.channel,
            account: t.account,
            chat_key: chatKey,
            target: t,
            message,
            status: 'sending',
            attempts: 1,
            next_attempt_at: new Date(nowMs),
            last_error: null,
            error_code: null,
            platform_message_ids: null,
            origin,
            created_at: new Date(nowMs),
            sent_at: null,
            parts_done: 0,
            ambiguity: null,
            ambiguous_part: null,
            ambiguous_attempts: 0,
          }
        : null;
    return { id, claimed, completed };
  }
  const existing = await q.query<{ id: string }>('SELECT id::text AS id FROM skillgate.outbox_messages WHERE idempotency_key = $1', [key]);
  if (!existing.rows[0]) throw new Error(`outbox: idempotency key ${JSON.stringify(key)} conflicted but no row was found`);
  return { id: existing.rows[0].id, claimed: null, completed };
}

/** The INSERT of {@link insertMessageOnce}, built once per shape (the carried write's text function). */
const INSERT_SQL = `INSERT INTO skillgate.outbox_messages
       (idempotency_key, channel, account, chat_key, target, message, origin, next_attempt_at, created_at,
        status, lease_owner, lease_until, attempts)
     SELECT $1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8::timestamptz, $8::timestamptz,
            CASE WHEN h.head THEN 'sending' ELSE 'queued' END,
            CASE WHEN h.head THEN $9 END,
            CASE WHEN h.head THEN $10::timestamptz END,
            CASE WHEN h.head THEN 1 ELSE 0 END
       FROM (SELECT $9::text IS NOT NULL AND NOT EXISTS (
               SELECT 1 FROM skillgate.outbox_messages p
                WHERE p.chat_key = $4 AND p.status IN ('queued', 'sending'))
             AND ${paceFree('$4', '$2', '$3', '$8::timestamptz', '$5::jsonb', '$7::jsonb')} AS head) h
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING id::text AS id, status,
               CASE WHEN status = 'queued' AND $11::text IS NOT NULL THEN pg_notify($11::text, id::text) END AS notified`;
const completingSql = new Map<SqlWrite['sql'] | null, string>();

function insertSql(completes: CompletesEvent | undefined): string {
  if (!completes) return INSERT_SQL;
  const side = completes.alongside?.sql ?? null;
  let sql = completingSql.get(side);
  if (sql === undefined) {
    // With `completes`: the done mark of the inbox event this message ends, in the same statement
    // (as src/inbox/store.ts markDone); one row comes back also when the INSERT conflicted.
    sql = `WITH done AS (
         UPDATE skillgate.inbox_events
            SET status = 'done', processed_at = $8::timestamptz, lease_owner = NULL, lease_until = NULL, error = NULL
          WHERE id = $12::bigint AND lease_owner = $13 AND status = 'processing'
          RETURNING id),${
            side
              ? `
       side AS (${side((i) => `$${13 + i}`)}),`
              : ''
          }
       ins AS (${INSERT_SQL})
       SELECT ins.id, ins.status, ins.notified, EXISTS (SELECT 1 FROM done) AS completed FROM (SELECT 1) one LEFT JOIN ins ON true`;
    // A carried write whose text function is made per call would grow this without bound.
    if (completingSql.size < 32) completingSql.set(side, sql);
  }
  return sql;
}

/** A taken row with the account-wide flood-control state another replica stored (if any). */
export interface ClaimedRecord extends OutboxRecord {
  pace_rate_per_s: number | null;
  pace_rate_since: Date | null;
}

/**
 * Take up to `limit` due messages for `owner`: the head (lowest id) of each chat's unsent
 * messages, when `queued` and due, or `sending` with an expired lease (a sender that died),
 * and neither its chat nor its account held back by flood control (src/outbox/pacing.ts).
 * `FOR UPDATE SKIP LOCKED` + lease: two replicas never send the same row at once.
 */
export async function claimMessages(q: Queryable, owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedRecord[]> {
  return claimOnceMore(() => claimMessagesOnce(q, owner, nowMs, leaseMs, limit), []);
}

async function claimMessagesOnce(q: Queryable, owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedRecord[]> {
  const { rows } = await q.query<ClaimedRecord>(
    `UPDATE skillgate.outbox_messages m
        SET status = 'sending', lease_owner = $1, lease_until = $3::timestamptz, attempts = m.attempts + 1,
            -- Taken over from a sender whose lease expired mid-send: its part may have gone out.
            ambiguity = CASE WHEN m.status = 'sending' THEN 'pending' ELSE m.ambiguity END,
            ambiguous_part = CASE WHEN m.status = 'sending' THEN m.parts_done ELSE m.ambiguous_part END,
            ambiguous_attempts = m.ambiguous_attempts + CASE WHEN m.status = 'sending' THEN 1 ELSE 0 END
      WHERE m.id IN (
        SELECT h.id FROM skillgate.outbox_messages h
         WHERE h.status IN ('queued', 'sending')
           AND ((h.status = 'queued' AND h.next_attempt_at <= $2::timestamptz)
             OR (h.status = 'sending' AND h.lease_until <= $2::timestamptz))
           AND NOT EXISTS (
             SELECT 1 FROM skillgate.outbox_messages p
              WHERE p.chat_key = h.chat_key AND p.id < h.id
                AND p.status IN ('queued', 'sending'))
           AND ${paceFree('h.chat_key', 'h.channel', 'h.account', '$2::timestamptz', 'h.target', 'h.origin')}
         ORDER BY h.id
         LIMIT $4
         FOR UPDATE OF h SKIP LOCKED)
        AND (m.status = 'queued' OR m.lease_until <= $2::timestamptz)
      RETURNING ${COLUMNS},
        (SELECT d.rate_per_s FROM skillgate.delivery_pace d WHERE d.scope = 'account' AND d.key = m.channel || ':' || m.account) AS pace_rate_per_s,
        (SELECT d.rate_since FROM skillgate.delivery_pace d WHERE d.scope = 'account' AND d.key = m.channel || ':' || m.account) AS pace_rate_since`,
    [owner, iso(nowMs), iso(nowMs + leaseMs), limit],
  );
  return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** The chat's flood-control step of a delivery (see {@link markSent}). */
export interface ChatPaceStep {
  chatKey: string;
  /** How far the chat's schedule moves: parts sent × the pace interval, ms. */
  stepMs: number;
  /** The burst tolerance: (burst − 1) × interval, ms. */
  toleranceMs: number;
}

/**
 * Record a delivery. `messageIds` are the ids of the parts this attempt sent; they are added to
 * those of earlier attempts that delivered some parts (`parts_done`), so the row lists them all.
 * With `pace`, the chat's flood-control schedule moves on in the same statement (GCRA:
 * tat = max(tat, now) + step; the chat's next message not before tat − tolerance).
 * @returns whether the lease was still ours, and when the chat may be sent to next (ms; 0 when not paced)
 */
export async function markSent(
  q: Queryable,
  id: string,
  owner: string,
  messageIds: string[],
  nowMs: number,
  pace?: ChatPaceStep,
  resolution: AmbiguityResolution | null = null,
): Promise<{ ours: boolean; notBeforeMs: number }> {
  const n = pace ? 8 : 5;
  const update = `UPDATE skillgate.outbox_messages
        SET status = 'sent', sent_at = $4::timestamptz,
            platform_message_ids = CASE WHEN parts_done > 0 THEN COALESCE(platform_message_ids, '[]'::jsonb) || $3::jsonb ELSE $3::jsonb END,
            ambiguity = CASE WHEN ambiguity = 'pending' THEN COALESCE($${n}::text, ambiguity) ELSE ambiguity END,
            lease_owner = NULL, lease_until = NULL
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'sending'`;
  if (!pace) {
    const res = await q.query(update, [id, owner, JSON.stringify(messageIds), iso(nowMs), resolution]);
    return { ours: res.rowCount > 0, notBeforeMs: 0 };
  }
  const { rows } = await q.query<{ n: number; not_before: Date | null }>(
    `WITH s AS (${update} RETURNING id),
          p AS (
            INSERT INTO skillgate.delivery_pace AS d (scope, key, tat, not_before)
            SELECT 'chat', $5, $4::timestamptz + $6 * interval '1 millisecond',
                   $4::timestamptz + ($6 - $7) * interval '1 millisecond'
              FROM s
            ON CONFLICT (scope, key) DO UPDATE
              SET tat = GREATEST(d.tat, $4::timestamptz) + $6 * interval '1 millisecond',
                  not_before = GREATEST(d.tat, $4::timestamptz) + ($6 - $7) * interval '1 millisecond'
            RETURNING not_before)
     SELECT (SELECT count(*)::int FROM s) AS n, (SELECT max(not_before) FROM p) AS not_before`,
    [id, owner, JSON.stringify(messageIds), iso(nowMs), pace.chatKey, pace.stepMs, pace.toleranceMs, resolution],
  );
  const r = rows[0];
  return { ours: (r?.n ?? 0) > 0, notBeforeMs: r?.not_before ? new Date(r.not_before).getTime() : 0 };
}

/** One delivery to record (see {@link markSent}). */
export interface SentMark {
  id: string;
  owner: string;
  messageIds: string[];
  nowMs: number;
  pace?: ChatPaceStep;
  /** How a `pending` unknown outcome of this row ended (see {@link AmbiguityResolution}). */
  resolution?: AmbiguityResolution | null;
}

/**
 * How a resend after an unknown outcome kept the user from a silent duplicate (migration 0037):
 * under the platform's idempotency key, or with the visible marker.
 */
export type AmbiguityResolution = 'resolved_by_key' | 'resent_with_marker';

/**
 * {@link markSent} for many deliveries in one statement (the outbox's group commit). At most
 * one mark per paced chat (one message of a chat is in flight at a time; a second one of the
 * same chat goes in a statement of its own after the first).
 * @returns one result per mark, in order. @throws the database error (nothing recorded).
 */
export async function markSentMany(q: Queryable, marks: readonly SentMark[]): Promise<{ ours: boolean; notBeforeMs: number }[]> {
  if (marks.length === 1) {
    const m = marks[0]!;
    return [await markSent(q, m.id, m.owner, m.messageIds, m.nowMs, m.pace, m.resolution ?? null)];
  }
  const seen = new Set<string>();
  const now: SentMark[] = [];
  const later: number[] = [];
  marks.forEach((m, i) => {
    if (m.pace && seen.has(m.pace.chatKey)) later.push(i);
    else {
      if (m.pace) seen.add(m.pace.chatKey);
      now.push(m);
    }
  });
  const { rows } = await q.query<{ id: string; ours: boolean; not_before: Date | null }>(
    `WITH v AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::jsonb[], $4::timestamptz[], $5::text[], $6::float8[], $7::float8[], $8::text[])
                  AS t(id, owner, ids, at, chat_key, step, tol, resolution)
     ), s AS (
       UPDATE skillgate.outbox_messages o
          SET status = 'sent', sent_at = v.at,
              platform_message_ids = CASE WHEN o.parts_done > 0 THEN COALESCE(o.platform_message_ids, '[]'::jsonb) || v.ids ELSE v.ids END,
              ambiguity = CASE WHEN o.ambiguity = 'pending' THEN COALESCE(v.resolution, o.ambiguity) ELSE o.ambiguity END,
              lease_owner = NULL, lease_until = NULL
         FROM v
        WHERE o.id = v.id AND o.lease_owner = v.owner AND o.status = 'sending'
        RETURNING o.id
     ), p AS (
       -- The schedule read in the statement's snapshot: one message of a chat is sent at a time.
       INSERT INTO skillgate.delivery_pace AS d (scope, key, tat, not_before)
       SELECT 'chat', v.chat_key,
              GREATEST(COALESCE(o.tat, v.at), v.at) + v.step * interval '1 millisecond',
              GREATEST(COALESCE(o.tat, v.at), v.at) + (v.step - v.tol) * interval '1 millisecond'
         FROM v JOIN s ON s.id = v.id
         LEFT JOIN skillgate.delivery_pace o ON o.scope = 'chat' AND o.key = v.chat_key
        WHERE v.chat_key IS NOT NULL
       ON CONFLICT (scope, key) DO UPDATE SET tat = EXCLUDED.tat, not_before = EXCLUDED.not_before
       RETURNING key, not_before
     )
     SELECT v.id::text AS id, EXISTS (SELECT 1 FROM s WHERE s.id = v.id) AS ours,
            (SELECT max(p.not_before) FROM p WHERE p.key = v.chat_key) AS not_before
       FROM v`,
    [
      now.map((m) => m.id),
      now.map((m) => m.owner),
      now.map((m) => JSON.stringify(m.messageIds)),
      now.map((m) => iso(m.nowMs)),
      now.map((m) => m.pace?.chatKey ?? null),
      now.map((m) => m.pace?.stepMs ?? null),
      now.map((m) => m.pace?.toleranceMs ?? null),
      now.map((m) => m.resolution ?? null),
    ],
  );
  const byId = new Map(rows.map((r) => [r.id, { ours: r.ours, notBeforeMs: r.not_before ? new Date(r.not_before).getTime() : 0 }]));
  const out = marks.map((m) => byId.get(m.id));
  for (const i of later) out[i] = (await markSentMany(q, [marks[i]!]))[0];
  return out.map((r) => r ?? { ours: false, notBeforeMs: 0 });
}

/**
 * Store that the platform answered an account with 429: nothing of `key` (`<channel>:<account>`)
 * before `notBeforeMs` (the later of this and a stored pause wins), and the adaptive rate set
 * then (src/outbox/pacing.ts), for every replica.
 */
export async function recordAccountPause(
  q: Queryable,
  key: string,
  notBeforeMs: number,
  rate: { perSecond: number; sinceMs: number } | null,
): Promise<void> {
  await q.query(
    `INSERT INTO skillgate.delivery_pace AS d (scope, key, tat, not_before, rate_per_s, rate_since)
     VALUES ('account', $1, $2::timestamptz, $2::timestamptz, $3, $4::timestamptz)
     ON CONFLICT (scope, key) DO UPDATE
       SET not_before = GREATEST(d.not_before, EXCLUDED.not_before), tat = GREATEST(d.tat, EXCLUDED.tat),
           rate_per_s = EXCLUDED.rate_per_s, rate_since = EXCLUDED.rate_since`,
    [key, iso(notBeforeMs), rate?.perSecond ?? null, rate ? iso(rate.sinceMs) : null],
  );
}

/**
 * Record a failed attempt with the platform's error: `queued` again, due at `retryAtMs`, or
 * `failed` for good when `retryAtMs` is null. `progress` (a multi-part message that failed
 * mid-way, src/channel/parts.ts): the parts delivered so far, earlier attempts included, and
 * the ids this attempt produced — stored so the retry resumes after them. `ambiguity`: an
 * unknown outcome to mark, or how a pending one ended (docs/operations-delivery.md "Unknown outcomes").
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
  ambiguity?: AttemptAmbiguity,
): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.outbox_messages
        SET status = CASE WHEN $5::timestamptz IS NULL THEN 'failed' ELSE 'queued' END,
            next_attempt_at = COALESCE($5::timestamptz, next_attempt_at),
            last_error = $3, error_code = $4, lease_owner = NULL, lease_until = NULL,
            ambiguity = CASE WHEN $8::int IS NOT NULL THEN 'pending'
                             WHEN ambiguity = 'pending' AND $9::text IS NOT NULL
                                  AND GREATEST(parts_done, COALESCE($6::int, 0)) > ambiguous_part THEN $9::text
                             ELSE ambiguity END,
            ambiguous_part = COALESCE($8::int, ambiguous_part),
            ambiguous_attempts = ambiguous_attempts + CASE WHEN $8::int IS NOT NULL THEN 1 ELSE 0 END,
            parts_done = GREATEST(parts_done, COALESCE($6::int, 0)),
            platform_message_ids = CASE WHEN $7::jsonb = '[]'::jsonb THEN platform_message_ids
                                        ELSE COALESCE(platform_message_ids, '[]'::jsonb) || $7::jsonb END
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'sending'`,
    [
      id,
      owner,
      processSecrets().scrub(error),
      code,
      retryAtMs === null ? null : iso(retryAtMs),
      progress?.partsDone ?? null,
      JSON.stringify(progress?.messageIds ?? []),
      ambiguity?.unknownPart ?? null,
      ambiguity?.resolution ?? null,
    ],
  );
  return res.rowCount > 0;
}

/** The unknown-outcome bookkeeping of a failed attempt (migration 0037). */
export interface AttemptAmbiguity {
  /** This attempt left part `unknownPart` unknown (it may have reached the platform): the row becomes `pending`. */
  unknownPart?: number | null;
  /** How a `pending` part ends when this attempt got past it (see {@link AmbiguityResolution}). */
  resolution?: AmbiguityResolution | null;
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
