/**
 * Group commit of inbox events (docs/pipeline.md "Group commit"): events received while an
 * earlier INSERT is on its way to the database are stored together, in one statement and one
 * commit, with each row decided exactly as {@link insertEvent} decides it alone — the chat's lock
 * and head, the sender's flood window, the take, the NOTIFY of a row left `received`.
 *
 * At low load nothing waits: an event finds no statement in flight and goes at once. A batch
 * holds at most one event per chat and per sender (each sees the ones committed before it, as
 * alone); a later one of the same chat or sender waits for the next batch, so a chat's events
 * keep their order. Rows go in chat-key order, so two batches take chat locks in one order.
 * When a batch fails whole (another process took one of its chats, a deadlock with a replica),
 * each of its events is stored alone, as before.
 */
import type { InboundMessage } from '../channel/types.ts';
import type { Queryable } from '../store/db.ts';
import { createBatcher } from '../channel/batch.ts';
import { insertEvent, type SenderLimit, type StoredEvent } from './store.ts';

/** Most events in one statement. */
const MAX_BATCH = 64;

/** One event to store (the arguments of {@link insertEvent}). */
export interface PendingEvent {
  msg: InboundMessage;
  /** `JSON.stringify(msg)` when the caller has it (stringified once). */
  payload?: string;
  chatKey: string;
  nowMs: number;
  claim?: { owner: string; leaseMs: number };
  flood?: SenderLimit;
}

/** Stores events, grouping those that arrive together. */
export interface EventWriter {
  /** As {@link insertEvent}: the stored event, or null for a duplicate. @throws the database error. */
  insert(event: PendingEvent): Promise<StoredEvent | null>;
}

/** One event's outcome inside a batch: a failure of one event alone is its own. */
type Outcome = { stored: StoredEvent | null } | { error: unknown };

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The batch statement: `$1` a json array with one object per event (`ord`: its place), decided
 * as the single INSERT decides it. One json parameter, not eleven arrays: pg escapes every
 * array element in JavaScript, while the payload, already JSON text, goes in as it is.
 */
const INSERT_BATCH = `WITH r AS (
       SELECT * FROM json_to_recordset($1::json)
         AS r(channel text, account text, dedupe_key text, chat_key text, payload jsonb, received_at timestamptz,
              owner text, lease_until timestamptz, per_minute int, sender text, since timestamptz, ord int)),
     w AS (
       SELECT r.ord, COALESCE(c.taken >= r.per_minute, false) AS over, COALESCE(c.refused, 0) AS refused_before
         FROM r LEFT JOIN LATERAL (
           SELECT s.taken, s.refused FROM skillgate.inbox_sender_window(r.channel, r.account, r.sender, r.since) s
            WHERE r.per_minute IS NOT NULL) c ON true),
     ins AS (
       INSERT INTO skillgate.inbox_events
              (channel, account, dedupe_key, chat_key, payload, received_at, next_attempt_at,
               status, lease_owner, lease_until, attempts, processed_at, error)
       SELECT r.channel, r.account, r.dedupe_key, r.chat_key, r.payload, r.received_at, r.received_at,
              CASE WHEN w.over THEN 'refused' WHEN h.head THEN 'processing' ELSE 'received' END,
              CASE WHEN h.head THEN r.owner END,
              CASE WHEN h.head THEN r.lease_until END,
              CASE WHEN h.head THEN 1 ELSE 0 END,
              CASE WHEN w.over THEN r.received_at END,
              CASE WHEN w.over THEN 'over the per-sender message limit' END
         FROM r JOIN w ON w.ord = r.ord
         CROSS JOIN LATERAL (
           SELECT CASE WHEN w.over THEN false
                       ELSE skillgate.inbox_lock_head(r.chat_key) AND r.owner IS NOT NULL END AS head) h
       ON CONFLICT (channel, account, dedupe_key) DO NOTHING
       RETURNING channel, account, dedupe_key, id::text AS id, status = 'processing' AS claimed, status = 'refused' AS refused,
                 CASE WHEN status = 'received' AND $2::text IS NOT NULL THEN pg_notify($2::text, id::text) END AS notified)
     SELECT ins.channel, ins.account, ins.dedupe_key, ins.id, ins.claimed, ins.refused, w.refused_before
       FROM ins JOIN r ON r.channel = ins.channel AND r.account = ins.account AND r.dedupe_key = ins.dedupe_key
       JOIN w ON w.ord = r.ord`;

