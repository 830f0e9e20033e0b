/**
 * The outbox (durable outbound). `enqueue` stores messages (inside the caller's
 * transaction when given one); the delivery loop takes the due head message of each chat whose
 * chat and account flood control allow it (src/outbox/pacing.ts), waits for the account's
 * pace, sends it through the channel adapter and records the outcome: `sent` (moving the
 * chat's pace on), `queued` again with a retry time that honours the platform's `retry_after`
 * (waited once: here, never also in the SDK; a 429 also pauses the account for every replica),
 * or `failed` with the platform's error. Each message is delivered on its own: a chat or an
 * account that has to wait never holds a message of another.
 *
 * Cross-process safety: a message is taken with `FOR UPDATE SKIP LOCKED` and a lease, and only
 * the head of a chat's unsent messages can be taken, so per-chat order holds across replicas
 * and two replicas never send one row at the same time. Delivery is at least once: a sender
 * that dies after the platform accepted a message but before recording it leaves the row to be
 * sent again once its lease expired.
 *
 * A backlog stays cheap (docs/operations-delivery.md "The delivery loop"): whoever finishes a
 * chat's head takes that chat's next row with a one-chat claim, so a row stored behind another
 * wakes nobody, and a general pass visits one head per chat.
 */
import { EventEmitter } from 'node:events';
import type { CompletesEvent } from './types.ts';
import type { SendResult } from '../channel/types.ts';
import type { Db, Queryable } from '../store/db.ts';
import { defaultInstanceId } from '../store/instance-id.ts';
import { backoffMs, retryAt } from './backoff.ts';
import { AccountPacers, CHANNEL_POLICIES, chatPaceOf, type RateLimit } from './pacing.ts';
import {
  claimChatHead,
  claimMessages,
  countBacklog,
  insertMessage,
  releaseMessages,
  selectMessage,
  targetChatKey,
  type ClaimedRecord,
} from './store.ts';
import { WakeTimes } from './wake-times.ts';
import { markAttemptFailed, markSentMany, recordAccountPause, type AmbiguityResolution, type SentMark } from './delivery-marks.ts';
import { ChatHolds, quietAdapter } from './holds.ts';
import { resendMarker } from '../channel/send-outcome.ts';
import { createBatcher } from '../channel/batch.ts';
import { storeFinalReplies, unsettle, type FinalOutcome, type FinalReply, type Settled } from './final-batch.ts';
import { waitForFinal } from './wait-for.ts';
import type { Outbox, OutboxClock, OutboxItem, OutboxOptions, OutboxRecord } from './types.ts';

/** The NOTIFY channel that wakes outbox delivery loops. */
export const OUTBOX_CHANNEL = 'skillgate_outbox';

/** The wall clock. */
export const systemClock: OutboxClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.slice(0, 2000);
}

/** What a failed multi-part attempt delivered (src/channel/parts.ts), to store on the row. */
type Progress = { partsDone: number; messageIds: string[] };

/** The language of a row's resend marker: the origin's `lang` (a turn stores it), zh-CN by default. */
function langOf(row: OutboxRecord): 'zh-CN' | 'en' {
  return row.origin?.lang === 'en' ? 'en' : 'zh-CN';
}

/** The progress a failed result reports, or undefined when it delivered nothing new. */
function progressOf(row: OutboxRecord, result: Extract<SendResult, { ok: false }>): Progress | undefined {
  const partsDone = Number.isInteger(result.parts_done) ? Math.max(0, result.parts_done as number) : 0;
  if (partsDone <= (row.parts_done ?? 0) && !result.message_ids?.length) return undefined;
  return { partsDone, messageIds: (result.message_ids ?? []).map(String) };
}

function isDb(q: Queryable): q is Db {
  return typeof (q as Partial<Db>).transaction === 'function';
}

/** A chat this process is delivering: rows it stored behind the head meanwhile, the count last looked at, its chains. */
type Watch = { stored: number; checked: number; chains: number };

/** How a delivery ended, for what its chat does next. */
type Outcome =
  /** The head is finished (sent or failed for good): the chat's next row may go, not before `notBeforeMs` (0: unpaced). */
  | { kind: 'finished'; notBeforeMs: number; behind: boolean }
  /** Queued again, due at `at` (outbox clock, ms): it stays the chat's head. */
  | { kind: 'retry'; at: number }
  /** The lease was lost, or recording failed: a general pass decides. */
  | { kind: 'unsure' };

