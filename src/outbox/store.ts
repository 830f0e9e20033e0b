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
export function paceFree(chat: string, channel: string, account: string, now: string, target: string, origin: string): string {
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
 * row is stored `queued`.
 *
 * `ahead` says the new row was stored `queued` behind an unfinished row of its chat (in the
 * statement's snapshot): whoever finishes that row takes this one next (src/outbox/outbox.ts),
 * so it needs no wake-up. With `notifyChannel`, a `queued` row that is its chat's head is
 * announced in the statement; with `notifyBehind` too, every `queued` row (a caller's
 * transaction, whose commit this process does not see).
 */
export async function insertMessage(
  q: Queryable,
  item: OutboxItem,
  nowMs: number,
  claim?: InsertClaim,
  notifyChannel?: string,
  completes?: CompletesEvent,
  notifyBehind = false,
): Promise<InsertedMessage> {
  try {
    return await insertMessageOnce(q, item, nowMs, claim, notifyChannel, completes, notifyBehind);
  } catch (err) {
    // Another process took the chat's head at the same moment (migration 0030): store it queued.
    if (!claim || !isChatTaken(err)) throw err;
    return insertMessageOnce(q, item, nowMs, undefined, notifyChannel, completes, notifyBehind);
  }
}

/** What {@link insertMessage} stored: the id, the row when taken in its INSERT, and whether it waits behind another. */
export interface InsertedMessage {
  id: string;
  claimed: OutboxRecord | null;
  completed: boolean;
  /** Stored `queued` behind an unfinished row of its chat (false for a row taken, or a repeated idempotency key). */
  ahead: boolean;
}

async function insertMessageOnce(
  q: Queryable,
  item: OutboxItem,
  nowMs: number,
  claim?: InsertClaim,
  notifyChannel?: string,
  completes?: CompletesEvent,
  notifyBehind = false,
): Promise<InsertedMessage> {
  const row = storableRow(item);
  const { target: t, key, chatKey } = row;
  const { rows } = await q.query<{ id: string | null; status: OutboxStatus | null; ahead: boolean | null; completed?: boolean }>(
    insertSql(completes, notifyBehind),
    [
      key,
      t.channel,
      t.account,
      chatKey,
      row.targetJson,
      row.messageJson,
      row.originJson,
      iso(nowMs),
      claim?.owner ?? null,
      claim ? iso(nowMs + claim.leaseMs) : null,
      notifyChannel ?? null,
      ...(completes ? [completes.inboxEventId, completes.leaseOwner, ...(completes.alongside?.params ?? [])] : []),
    ],
  );
  const completed = rows[0]?.completed === true;
  const id = rows[0]?.id;
  if (id) {
    const claimed = rows[0]!.status === 'sending' ? claimedRecord(id, row, nowMs) : null;
    return { id, claimed, completed, ahead: rows[0]!.ahead === true };
  }
  return { id: await idOfKey(q, key), claimed: null, completed, ahead: false };
}

/**
 * The id of the row stored under idempotency key `key` (one whose INSERT conflicted).
 * @throws Error when there is none
 */
export async function idOfKey(q: Queryable, key: string | null): Promise<string> {
  const existing = await q.query<{ id: string }>('SELECT id::text AS id FROM skillgate.outbox_messages WHERE idempotency_key = $1', [key]);
  if (!existing.rows[0]) throw new Error(`outbox: idempotency key ${JSON.stringify(key)} conflicted but no row was found`);
  return existing.rows[0].id;
}

/** A message as its row stores it: storable copies and their JSON texts, made once. */
export interface StorableRow {
  target: OutboxItem['target'];
  key: string | null;
  chatKey: string;
  message: OutboxItem['message'];
  origin: Record<string, unknown> | null;
  targetJson: string;
  messageJson: string;
  originJson: string | null;
}

/**
 * The storable form of `item`: NUL / lone surrogates (a hostile event's chat id, a skill echoing
 * one) cannot be stored in jsonb/text (src/channel/storable.ts); secret values are scrubbed from
 * the message (src/log/secret-values.ts), walked only when its JSON may hold one.
 */
export function storableRow(item: OutboxItem): StorableRow {
  const target = storableCopy(item.target);
  const key = item.idempotency_key === undefined || item.idempotency_key === null ? null : storableText(item.idempotency_key);
  let { value: message, json: messageJson } = storableJson(item.message);
  if (processSecrets().mayHold(messageJson)) {
    message = storableCopy(processSecrets().scrubValues(item.message));
    messageJson = JSON.stringify(message);
  }
  const origin = item.origin ? storableCopy(item.origin) : null;
  return {
    target,
    key,
    chatKey: targetChatKey(target),
    message,
    origin,
    targetJson: JSON.stringify(target),
    messageJson,
    originJson: origin === null ? null : JSON.stringify(origin),
  };
}

/**
 * A row taken in its INSERT, as it was written: built from the stored values, not read back
 * (nothing downstream changes a row's target or message).
 */
export function claimedRecord(id: string, row: StorableRow, nowMs: number): OutboxRecord {
  return {
    id,
    idempotency_key: row.key,
    channel: row.target.channel,
    account: row.target.account,
    chat_key: row.chatKey,
    target: row.target,
    message: row.message,
    status: 'sending',
    attempts: 1,
    next_attempt_at: new Date(nowMs),
    last_error: null,
    error_code: null,
    platform_message_ids: null,
    origin: row.origin,
    created_at: new Date(nowMs),
    sent_at: null,
    parts_done: 0,
    ambiguity: null,
    ambiguous_part: null,
    ambiguous_attempts: 0,
  };
}

/** SQL: the inserted row `o` waits behind an unfinished row of its chat (the statement's snapshot). */
export const AHEAD = `(o.status = 'queued' AND EXISTS (
               SELECT 1 FROM skillgate.outbox_messages p
                WHERE p.chat_key = o.chat_key AND p.id < o.id AND p.status IN ('queued', 'sending')))`;

/** The INSERT of {@link insertMessageOnce}; `notifyBehind`: announce rows stored behind another too. */
function plainInsertSql(notifyBehind: boolean): string {
  return `INSERT INTO skillgate.outbox_messages AS o
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
     RETURNING o.id::text AS id, o.status, ${AHEAD} AS ahead,
               CASE WHEN o.status = 'queued' AND $11::text IS NOT NULL${notifyBehind ? '' : ` AND NOT ${AHEAD}`}
                    THEN pg_notify($11::text, o.id::text) END AS notified`;
}
const INSERT_SQL = plainInsertSql(false);
const INSERT_SQL_NOTIFY_ALL = plainInsertSql(true);
const completingSql = new Map<SqlWrite['sql'] | null, string>();

function insertSql(completes: CompletesEvent | undefined, notifyBehind: boolean): string {
  if (!completes) return notifyBehind ? INSERT_SQL_NOTIFY_ALL : INSERT_SQL;
  const side = completes.alongside?.sql ?? null;
  let sql = completingSql.get(side);
  if (sql === undefined) {
    // With `completes` (always the outbox's own commit): the done mark of the inbox event this
    // message ends, in the same statement (as src/inbox/store.ts markDone); one row comes back
    // also when the INSERT conflicted.
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
       SELECT ins.id, ins.status, ins.ahead, ins.notified, EXISTS (SELECT 1 FROM done) AS completed FROM (SELECT 1) one LEFT JOIN ins ON true`;
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
 * The UPDATE that takes the rows `picked` selects (SQL selecting ids; `$1` owner, `$2` now,
 * `$3` lease end): `sending` under the lease, one more attempt, and the account's shared
 * flood-control state returned with each row.
 */
function takeSql(picked: string, recursive = ''): string {
  return `${recursive}UPDATE skillgate.outbox_messages m
        SET status = 'sending', lease_owner = $1, lease_until = $3::timestamptz, attempts = m.attempts + 1,
            -- Taken over from a sender whose lease expired mid-send: its part may have gone out.
            ambiguity = CASE WHEN m.status = 'sending' THEN 'pending' ELSE m.ambiguity END,
            ambiguous_part = CASE WHEN m.status = 'sending' THEN m.parts_done ELSE m.ambiguous_part END,
            ambiguous_attempts = m.ambiguous_attempts + CASE WHEN m.status = 'sending' THEN 1 ELSE 0 END
      WHERE m.id IN (${picked})
        AND (m.status = 'queued' OR m.lease_until <= $2::timestamptz)
      RETURNING ${COLUMNS},
        (SELECT d.rate_per_s FROM skillgate.delivery_pace d WHERE d.scope = 'account' AND d.key = m.channel || ':' || m.account) AS pace_rate_per_s,
        (SELECT d.rate_since FROM skillgate.delivery_pace d WHERE d.scope = 'account' AND d.key = m.channel || ':' || m.account) AS pace_rate_since`;
}

/** SQL: head row `h` may be taken at `$2`: due (or its sender's lease expired) and not held by flood control. */
const TAKEABLE = `h.status IN ('queued', 'sending')
           AND ((h.status = 'queued' AND h.next_attempt_at <= $2::timestamptz)
             OR (h.status = 'sending' AND h.lease_until <= $2::timestamptz))
           AND ${paceFree('h.chat_key', 'h.channel', 'h.account', '$2::timestamptz', 'h.target', 'h.origin')}`;

/**
 * The general pass: the head (lowest unfinished id) of every chat, one probe per chat of
 * `outbox_messages_unfinished_idx (chat_key, id)` (a loose index scan), so a backlog queued
 * behind heads in flight costs nothing here; the takeable ones, oldest first.
 */
const CLAIM_SQL = takeSql(
  `SELECT h.id FROM skillgate.outbox_messages h
         WHERE h.id = ANY (ARRAY (SELECT heads.id FROM heads)) -- one lookup per head, never a walk of the ids between them
           AND ${TAKEABLE}
         ORDER BY h.id
         LIMIT $4
         FOR UPDATE OF h SKIP LOCKED`,
  `WITH RECURSIVE heads (chat_key, id) AS (
        (SELECT u.chat_key, u.id FROM skillgate.outbox_messages u
          WHERE u.status IN ('queued', 'sending') ORDER BY u.chat_key, u.id LIMIT 1)
        UNION ALL
        SELECT n.chat_key, n.id FROM heads,
               LATERAL (SELECT u.chat_key, u.id FROM skillgate.outbox_messages u
                         WHERE u.status IN ('queued', 'sending') AND u.chat_key > heads.chat_key
                         ORDER BY u.chat_key, u.id LIMIT 1) n)
     `,
);

/**
 * One chat's head, `$4` the chat key: one probe of `outbox_messages_unfinished_idx`, the first
 * entry at or after the chat (the range keeps the planner off the id-ordered index, whose walk
 * to a chat's first row costs the rows of other chats before it), kept when it is the chat's.
 */
const CLAIM_CHAT_SQL = takeSql(
  `SELECT h.id FROM skillgate.outbox_messages h
         WHERE h.id = (SELECT u.id FROM skillgate.outbox_messages u
                        WHERE u.chat_key >= $4 AND u.status IN ('queued', 'sending') ORDER BY u.chat_key, u.id LIMIT 1)
           AND h.chat_key = $4
           AND ${TAKEABLE}
         FOR UPDATE OF h SKIP LOCKED`,
);

/**
 * Take up to `limit` due messages for `owner`: the head (lowest id) of each chat's unsent
 * messages, when `queued` and due, or `sending` with an expired lease (a sender that died),
 * and neither its chat nor its account held back by flood control (src/outbox/pacing.ts).
 * `FOR UPDATE SKIP LOCKED` + lease: two replicas never send the same row at once.
 * Costs one index probe per chat with unfinished rows, however many wait behind the heads.
 * @returns the rows taken, in id order
 */
export async function claimMessages(q: Queryable, owner: string, nowMs: number, leaseMs: number, limit: number): Promise<ClaimedRecord[]> {
  return claimOnceMore(async () => {
    const { rows } = await q.query<ClaimedRecord>(CLAIM_SQL, [owner, iso(nowMs), iso(nowMs + leaseMs), limit]);
    return rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }, []);
}

/**
 * {@link claimMessages} for one chat (`chatKey`, src/channel/chat-key.ts): its head when
 * takeable under the same rules, or null (none, not due, held back, or taken by another
 * process). A head locked by another taker is skipped, never the row behind it.
 */
export async function claimChatHead(
  q: Queryable,
  owner: string,
  chatKey: string,
  nowMs: number,
  leaseMs: number,
): Promise<ClaimedRecord | null> {
  return claimOnceMore(async () => {
    const { rows } = await q.query<ClaimedRecord>(CLAIM_CHAT_SQL, [owner, iso(nowMs), iso(nowMs + leaseMs), chatKey]);
    return rows[0] ?? null;
  }, null);
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
