/**
 * Public shapes of the outbox ("every outbound message persisted first, delivered
 * with retries and exponential backoff that honour the platform's `retry_after`, per-chat
 * order kept, a per-channel rate limit, permanent failures recorded and logged with the
 * platform's error"; docs/messaging.md send_message `sent` / `queued`).
 */
import type { ChannelAdapter, OutboundMessage, OutboundTarget } from '../channel/types.ts';
import type { Logger } from '../log/logger.ts';
import type { Queryable } from '../store/db.ts';
import type { SqlWrite } from '../store/sql-write.ts';
import type { ChannelPolicy, RateLimit } from './pacing.ts';

/**
 * Row states: queued → sending → sent | failed (back to queued on a retryable failure);
 * `discarded`: a failed row an operator dropped in the console (src/outbox/admin.ts).
 */
export type OutboxStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'discarded';

/** One message to enqueue. */
export interface OutboxItem {
  target: OutboundTarget;
  message: OutboundMessage;
  /** A repeated enqueue with the same key returns the first row's id and stores nothing. */
  idempotency_key?: string;
  /** Where it came from, e.g. `{ inbox_event_id, turn }` (plain JSON). */
  origin?: Record<string, unknown>;
}

/** One stored message. */
export interface OutboxRecord {
  /** Row id (bigint as a decimal string). */
  id: string;
  idempotency_key: string | null;
  channel: string;
  account: string;
  chat_key: string;
  target: OutboundTarget;
  message: OutboundMessage;
  status: OutboxStatus;
  /** Send attempts started so far. */
  attempts: number;
  /** Not sent before this time (retry wait). */
  next_attempt_at: Date;
  /** The platform's error text / code of the last failed attempt (kept after success). */
  last_error: string | null;
  error_code: string | null;
  /** Platform message ids of the parts delivered (all of them once `sent`). */
  platform_message_ids: string[] | null;
  /** Parts of a multi-part message delivered by earlier attempts (src/channel/parts.ts); 0 before any. */
  parts_done: number;
  origin: Record<string, unknown> | null;
  created_at: Date;
  sent_at: Date | null;
  /**
   * Unknown send outcomes (migration 0037; docs/operations-delivery.md "Unknown outcomes"):
   * null never; `pending` part {@link OutboxRecord.ambiguous_part} may or may not have reached
   * the platform; `resolved_by_key` resent under the platform's idempotency key;
   * `resent_with_marker` resent with the visible marker (no key on that platform).
   */
  ambiguity: 'pending' | 'resolved_by_key' | 'resent_with_marker' | null;
  /** The part index of the last unknown outcome (null: none). */
  ambiguous_part: number | null;
  /** Attempts that ended with an unknown outcome. */
  ambiguous_attempts: number;
}

/** What the outbox tells its observer when a message reaches a final state. */
export interface OutboxStatusInfo {
  id: string;
  account: string;
  attempts: number;
  /** The platform's error (failed only). */
  error?: string;
  code?: string | null;
}

/** A clock the outbox reads and sleeps on (tests inject a fake one). */
export interface OutboxClock {
  /** ms since the epoch */
  now(): number;
  /** resolve after `ms` of this clock */
  sleep(ms: number): Promise<void>;
}