/**
 * Create the outbox of one gateway process over `db` (migration 0006 applied). `enqueue`,
 * `get`, `waitFor` and `deliverDue` work without {@link Outbox.start}.
 */
export function createOutbox(db: Db, opts: OutboxOptions): Outbox {
  const log = opts.log;
  const clock = opts.clock ?? systemClock;
  const owner = opts.instanceId ?? defaultInstanceId();
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 8);
  const baseDelayMs = opts.baseDelayMs ?? 1000;
  const maxDelayMs = opts.maxDelayMs ?? 300_000;
  const pollMs = opts.pollMs ?? 1000;
  const batchSize = Math.max(1, opts.batchSize ?? 16);
  const leaseMs = opts.leaseMs ?? 60_000;
  const random = opts.random ?? Math.random;
  const policies = opts.policies ?? CHANNEL_POLICIES;
  const ceilingOf = (channel: string, account: string): RateLimit | undefined =>
    opts.ceilingOf?.(channel, account) ??
    (opts.rateLimits && Object.hasOwn(opts.rateLimits, channel) ? opts.rateLimits[channel] : undefined);
  const pacers = new AccountPacers(policies, ceilingOf);
  const holds = new ChatHolds();
  const finals = new EventEmitter();
  /** Delivery marks recorded at the same time share one statement (src/channel/batch.ts). */
  const sentMarks = createBatcher((marks: SentMark[]) => markSentMany(db.relaxed, marks)); // a lost mark resends (at least once)
  /** Final replies of turns of different chats stored at the same time share one statement. */
  const storeFinals = (replies: FinalReply[]): Promise<Settled<FinalOutcome>[]> =>
    storeFinalReplies(db.relaxed, replies, {
      nowMs: clock.now(),
      claim: running && !stopping ? { owner, leaseMs } : undefined,
      notifyChannel: db.engine === 'server' ? OUTBOX_CHANNEL : undefined,
      log,
    });
  const finalReplies = createBatcher(storeFinals, { keysOf: (r: FinalReply) => [targetChatKey(r.item.target)], inFlight: 2, gather: false });
  finals.setMaxListeners(0);

  let chain: Promise<unknown> = Promise.resolve();
  let running = false;
  let stopping = false;
  let looping = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  /**
   * Chains of deliveries of rows claimed in their INSERT (see enqueue), each going on with its
   * chat's next rows; awaited by stop.
   */
  const directs = new Set<Promise<void>>();
  /** Chains the loop started, each on its own chat (at most batchSize at once). */
  const inflight = new Set<Promise<void>>();
  /** The last pass stopped for want of room (batchSize): a chain that ends wakes it, and yields to it. */
  let starved = false;
  /** Wake-ups when a paced chat, a retry or a paused account becomes due (wall-clock timer). */
  const wakeTimes = new WakeTimes(clock, () => wake());
  /**
   * Chats this process is delivering, each with a count of the rows it stored behind their
   * head meanwhile: a chain looks again when its claim may have missed one of them.
   */
  const watched = new Map<string, Watch>();

  function final(row: OutboxRecord, status: 'sent' | 'failed', error?: string, code?: string | null): void {
    finals.emit('final', row.id, status);
    try {
      opts.onStatus?.(row.channel, status, { id: row.id, account: row.account, attempts: row.attempts, error, code });
    } catch (err) {
      log.warn({ err: errorText(err) }, 'outbox: status observer threw');
    }
  }

  function observeAmbiguous(channel: string, event: 'unknown' | AmbiguityResolution): void {
    try {
      opts.onAmbiguous?.(channel, event);
    } catch (err) {
      log.warn({ err: errorText(err) }, 'outbox: ambiguity observer threw');
    }
  }

  /** Record `row` failed for good. @returns false when the lease was no longer ours */
  async function fail(
    row: OutboxRecord,
    error: string,
    code: string | null,
    progress?: Progress,
    ambiguity?: { unknownPart?: number | null; resolution?: AmbiguityResolution | null },
  ): Promise<boolean> {
    const ours = await markAttemptFailed(db, row.id, owner, error, code, null, progress, ambiguity);
    // The platform's error and code, never the message text (it may carry user data).
    log.warn(
      {
        outbox_id: row.id,
        channel: row.channel,
        account: row.account,
        chat_key: row.chat_key,
        attempts: row.attempts,
        error,
        code,
        origin: row.origin,
        ...(ambiguity?.unknownPart != null || row.ambiguity === 'pending' ? { ambiguity: 'pending' } : {}),
      },
      'outbox: message failed for good',
    );
    if (ours) final(row, 'failed', error, code);
    return ours;
  }

  /** Wake the loop at outbox-clock time `at` (every time asked for is kept, src/outbox/wake-times.ts). */
  function wakeAt(at: number): void {
    if (running) wakeTimes.add(at);
  }

  /** The failed-for-good outcome: the chat moves on when the mark was ours. */
  async function failed(...args: Parameters<typeof fail>): Promise<Outcome> {
    return (await fail(...args)) ? { kind: 'finished', notBeforeMs: 0, behind: true } : { kind: 'unsure' };
  }

  /** Send one taken row and record the outcome. */
  async function deliver(row: OutboxRecord | ClaimedRecord): Promise<Outcome> {
    try {
      if (row.attempts > maxAttempts) {
        return await failed(row, `abandoned: ${row.attempts - 1} attempts ended without a result`, 'abandoned');
      }
      const adapter = opts.adapterFor(row.channel, row.account);
      if (!adapter) {
        return await failed(row, `no adapter for channel ${row.channel} account ${row.account}`, 'no_adapter');
      }
      const pacer = pacers.get(row.channel, row.account);
      const shared = row as Partial<ClaimedRecord>;
      if (shared.pace_rate_per_s && shared.pace_rate_since) {
        pacer.adopt({ notBeforeMs: 0, rate: { perSecond: shared.pace_rate_per_s, sinceMs: new Date(shared.pace_rate_since).getTime() } });
      }
      await pacer.acquire(clock);
      // An earlier attempt left the next part's outcome unknown: resend it under the platform's
      // key, or with the visible marker where the platform has none (docs/operations-delivery.md).
      const keyed = adapter.sendIdempotency === 'platform_key';
      const pending = row.ambiguity === 'pending' && row.ambiguous_part === (row.parts_done ?? 0);
      const resolution: AmbiguityResolution = keyed ? 'resolved_by_key' : 'resent_with_marker';
      let result: SendResult;
      try {
        result = await adapter.send(row.target, row.message, {
          idempotencyKey: `outbox:${row.id}`,
          partsDone: row.parts_done ?? 0,
          ...(pending ? (keyed ? { unknownOutcome: true } : { resendMarker: resendMarker(langOf(row)) }) : {}),
        });
      } catch (err) {
        // Adapters return platform failures; a throw is a bug or a network surprise: retry it.
        result = { ok: false, retryable: true, error: errorText(err), code: 'adapter_threw' };
      }
      const now = clock.now();
      if (result.ok) holds.release(row.chat_key);
      else if (result.retry_after_ms && result.retry_after_ms > 0) holds.hold(row.chat_key, now + result.retry_after_ms);
      if (result.ok) {
        const pace = chatPaceOf(row.target, policies);
        const step = pace
          ? {
              chatKey: row.chat_key,
              stepMs: Math.max(1, result.message_ids.length) * pace.intervalMs,
              toleranceMs: (Math.max(1, pace.burst) - 1) * pace.intervalMs,
            }
          : undefined;
        const marked = await sentMarks.submit({
          id: row.id,
          owner,
          messageIds: result.message_ids,
          nowMs: now,
          ...(step ? { pace: step } : {}),
          ...(row.ambiguity === 'pending' ? { resolution } : {}),
        });
        if (marked.ours) {
          if (row.ambiguity === 'pending') observeAmbiguous(row.channel, resolution);
          final(row, 'sent');
          return { kind: 'finished', notBeforeMs: marked.notBeforeMs, behind: marked.behind };
        }
        log.warn({ outbox_id: row.id, chat_key: row.chat_key }, 'outbox: sent, but the lease was lost before it was recorded');
        return { kind: 'unsure' };
      }
      const code = result.code === undefined || result.code === null ? null : String(result.code);
      const error = String(result.error ?? '').slice(0, 2000);
      const progress = progressOf(row, result);
      // The part that failed may have reached the platform (written, no answer): mark it.
      const unknownPart = result.ambiguous ? (progress?.partsDone ?? row.parts_done ?? 0) : null;
      const passed = row.ambiguity === 'pending' && (progress?.partsDone ?? 0) > (row.ambiguous_part ?? 0);
      const ambiguity = { unknownPart, resolution: row.ambiguity === 'pending' ? resolution : null };
      if (passed) observeAmbiguous(row.channel, resolution);
      if (unknownPart !== null) {
        observeAmbiguous(row.channel, 'unknown');
        log.info(
          { outbox_id: row.id, channel: row.channel, chat_key: row.chat_key, part: unknownPart, error, code, resend: resolution },
          'outbox: send outcome unknown (written, no answer)',
        );
      }
      if (result.retryable && (result.retry_after_ms != null || code === '429')) {
        // The platform says "too fast": pause the whole account (every replica) and slow it down.
        const state = pacer.rateLimited(now, result.retry_after_ms ?? null);
        await recordAccountPause(db, `${row.channel}:${row.account}`, state.notBeforeMs, state.rate).catch((err: unknown) =>
          log.warn({ err: errorText(err) }, 'outbox: storing the account pause failed'),
        );
        wakeAt(state.notBeforeMs);
        log.info(
          { channel: row.channel, account: row.account, retry_after_ms: result.retry_after_ms ?? null, rate_per_s: state.rate?.perSecond },
          'outbox: rate limited by the platform; account paused',
        );
      }
      if (!result.retryable || row.attempts >= maxAttempts) {
        return await failed(row, error, code, progress, ambiguity);
      }
      const at = retryAt(now, backoffMs(row.attempts, baseDelayMs, maxDelayMs, random), result.retry_after_ms);
      const ours = await markAttemptFailed(db, row.id, owner, error, code, at, progress, ambiguity);
      log.info(
        {
          outbox_id: row.id,
          channel: row.channel,
          chat_key: row.chat_key,
          attempts: row.attempts,
          error,
          code,
          retry_at: new Date(at).toISOString(),
        },
        'outbox: send failed; will retry',
      );
      return ours ? { kind: 'retry', at } : { kind: 'unsure' };
    } catch (err) {
      // The database failed while recording: the lease expires and the row is taken again.
      log.error({ outbox_id: row.id, err: errorText(err) }, 'outbox: recording a delivery failed');
      return { kind: 'unsure' };
    }
  }

  /**
   * What a chat does after a delivery of this process: its next row, taken with a one-chat
   * claim when the finished head had one behind (or this process stored one meanwhile); a
   * wake-up at the retry time or the pace end otherwise. A chain of the loop yields to the
   * general pass while that pass lacks room. @returns the next row taken, if any
   */
  async function follow(row: OutboxRecord, outcome: Outcome, w: Watch, ofLoop: boolean): Promise<ClaimedRecord | null> {
    if (!running) return null;
    if (outcome.kind === 'unsure') return (wake(), null);
    if (outcome.kind === 'retry') return (wakeAt(outcome.at), null);
    const chat = row.chat_key;
    if (!outcome.behind && w.stored === w.checked) return null;
    if (ofLoop && starved) return null; // the chain's end wakes the pass, which takes the oldest heads
    // A paced chat's next row waits for the pace end, unless answers to a person may go (src/outbox/pacing.ts).
    const paced = outcome.notBeforeMs > clock.now();
    if (paced && !chatPaceOf(row.target, policies)?.answersFree) return (wakeAt(outcome.notBeforeMs), null);
    try {
      for (;;) {
        w.checked = w.stored;
        const next = await claimChatHead(db, owner, chat, clock.now(), leaseMs);
        if (next && stopping) {
          await releaseMessages(db, [next.id], owner);
          return null;
        }
        if (next) return next;
        // A row stored while the claim ran may have committed after its snapshot: look once more.
        if (w.stored === w.checked || !running) break;
      }
    } catch (err) {
      log.warn({ err: errorText(err), chat_key: chat }, 'outbox: taking the chat’s next message failed; a pass will');
      wake();
      return null;
    }
    if (paced) wakeAt(outcome.notBeforeMs);
    return null;
  }

  /** Deliver `first`, then its chat's next rows while {@link follow} takes them, as one entry of `lane`. */
  function chainFrom(first: OutboxRecord, lane: Set<Promise<void>>): Promise<void> {
    const chat = first.chat_key;
    const w = watched.get(chat) ?? { stored: 0, checked: 0, chains: 0 };
    w.chains++;
    watched.set(chat, w);
    const p: Promise<void> = (async () => {
      let row: OutboxRecord | null = first;
      while (row) {
        w.checked = w.stored; // the mark that ends this delivery sees every row committed before it
        const outcome = await deliver(row);
        row = await follow(row, outcome, w, lane === inflight);
      }
    })()
      .catch((err: unknown) => log.error({ err: errorText(err) }, 'outbox: delivery chain failed'))
      .finally(() => {
        if (--w.chains === 0 && watched.get(chat) === w) watched.delete(chat);
        lane.delete(p);
        // A row stored after the last look (its commit maybe after that claim's snapshot), or room for the pass.
        if (w.stored !== w.checked) wake();
        else if (lane === inflight && starved) {
          starved = false;
          wake();
        }
      });
    lane.add(p);
    return p;
  }

  /**
   * Take up to `limit` due rows and start delivering each on its own.
   * @returns how many were taken and a promise of their deliveries
   */
  async function take(limit: number): Promise<{ n: number; done: Promise<void> }> {
    const rows = await claimMessages(db, owner, clock.now(), leaseMs, limit);
    if (stopping) {
      await releaseMessages(
        db,
        rows.map((r) => r.id),
        owner,
      );
      return { n: 0, done: Promise.resolve() };
    }
    const all = rows.map((row) => chainFrom(row, inflight));
    return { n: rows.length, done: Promise.all(all).then(() => undefined) };
  }

  /** Claims one after the other (deliveries run on their own). */
  function serialTake(limit: number): Promise<{ n: number; done: Promise<void> }> {
    const run = chain.then(
      () => take(limit),
      () => take(limit),
    );
    chain = run.catch(() => undefined);
    return run;
  }

  async function deliverDue(): Promise<number> {
    const { n, done } = await serialTake(batchSize);
    await done;
    return n;
  }

  const schedulePoll = (): void => {
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => wake(), pollMs);
    timer.unref();
  };

  async function loop(): Promise<void> {
    if (!running) return;
    if (looping) {
      again = true;
      return;
    }
    looping = true;
    try {
      do {
        again = false;
        // Take due rows while there is room; when room ran out, a chain that ends wakes the loop again.
        starved = false;
        while (running && inflight.size < batchSize) {
          const { n } = await serialTake(batchSize - inflight.size);
          if (n === 0) break;
        }
        if (running && inflight.size >= batchSize) starved = true;
      } while (again && running);
    } catch (err) {
      log.warn({ err: errorText(err) }, 'outbox: delivery pass failed; retrying at the next poll');
    } finally {
      looping = false;
      schedulePoll();
    }
  }

  function wake(): void {
    void loop();
  }

  /** Store `items` (see Outbox.enqueue); with `completes`, the last one carries the event's done mark. */
  async function store(q: Queryable, items: OutboxItem[], completes?: CompletesEvent): Promise<{ ids: string[]; completed: boolean }> {
    if (items.length === 0) return { ids: [], completed: false };
    if (completes && items.length === 1 && isDb(q) && items[0]!.idempotency_key) {
      const r = unsettle(await finalReplies.submit({ item: items[0]!, completes }));
      if (r.claimed) void chainFrom(r.claimed, directs);
      else await announce(false, r.ahead ? [targetChatKey(items[0]!.target)] : [], r.ahead ? 0 : 1, r.id!);
      return { ids: [r.id!], completed: r.completed };
    }
    const now = clock.now();
    // Called with the Db (we commit), a running outbox takes each new chat head in its INSERT
    // and sends it right after commit: no NOTIFY, no claim statement bench.
    // Only a single item is taken in its INSERT: several commit in one transaction, where a
    // lost race for a chat's head would only show at COMMIT (migration 0030 is deferred).
    const claim = isDb(q) && items.length === 1 && running && !stopping ? { owner, leaseMs } : undefined;
    const claimed: OutboxRecord[] = [];
    /** Chats of rows stored `queued` behind an unfinished row (whoever finishes that one takes them). */
    const behind: string[] = [];
    let heads = 0;
    let completed = false;
    // On a server a `queued` head is announced by its INSERT (delivered at commit only); in a
    // caller's transaction every `queued` row is, since this process does not see that commit.
    const notifyChannel = db.engine === 'server' ? OUTBOX_CHANNEL : undefined;
    const insertAll = async (tx: Queryable): Promise<string[]> => {
      claimed.length = 0;
      behind.length = 0;
      heads = 0;
      const ids: string[] = [];
      for (const [i, item] of items.entries()) {
        const last = i === items.length - 1;
        const r = await insertMessage(tx, item, now, claim, notifyChannel, last ? completes : undefined, !isDb(q));
        ids.push(r.id);
        if (r.claimed) claimed.push(r.claimed);
        else if (r.ahead) behind.push(targetChatKey(item.target));
        else heads++;
        completed = r.completed;
      }
      return ids;
    };
    // One item: one statement, no transaction. Several: one transaction, so they commit
    // together and in id order; no chat lock (one sender per chat, migration 0030).
    // A turn's reply with its event's done mark is redone when a database crash undoes it: its
    // commit need not wait for the disk (Db.relaxed, docs/pipeline.md "Commits").
    const ids = !isDb(q)
      ? await insertAll(q)
      : items.length === 1
        ? await insertAll(completes ? q.relaxed : q)
        : await q.transaction(insertAll);
    for (const row of claimed) chainFrom(row, directs);
    if (claimed.length === ids.length) return { ids, completed };
    await announce(!isDb(q), behind, heads, ids[ids.length - 1]!);
    return { ids, completed };
  }

  /**
   * Announce rows stored `queued` (`behind`: the chats of those behind an unfinished row;
   * `heads`: how many are their chat's head). In a caller's transaction (`inCallersTx`) the
   * embedded engine's NOTIFY queues behind its commit; otherwise they are committed: a row behind
   * a head this process is delivering is taken by that chain (which looks again when its claim
   * may have run before this commit); one behind a head held elsewhere (another replica, a chain
   * that just ended) gets a pass here, never a NOTIFY.
   */
  async function announce(inCallersTx: boolean, behind: readonly string[], heads: number, lastId: string): Promise<void> {
    if (inCallersTx) {
      if (db.engine === 'embedded') await db.notify(OUTBOX_CHANNEL, lastId).catch(() => undefined);
      return;
    }
    let unwatched = false;
    for (const chat of behind) {
      const w = watched.get(chat);
      if (w) w.stored++;
      else unwatched = true;
    }
    if (heads > 0 && db.engine === 'embedded') await db.notify(OUTBOX_CHANNEL, lastId).catch(() => undefined);
    else if ((heads > 0 || unwatched) && running) queueMicrotask(wake); // don't wait for the NOTIFY's round trip
  }

  const heldFor = (target: Parameters<typeof targetChatKey>[0]): number => holds.remaining(targetChatKey(target), clock.now());
  return {
    heldFor,
    quiet: (adapter) => quietAdapter(adapter, (t) => heldFor(t) > 0, opts.onSuppressed),
    async enqueue(q, items: OutboxItem[]) {
      return (await store(q, items)).ids;
    },

    async enqueueFinal(items, completes) {
      if (items.length === 0) throw new Error('outbox: enqueueFinal needs at least one message');
      return store(db, items, completes);
    },

    start() {
      if (running) throw new Error('outbox already started');
      running = true;
      stopping = false;
      db.listen(OUTBOX_CHANNEL, () => wake())
        .then((off) => {
          if (!running) return void off();
          unlisten = off;
          wake(); // rows committed before LISTEN took effect sent no notification we saw
        })
        .catch((err: unknown) => log.warn({ err: errorText(err) }, 'outbox: LISTEN failed; polling only'));
      wake();
    },

    async stop() {
      running = false;
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      wakeTimes.clear();
      const off = unlisten;
      unlisten = undefined;
      await off?.().catch(() => undefined);
      await chain;
      await Promise.all([...inflight]);
      await Promise.all([...directs]);
      stopping = false;
    },

    deliverDue,

    get: (id) => selectMessage(db, id),

    waitFor: (id, timeoutMs) => waitForFinal(db, finals, clock, pollMs, id, timeoutMs),

    backlog: () => countBacklog(db),
  };
}