/** `$1` of {@link INSERT_BATCH}: the events' rows as JSON text, each payload spliced in as it is. */
function batchRows(sorted: readonly PendingEvent[]): string {
  const rows = sorted.map((e, ord) => {
    const head = JSON.stringify({
      channel: e.msg.channel,
      account: e.msg.account,
      dedupe_key: e.msg.dedupe_key,
      chat_key: e.chatKey,
      received_at: iso(e.nowMs),
      owner: e.claim?.owner ?? null,
      lease_until: e.claim ? iso(e.nowMs + e.claim.leaseMs) : null,
      per_minute: e.flood?.perMinute ?? null,
      sender: e.flood?.senderId ?? null,
      since: e.flood ? iso(e.nowMs - e.flood.windowMs) : null,
      ord,
    });
    return `${head.slice(0, -1)},"payload":${e.payload ?? JSON.stringify(e.msg)}}`;
  });
  return `[${rows.join(',')}]`;
}

const identity = (channel: string, account: string, dedupeKey: string): string => `${channel}\u0000${account}\u0000${dedupeKey}`;

/** What a batch holds one of: the chat, the sender under flood control, the event itself. */
function keysOf(e: PendingEvent): string[] {
  const keys = [`c\u0000${e.chatKey}`, `e\u0000${identity(e.msg.channel, e.msg.account, e.msg.dedupe_key)}`];
  if (e.flood) keys.push(`s\u0000${e.msg.channel}\u0000${e.msg.account}\u0000${e.flood.senderId}`);
  return keys;
}

type BatchRow = {
  channel: string;
  account: string;
  dedupe_key: string;
  id: string;
  claimed: boolean;
  refused: boolean;
  refused_before: number;
};

/**
 * A writer over `db` with at most `inFlight` statements at a time (the embedded engine runs one
 * statement at a time anyway: 1; a server: a few, so batches overlap their round trips).
 * `gather`: wait for the end of the event loop's turn before sending, so the events read in one
 * turn go together — for the embedded engine, whose statements run on this thread and so are
 * rarely in flight when the next event arrives. `notifyChannel` as in {@link insertEvent}.
 */
export function createEventWriter(db: Queryable, opts: { inFlight: number; notifyChannel?: string; gather?: boolean }): EventWriter {
  const alone = async (e: PendingEvent): Promise<Outcome> => {
    try {
      return { stored: await insertEvent(db, e.msg, e.chatKey, e.nowMs, e.claim, opts.notifyChannel, e.flood, e.payload) };
    } catch (error) {
      return { error };
    }
  };

  const together = async (events: PendingEvent[]): Promise<Outcome[]> => {
    if (events.length === 1) return [await alone(events[0]!)];
    // Chat-key order: two batches take their chats' locks in one order.
    const order = events
      .map((e, i) => i)
      .sort((a, b) => (events[a]!.chatKey < events[b]!.chatKey ? -1 : events[a]!.chatKey > events[b]!.chatKey ? 1 : 0));
    const sorted = order.map((i) => events[i]!);
    let rows: BatchRow[];
    try {
      rows = (await db.query<BatchRow>(INSERT_BATCH, [batchRows(sorted), opts.notifyChannel ?? null])).rows;
    } catch {
      // Nothing of the batch was stored: each event alone, with the single statement's own handling.
      return Promise.all(events.map(alone));
    }
    const byId = new Map(rows.map((r) => [identity(r.channel, r.account, r.dedupe_key), r]));
    return events.map((e) => {
      const r = byId.get(identity(e.msg.channel, e.msg.account, e.msg.dedupe_key));
      return { stored: r ? { id: r.id, claimed: r.claimed, refused: r.refused, refusedBefore: Number(r.refused_before ?? 0) } : null };
    });
  };

  const batcher = createBatcher<PendingEvent, Outcome>(together, {
    max: MAX_BATCH,
    inFlight: opts.inFlight,
    gather: opts.gather ?? false,
    keysOf,
  });

  return {
    async insert(event) {
      const outcome = await batcher.submit(event);
      if ('error' in outcome) throw outcome.error;
      return outcome.stored;
    },
  };
}
