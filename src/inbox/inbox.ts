/**
 * The inbox worker (durable inbound). `receive` stores an event before the adapter
 * acknowledges the platform; workers take due events from the table and run the turn handler,
 * per chat strictly in receive order and one at a time, different chats in parallel.
 *
 * Cross-process safety comes from the table alone: the dedup key is a UNIQUE constraint, a
 * worker takes an event with `FOR UPDATE SKIP LOCKED` and holds a lease (renewed while the
 * handler runs), and only the head of a chat's unfinished events can be taken. Wake-ups are
 * NOTIFY `skillgate_inbox` (in-process on the embedded engine) with a poll as the fallback.
 */
import { chatKeyOf } from '../channel/chat-key.ts';
import type { InboundMessage } from '../channel/types.ts';
import { storableJson } from '../channel/storable.ts';
import { inboundBoundsProblem, InboundRefusedError } from '../channel/bounds.ts';
import { absorbAlbum, ALBUM_WAIT_MS } from './album.ts';
import { createEventWriter } from './insert-batch.ts';
import { createFlushBarrier } from './flush-barrier.ts';
import { FLOOD_WINDOW_MS, floodCounted, floodNotice } from './flood.ts';
import type { Db } from '../store/db.ts';
import { defaultInstanceId } from '../store/instance-id.ts';
import { backoffMs } from '../outbox/backoff.ts';
import {
  chatIsProcessing,
  claimDue,
  countBacklog,
  type SenderLimit,
  type StoredEvent,
  markDoneAndClaim,
  markFailed,
  markStarted,
  releaseEvents,
  renewLease,
  type ClaimedRow,
} from './store.ts';
import type { Inbox, InboxEvent, InboxHandler, InboxOptions, InboxOutcome, InboxStartOptions, InboxStopOptions } from './types.ts';

/** The NOTIFY channel that wakes inbox workers. */
export const INBOX_CHANNEL = 'skillgate_inbox';

/** Inbox INSERT statements one process has on its way at once on a server (each may hold many events). */
const SERVER_INSERTS_IN_FLIGHT = 4;

/** How long a run's result is tried again while the database is away, ms (well inside the lease). */
const RECORD_RETRY_MS = 60_000;
const RECORD_RETRY_FIRST_MS = 250;
const RECORD_RETRY_MAX_MS = 5000;

/** Longest retry delay after a handler throw, ms. */
const MAX_RETRY_MS = 60_000;

/** The chat key of an inbound message (src/channel/chat-key.ts). */
export const chatKey = chatKeyOf;

function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 2000);
}

/**
 * Create the inbox of one gateway process over `db` (migration 0006 applied).
 * Nothing runs until {@link Inbox.start}; `receive` works without it.
 */
