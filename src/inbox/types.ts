/**
 * Public shapes of the inbox ("persist every inbound event with a unique dedup key
 * before acknowledging, process asynchronously, resume unprocessed events after a restart").
 */
import type { InboundMessage } from '../channel/types.ts';
import type { Logger } from '../log/logger.ts';
import type { FloodControl } from './flood.ts';
import type { StartedCall } from './store.ts';

export type { StartedCall };

/**
 * One stored inbound event, as handed to the handler. `P` is what the intake made of the
 * message (the parsed text), carried in memory when this process took the event as it stored
 * it; absent when the event was read back from the table.
 */
export interface InboxEvent<P = unknown> {
  /** What {@link Inbox.receive} was given with the message, when this process stored it. */
  parsed?: P;
  /** The row id (bigint as a decimal string). */
  id: string;
  /** The InboundMessage exactly as {@link Inbox.receive} got it. */
  message: InboundMessage;
  /** `<channel>:<account>:<chat id>[:<thread id>]` (see `chatKey`). */
  chat_key: string;
  /** Runs of this event started so far, this one included (1 on the first run). */
  attempts: number;
  /** When the inbox stored it (the inbox clock). */
  received_at: Date;
  /** The lease owner holding it: a handler that commits the done mark itself names it. */
  lease_owner: string;
  /**
   * The skill call an earlier run of this event had started when its process died (recorded
   * with {@link Inbox.markStarted}); absent when no run reached a non-idempotent skill.
   */
  interrupted?: StartedCall;
}

/**
 * What a handler reports: `completed` when it committed the event's done mark itself (with
 * its reply, `Outbox.enqueueFinal`), so the inbox writes no done mark of its own.
 */
export interface InboxOutcome {
  completed: boolean;
}

/** Handles one event; a throw is retried with backoff, then recorded as `failed`. */
export type InboxHandler<P = unknown> = (event: InboxEvent<P>) => Promise<void | InboxOutcome>;

/** Options of `createInbox`. */
export interface InboxOptions {
  log: Logger;
  /** Names this worker in `lease_owner` (default `<host>:<pid>:<random>`, unique per inbox). */
  instanceId?: string;
  /** How long a taken event stays reserved without renewal, ms (default 120000); renewed every third of it while the handler runs. */
  leaseMs?: number;
  /** Poll for due events this often when nothing wakes the worker, ms (default 1000). */
  pollMs?: number;
  /** Runs of one event before it is recorded `failed` (default 5). */
  maxAttempts?: number;
  /** First retry delay after a handler throw, ms (default 1000; doubles, capped at 60000). */
  retryBaseMs?: number;
  /** Wall clock, ms since the epoch (default Date.now); every stored time comes from it. */
  clock?: () => number;
  /** Jitter source in [0,1) (default Math.random). */
  random?: () => number;
  /** How long after the first item of an album is stored its other items are awaited, ms (default 1000; src/inbox/album.ts). */
  albumWaitMs?: number;
  /** Per-sender flood control (src/inbox/flood.ts); none by default. */
  flood?: FloodControl;
  /**
   * False while the inbox must take no new turns (memory pressure, src/inbox/pressure.ts):
   * events are still stored; waiting ones are taken at the next poll once it is true again.
   */
  admit?: () => boolean;
  /**
   * On a server: the messages whose row may be committed without waiting for the WAL flush and
   * taken at once, the acknowledgement waiting for a flush barrier instead (docs/pipeline.md
   * "Early start"); the turn starts one disk flush earlier. Absent: none (the row is flushed
   * before the turn starts). Not for channels where the user sees the acknowledgement's order
   * against the reply.
   */
  earlyStart?: (msg: InboundMessage) => boolean;
}

/** Options of {@link Inbox.start}. */
export interface InboxStartOptions {
  /** Events of different chats handled at once (default 4). */
  concurrency?: number;
}

/** Options of {@link Inbox.stop}. */
export interface InboxStopOptions {
  /**
   * Wait at most this long for running handlers, ms (default: until they finish). Handlers
   * still running then are abandoned: nothing is recorded for them and their leases are no
   * longer renewed; the next start of this data dir, or another replica once this one's
   * heartbeat stopped, takes the event over (docs/recovery.md).
   */
  graceMs?: number;
}

/** What {@link Inbox.stop} left. */
export interface InboxStopResult {
  /** Events abandoned at the end of the grace (their handlers still ran). */
  abandoned: string[];
}

/** The durable inbound queue of one gateway process. */
export interface Inbox<P = unknown> {
  /**
   * Store `msg` (one INSERT … ON CONFLICT DO NOTHING: atomic, also across processes).
   * @returns `accepted` when new, `duplicate` when (channel, account, dedupe_key) was stored before
   * @throws InboundRefusedError (src/channel/bounds.ts) when an identifier is over its bound (never stored)
   * @throws the database error when it could not be stored (the adapter then answers the platform
   *   with a retryable error so it redelivers)
   */
  receive(msg: InboundMessage, parsed?: P): Promise<'accepted' | 'duplicate'>;
  /** True when an event of `chatKey` is being processed by any process of this database. @throws the database error. */
  processing(chatKey: string): Promise<boolean>;
  /**
   * Start the workers: due events are taken (per chat strictly in receive order, one at a time;
   * different chats in parallel up to `concurrency`) and passed to `handler`. Events left by a
   * stopped or crashed process are resumed once their lease expired.
   * @throws Error when already started
   */
  start(handler: InboxHandler<P>, opts?: InboxStartOptions): void;
  /** Stop taking events and wait for running handlers (see {@link InboxStopOptions}). */
  stop(opts?: InboxStopOptions): Promise<InboxStopResult>;
  /**
   * Record that the run of `event` starts the skill call `call` (before a skill that does not
   * declare `idempotent: true`; docs/recovery.md). @returns false when the lease is no longer ours
   */
  markStarted(event: Pick<InboxEvent, 'id' | 'lease_owner'>, call: StartedCall): Promise<boolean>;
  /** Unfinished events (`received` or `processing`), for the backlog gauge. */
  backlog(): Promise<number>;
}