/** Options of `createOutbox`. */
export interface OutboxOptions {
  log: Logger;
  /** The adapter of a channel account; undefined = the channel is off (the message fails). */
  adapterFor: (channel: string, account: string) => ChannelAdapter | undefined;
  /** Default: the wall clock with setTimeout. */
  clock?: OutboxClock;
  /** Names this sender in `lease_owner` (default `<host>:<pid>:<random>`). */
  instanceId?: string;
  /** Send attempts of one message before it fails for good (default 8). */
  maxAttempts?: number;
  /** First retry delay, ms (default 1000; doubles per attempt with jitter). */
  baseDelayMs?: number;
  /** Longest retry delay from backoff, ms (default 300000; a longer platform `retry_after` still wins). */
  maxDelayMs?: number;
  /**
   * Operator ceilings per channel (every account of it), sends/s per process; off by default
   * (src/outbox/pacing.ts). `ceilingOf` wins where it answers.
   */
  rateLimits?: Record<string, RateLimit>;
  /** The operator's ceiling of one account (`max_sends_per_s`, see `operatorCeilings`), if any. */
  ceilingOf?: (channel: string, account: string) => RateLimit | undefined;
  /** Flood-control policies per channel (default `CHANNEL_POLICIES`: what each platform documents). */
  policies?: Readonly<Record<string, ChannelPolicy>>;
  /** Look for due messages this often when nothing wakes the loop, ms (default 1000). */
  pollMs?: number;
  /** Messages taken per pass and sent at once (different chats), default 16. */
  batchSize?: number;
  /** How long a taken message stays reserved, ms (default 60000): a sender that dies mid-send is replaced after it. */
  leaseMs?: number;
  /** Jitter source in [0,1) (default Math.random). */
  random?: () => number;
  /** Observes final states (metrics: messages out per channel, permanent failures). */
  onStatus?: (channel: string, status: 'sent' | 'failed', info: OutboxStatusInfo) => void;
  /**
   * Observes unknown send outcomes (metrics): `unknown` when an attempt's part may or may not
   * have reached the platform, then `resolved_by_key` / `resent_with_marker` when a resend got
   * past it (docs/operations-delivery.md "Unknown outcomes").
   */
  onAmbiguous?: (channel: string, event: 'unknown' | 'resolved_by_key' | 'resent_with_marker') => void;
  /** Observes typing / progress dropped for a held chat (metrics; see {@link Outbox.quiet}). */
  onSuppressed?: (channel: string, kind: 'typing' | 'progress') => void;
}

/**
 * The inbox event whose turn these messages end (src/inbox): its done mark commits in the same
 * statement as the messages, so a reply and "this event is handled" are never apart.
 */
export interface CompletesEvent {
  /** The inbox row id. */
  inboxEventId: string;
  /** The lease owner that holds it; no done mark when the lease is no longer theirs. */
  leaseOwner: string;
  /** Another write committed with the messages and the done mark (the turn's audit rows). */
  alongside?: SqlWrite;
}

/** The durable outbound queue of one gateway process. */
export interface Outbox {
  /**
   * Store messages in order, inside the caller's transaction when `q` is a Tx (one transaction
   * of its own when `q` is the Db). Delivery starts after commit.
   * @returns the row ids in item order (an existing row's id for a repeated idempotency key)
   * @throws the database error (nothing of this call is stored when it ran in one transaction)
   */
  enqueue(q: Queryable, items: OutboxItem[]): Promise<string[]>;
  /**
   * {@link Outbox.enqueue} with the Db, and the done mark of `completes` committed with the
   * messages (one statement for one message). @returns the ids, and whether the done mark took
   * effect (false: the lease was lost, or the messages were stored before — a repeated turn)
   * @throws the database error (nothing stored, nothing marked)
   */
  enqueueFinal(items: OutboxItem[], completes: CompletesEvent): Promise<{ ids: string[]; completed: boolean }>;
  /** Start the delivery loop (woken by enqueue / NOTIFY `skillgate_outbox`, else every pollMs). */
  start(): void;
  /** Stop the loop; a send in flight finishes and is recorded first. */
  stop(): Promise<void>;
  /**
   * One delivery pass: take the due head message of each chat (up to batchSize) that flood
   * control lets go, wait for the account's pace, send, record; resolves when those are
   * recorded. @returns how many messages were attempted
   */
  deliverDue(): Promise<number>;
  /** The stored message, or undefined. */
  get(id: string): Promise<OutboxRecord | undefined>;
  /**
   * Wait up to `timeoutMs` (outbox clock) for the message to reach a final state (docs/configuration.md
   * §10 send_message). @returns `sent`, `failed` (also for a discarded row), or `queued` when still
   *   pending at the deadline
   * @throws Error when no message has this id
   */
  waitFor(id: string, timeoutMs: number): Promise<'sent' | 'failed' | 'queued'>;
  /** Messages not yet sent or failed (`queued` + `sending`), for the backlog gauge. */
  backlog(): Promise<number>;
  /**
   * ms the chat of `target` still waits out a platform's `retry_after` (0 = not held), as this
   * process saw it (docs/operations-delivery.md "Flood control").
   */
  heldFor(target: Pick<OutboundTarget, 'channel' | 'account' | 'chat_id' | 'thread_id'>): number;
  /** `adapter` whose `typing` / `progress` are dropped for held chats (reported to `onSuppressed`). */
  quiet<A extends ChannelAdapter>(adapter: A): A;
}