export function createInbox<P = unknown>(db: Db, opts: InboxOptions): Inbox<P> {
  const log = opts.log;
  const owner = opts.instanceId ?? defaultInstanceId();
  const leaseMs = opts.leaseMs ?? 120_000;
  const pollMs = opts.pollMs ?? 1000;
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 5);
  const retryBaseMs = opts.retryBaseMs ?? 1000;
  const now = opts.clock ?? Date.now;
  // Events received together are stored together (src/inbox/insert-batch.ts).
  const writer = createEventWriter(db, {
    inFlight: db.engine === 'server' ? SERVER_INSERTS_IN_FLIGHT : 1,
    gather: db.engine !== 'server',
    notifyChannel: db.engine === 'server' ? INBOX_CHANNEL : undefined,
  });
  // Early start (docs/pipeline.md "Early start"): rows committed without the flush, taken at once,
  // acknowledged after a flush barrier; only on a server and for the channels the wiring names.
  const earlyStart = db.engine === 'server' ? opts.earlyStart : undefined;
  const relaxedWriter = earlyStart
    ? createEventWriter(db.relaxed, { inFlight: SERVER_INSERTS_IN_FLIGHT, gather: false, notifyChannel: INBOX_CHANNEL })
    : writer;
  const barrier = earlyStart ? createFlushBarrier(db) : undefined;
  const random = opts.random ?? Math.random;
  const albumWaitMs = Math.max(0, opts.albumWaitMs ?? ALBUM_WAIT_MS);

  let handler: InboxHandler<P> | undefined;
  /** What the intake made of messages this process took as it stored them, by event id. */
  const parsedOf = new Map<string, P>();
  let concurrency = 4;
  let running = false;
  let pumping = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  /** Running handlers by event id, with their lease renewal timers. */
  const inflight = new Map<string, { done: Promise<void>; renew: NodeJS.Timeout }>();
  /** Slots held by `receive` calls that may take their event in the INSERT. */
  let reserved = 0;
  /**
   * Events still running when a bounded stop gave up on them: nothing is recorded for them
   * (their lease stays, and the next start takes them over: docs/recovery.md).
   */
  const abandoned = new Set<string>();
  /** Running events whose done mark is written: their slots passed to the events it took. */
  const released = new Set<string>();
  /**
   * Set when events may wait for a slot (a NOTIFY, a row stored untaken, a poll); cleared when
   * a claim found fewer than it could take. A turn that finished with its own done mark looks
   * for the next event only while it is set: no claim statement when nothing waits.
   */
  let waiting = true;
  /** Counts the signals that set {@link waiting}, so a claim's answer never hides a later one. */
  let signals = 0;
  const signal = (): void => {
    signals++;
    waiting = true;
  };
  const admit = opts.admit ?? (() => true);
  const busy = (): number => inflight.size - released.size + reserved;

  const schedulePoll = (): void => {
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      signal();
      wake();
    }, pollMs);
    timer.unref();
  };

  /** Take as many due events as there are free slots; re-run when woken meanwhile. */
  async function pump(): Promise<void> {
    if (!running) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (running) {
          const free = admit() ? concurrency - busy() : 0;
          if (free <= 0) break;
          const seen = signals;
          const { rows, more } = await claimDue(db, owner, now(), leaseMs, free);
          // Events left waiting (behind a chat's running event, for a slot, or a retry time): a
          // finished turn then looks again; none left: it need not (see `waiting`).
          waiting = more || signals !== seen;
          if (!running) {
            await releaseEvents(
              db,
              rows.map((r) => r.id),
              owner,
            );
            break;
          }
          for (const row of rows) run(row);
          if (rows.length < free) break;
        }
      } while (again && running);
    } catch (err) {
      log.warn({ err: errorText(err) }, 'inbox: taking due events failed; retrying at the next poll');
    } finally {
      pumping = false;
      schedulePoll();
    }
  }

  function wake(): void {
    void pump();
  }

  function run(row: ClaimedRow): void {
    const renew = setInterval(
      () => {
        renewLease(db, row.id, owner, now() + leaseMs)
          .then((ours) => {
            if (!ours) log.warn({ event_id: row.id, chat_key: row.chat_key }, 'inbox: lease lost while the handler runs');
          })
          .catch((err: unknown) => log.warn({ event_id: row.id, err: errorText(err) }, 'inbox: lease renewal failed'));
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    const done = execute(row).then(
      (tookNext) => {
        clearInterval(renew);
        inflight.delete(row.id);
        released.delete(row.id);
        // The done mark took further events already (as many as were free); look again only when it filled them all.
        if (tookNext !== false) wake();
      },
      () => {
        clearInterval(renew);
        inflight.delete(row.id);
        released.delete(row.id);
        wake();
      },
    );
    inflight.set(row.id, { done, renew });
  }

  /**
   * Run one event and record the outcome. @returns false when the done mark looked for the next
   * due event and found none (no further look needed), else true
   */
  /**
   * Record a run's result, trying again while the database is away (a restart, a failover):
   * the event's chat would otherwise wait for the lease to expire although this process is
   * alive. Gives up (the lease then expires, as after a crash) after {@link RECORD_RETRY_MS} or
   * when the inbox stops. `again` is the write for the later tries (e.g. one that takes nothing:
   * a first try whose answer was lost may have taken events already).
   */
  async function record<T>(first: () => Promise<T>, again: () => Promise<T> = first): Promise<T> {
    const giveUpAt = now() + RECORD_RETRY_MS;
    let delay = RECORD_RETRY_FIRST_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await (attempt === 1 ? first() : again());
      } catch (err) {
        if (!running || now() + delay > giveUpAt) throw err;
        if (attempt === 1) log.warn({ err: errorText(err), retry_in_ms: delay }, 'inbox: recording a result failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(RECORD_RETRY_MAX_MS, delay * 2);
      }
    }
  }

  async function execute(row: ClaimedRow): Promise<boolean> {
    const ctx = { event_id: row.id, chat_key: row.chat_key, attempts: row.attempts };
    try {
      if (row.attempts > maxAttempts) {
        // Taken again after its runs kept ending without a result (a crash or a lost lease each time).
        const error = `abandoned: ${row.attempts - 1} runs ended without a result`;
        await markFailed(db, row.id, owner, error, now(), null);
        log.error(ctx, 'inbox: event failed for good (no run finished)');
        return true;
      }
      const parsed = parsedOf.get(row.id);
      parsedOf.delete(row.id);
      const event: InboxEvent<P> = {
        ...(parsed !== undefined ? { parsed } : {}),
        id: row.id,
        message: row.payload,
        chat_key: row.chat_key,
        attempts: row.attempts,
        received_at: row.received_at,
        lease_owner: owner,
        ...(row.started_call ? { interrupted: row.started_call } : {}),
      };
      let outcome: void | InboxOutcome;
      try {
        if (row.payload.media_group_id || row.payload.near_limit) {
          event.message = await absorbAlbum(db, {
            headId: row.id,
            owner,
            chatKey: row.chat_key,
            head: row.payload,
            receivedAt: new Date(row.received_at),
            nowMs: now,
            waitMs: albumWaitMs,
            sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          });
        }
        outcome = await handler!(event);
      } catch (err) {
        if (abandoned.has(row.id)) return true;
        const last = row.attempts >= maxAttempts;
        const retryAt = last ? null : now() + backoffMs(row.attempts, retryBaseMs, MAX_RETRY_MS, random);
        const ours = await record(() => markFailed(db, row.id, owner, errorText(err), now(), retryAt));
        if (last) log.error({ ...ctx, err }, 'inbox: handler failed; event failed for good');
        else log.warn({ ...ctx, err, retry_at: new Date(retryAt!).toISOString() }, 'inbox: handler failed; will retry');
        if (!ours) log.warn(ctx, 'inbox: lease was lost before the failure was recorded');
        return true;
      }
      if (abandoned.has(row.id)) return true;
      if (outcome?.completed) {
        // The handler's reply carried the done mark: take the next event only if some may wait.
        released.add(row.id);
        if (waiting && running) queueMicrotask(wake);
        return false;
      }
      // Done, and this event's slot refilled by the same statement (other free slots are the
      // pump's: two takers of one slot would exceed the concurrency).
      const free = running && admit() ? 1 : 0;
      const { done, claimed } = await record(
        () => markDoneAndClaim(db.relaxed, row.id, owner, now(), leaseMs, free),
        () => markDoneAndClaim(db.relaxed, row.id, owner, now(), leaseMs, 0),
      );
      released.add(row.id);
      if (!done) log.warn(ctx, 'inbox: lease was lost before the event was marked done');
      if (!running && claimed.length > 0) {
        await releaseEvents(
          db,
          claimed.map((r) => r.id),
          owner,
        );
        return true;
      }
      for (const next of claimed) run(next);
      return free === 0 || claimed.length >= free;
    } catch (err) {
      // The database failed while recording: the lease expires and the event is taken again.
      log.error({ ...ctx, err: errorText(err) }, 'inbox: recording the result failed');
      return true;
    }
  }

  /** What a stored (or duplicate) inbound row becomes: run here at once, or left to a worker. */
  async function afterStored(
    msg: InboundMessage,
    payload: string,
    key: string,
    stored: StoredEvent | null,
    receivedAt: number,
    parsed: P | undefined,
    limit: SenderLimit | undefined,
  ): Promise<'accepted' | 'duplicate'> {
    const flood = opts.flood;
    if (stored === null) return 'duplicate';
    if (stored.refused) {
      // Over the sender's limit: stored as refused (a redelivery stays a duplicate), never run.
      log.info({ chat_key: key, sender: msg.actor.id, per_minute: limit?.perMinute }, 'inbox: message over the per-sender limit refused');
      if (stored.refusedBefore === 0 && flood) await flood.notify(msg, floodNotice(msg.lang, flood.perMinute));
      return 'accepted';
    }
    if (stored.claimed) {
      const row: ClaimedRow = {
        id: stored.id,
        payload: JSON.parse(payload) as InboundMessage, // as a claim reads it back
        chat_key: key,
        attempts: 1,
        received_at: new Date(receivedAt),
        started_call: null,
      };
      if (running) {
        if (parsed !== undefined) parsedOf.set(row.id, parsed);
        run(row);
      } else
        await releaseEvents(db, [row.id], owner).catch((err: unknown) =>
          log.warn({ err: errorText(err) }, 'inbox: giving back an event failed'),
        );
      if (running) return 'accepted';
    }
    // The row is committed: wake this process now and other replicas through NOTIFY (sent by
    // the INSERT on a server; in-process on the embedded engine, reaching other inboxes of this Db).
    signal();
    if (running) queueMicrotask(wake);
    if (db.engine !== 'server' || stored.claimed) {
      await db.notify(INBOX_CHANNEL, stored.id).catch((err: unknown) => log.warn({ err: errorText(err) }, 'inbox: notify failed'));
    }
    return 'accepted';
  }

  return {
    async receive(incoming, parsed) {
      const tooLarge = inboundBoundsProblem(incoming);
      if (tooLarge) throw new InboundRefusedError(`inbound event refused: ${tooLarge}`);
      // NUL / lone surrogates cannot be stored as JSON; the text is the stored payload too.
      const { value: msg, json: payload } = storableJson(incoming);
      const key = chatKey(msg);
      const flood = opts.flood;
      // Per-sender flood control is decided by the INSERT itself (one statement, src/inbox/store.ts).
      const limit =
        flood && flood.perMinute > 0 && floodCounted(msg)
          ? { perMinute: flood.perMinute, senderId: msg.actor.id!, windowMs: FLOOD_WINDOW_MS }
          : undefined;
      // A started inbox with a free slot takes a new chat head in its INSERT and runs it at once:
      // no NOTIFY, no claim statement bench. Otherwise the row waits for a worker.
      const take = running && admit() && concurrency - busy() > 0;
      const early = earlyStart?.(msg) === true;
      if (take) reserved++;
      let stored: StoredEvent | null;
      const receivedAt = now();
      try {
        const claim = take ? { owner, leaseMs } : undefined;
        // One statement: the chat's lock, the row, the take; on a server a row left `received` is
        // announced to every replica at commit by the INSERT itself.
        stored = await (early ? relaxedWriter : writer).insert({ msg, payload, chatKey: key, nowMs: receivedAt, claim, flood: limit });
      } finally {
        if (take) reserved--;
      }
      const status = await afterStored(msg, payload, key, stored, receivedAt, parsed, limit);
      // Not acknowledged before the row (or, for a duplicate, the row it repeats) is on disk.
      if (early) await barrier!.wait();
      return status;
    },

    start(h: InboxHandler<P>, startOpts: InboxStartOptions = {}) {
      if (running) throw new Error('inbox already started');
      handler = h;
      concurrency = Math.max(1, startOpts.concurrency ?? 4);
      running = true;
      db.listen(INBOX_CHANNEL, () => {
        signal();
        wake();
      })
        .then((off) => {
          if (!running) return void off();
          unlisten = off;
          wake(); // rows committed before LISTEN took effect sent no notification we saw
        })
        .catch((err: unknown) => log.warn({ err: errorText(err) }, 'inbox: LISTEN failed; polling only'));
      wake();
    },

    async stop(stopOpts: InboxStopOptions = {}) {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      const off = unlisten;
      unlisten = undefined;
      await off?.().catch(() => undefined);
      // Let a pump still in its claim query finish (it gives back what it took).
      while (pumping) await new Promise((r) => setImmediate(r));
      const all = Promise.allSettled([...inflight.values()].map((f) => f.done));
      if (stopOpts.graceMs === undefined) {
        await all;
        return { abandoned: [] };
      } else {
        let t: NodeJS.Timeout | undefined;
        const finished = await Promise.race([
          all.then(() => true),
          new Promise<boolean>((r) => (t = setTimeout(() => r(false), stopOpts.graceMs))),
        ]);
        clearTimeout(t);
        if (!finished) {
          for (const [id, f] of inflight) {
            clearInterval(f.renew);
            abandoned.add(id);
            log.warn(
              { event_id: id },
              'inbox: stopped while a handler still runs; nothing is recorded for it, the next start takes it over',
            );
          }
        }
        return { abandoned: [...abandoned] };
      }
    },

    markStarted: (event, call) => markStarted(db.relaxed, event.id, event.lease_owner, call),

    processing: (key) => chatIsProcessing(db, key),

    backlog: () => countBacklog(db),
  };
}
