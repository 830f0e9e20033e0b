/**
 * One owner per long connection (docs/operations-delivery.md "One owner per long connection"):
 * an adapter whose `start` opens a single-consumer transport ({@link ChannelAdapter.longConnection})
 * runs only on the replica holding that transport's database lease. The holder renews it every
 * heartbeat; it stops the transport by itself once it could not renew for `ttl − margin`, i.e.
 * before the lease expires in the database and another replica may take it (fencing in time).
 * Events it still hands over are checked against the lease generation and refused once it is
 * no longer current (fencing by token): the adapter then does not confirm them to the platform.
 */
import type { ConnectionStateStore } from './connection-state.ts';
import { LeaseLostError } from './errors.ts';
import type { LeaseStore } from './leases.ts';
import type { AdapterHost, ChannelAdapter } from './types.ts';
import type { Logger } from '../log/logger.ts';

/** Lease timing, milliseconds. */
export interface LeaseTiming {
  /** How long a lease lasts without a renewal. */
  ttlMs: number;
  /** How often the holder renews. */
  heartbeatMs: number;
  /** How often a replica without the lease tries to take it. */
  retryMs: number;
  /** The holder stops its transport this long before its last renewal would expire. */
  marginMs: number;
}

/** Default TTL, seconds (`SKILLGATE_LEASE_TTL_SEC`): a dead holder is replaced within TTL + TTL/5 = 12 s. */
export const DEFAULT_LEASE_TTL_SEC = 10;

/** The timing derived from one TTL: heartbeat TTL/3, retry TTL/5, margin TTL/5. */
export function leaseTiming(ttlSec: number = DEFAULT_LEASE_TTL_SEC): LeaseTiming {
  const ttlMs = Math.round(ttlSec * 1000);
  return { ttlMs, heartbeatMs: Math.round(ttlMs / 3), retryMs: Math.round(ttlMs / 5), marginMs: Math.round(ttlMs / 5) };
}

/**
 * `SKILLGATE_LEASE_TTL_SEC` (default 10, at least 1).
 * @throws Error for a value that is not a number ≥ 1
 */
export function leaseTimingFromEnv(env: NodeJS.ProcessEnv): LeaseTiming {
  const raw = env.SKILLGATE_LEASE_TTL_SEC?.trim();
  if (!raw) return leaseTiming();
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 1) throw new Error(`SKILLGATE_LEASE_TTL_SEC must be a number of seconds ≥ 1 (got "${raw}")`);
  return leaseTiming(n);
}

/** What {@link runLongConnection} needs. */
export interface LongConnectionOptions {
  adapter: ChannelAdapter;
  /** The lease key (`<channel>:<account>[:<shard>]`). */
  key: string;
  /** The core's host; the adapter gets a fenced wrapper of it. */
  host: AdapterHost;
  store: LeaseStore;
  /** Where the transport keeps its resumable state (absent: the host offers none). */
  state?: ConnectionStateStore;
  /** This replica's id (unique per process). */
  holder: string;
  timing: LeaseTiming;
  log: Logger;
  /** Monotonic milliseconds (tests may drive it). */
  now?: () => number;
}

/** A running owner loop. */
export interface LongConnectionRunner {
  /** True while this replica holds the lease and the transport runs. */
  held(): boolean;
  /** Stop the transport (when running), give the lease up, end the loop. */
  stop(): Promise<void>;
}

/** The lease key of an adapter's long connection, or undefined for a webhook adapter. */
export function longConnectionKey(adapter: ChannelAdapter): string | undefined {
  const lc = adapter.longConnection;
  if (!lc) return undefined;
  return `${adapter.channel}:${adapter.account}${lc.shard !== undefined ? `:${lc.shard}` : ''}`;
}

/** Run `adapter`'s transport whenever this replica holds its lease (see the module comment). */
export function runLongConnection(o: LongConnectionOptions): LongConnectionRunner {
  const now = o.now ?? (() => performance.now());
  const log = o.log.child({ channel: o.adapter.channel, account: o.adapter.account, lease: o.key });
  let stopped = false;
  /** The generation held while the transport runs; null otherwise. */
  let generation: number | null = null;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => ((wake = undefined), resolve()), ms);
      wake = () => (clearTimeout(t), (wake = undefined), resolve());
    });

  const fence = async (gen: number): Promise<void> => {
    if (generation !== gen) throw new LeaseLostError(o.key);
    if (!(await o.store.holds(o.key, o.holder, gen))) {
      if (generation === gen) lost?.('the lease is no longer current');
      throw new LeaseLostError(o.key);
    }
  };
  const fenced = (gen: number): AdapterHost => ({
    receive: async (msg) => (await fence(gen), o.host.receive(msg)),
    notice: async (event, message) => (await fence(gen), o.host.notice(event, message)),
    ...(o.state ? { connectionState: stateOf(o.state, gen) } : {}),
  });
  /**
   * The stored state, written only while `gen` is held: the write itself names holder and
   * generation, so the transport's last write while it stops (before the lease is given up)
   * still lands, and one after a takeover does not.
   */
  const stateOf = (state: ConnectionStateStore, gen: number) => ({
    load: () => state.load(o.key),
    save: (value: unknown) => state.save(o.key, o.holder, gen, value),
  });

  /** Ends the current hold (set while holding). */
  let lost: ((why: string) => void) | undefined;
  /** Consecutive start failures (a revoked token): the next attempt backs off, up to 30 s. */
  let failures = 0;

  /**
   * Hold `gen` until it is lost or the runner stops: heartbeats run from the moment the lease
   * was taken (a slow `start` keeps it), the transport meanwhile.
   */
  const hold = async (gen: number, sentAt: number): Promise<void> => {
    let deadline = sentAt + o.timing.ttlMs - o.timing.marginMs;
    let why: string | undefined;
    const ended = new Promise<void>((resolve) => {
      lost = (reason) => {
        why ??= reason;
        resolve();
      };
    });
    const timers = new Set<NodeJS.Timeout>();
    const sleepUntil = (t: number) =>
      new Promise<void>((resolve) => {
        const h = setTimeout(() => (timers.delete(h), resolve()), Math.max(0, t - now()));
        timers.add(h);
      });
    const beat = async (): Promise<void> => {
      while (!why && !stopped) {
        await Promise.race([sleepUntil(Math.min(now() + o.timing.heartbeatMs, deadline)), ended]);
        if (why || stopped) return;
        if (now() >= deadline) return lost?.('no renewal before the safety deadline');
        const at = now();
        try {
          if (await o.store.renew(o.key, o.holder, gen, o.timing.ttlMs)) deadline = at + o.timing.ttlMs - o.timing.marginMs;
          else return lost?.('another replica holds the lease');
        } catch (err) {
          log.warn({ err: (err as Error).message }, 'lease renewal failed; retrying');
        }
      }
    };
    generation = gen;
    log.info({ generation: gen }, 'lease taken: starting the long connection');
    const beating = beat();
    try {
      await o.adapter.start!(fenced(gen));
      failures = 0;
    } catch (err) {
      failures++;
      const reason = `start failed: ${(err as Error).message}`;
      log.error({ err: reason }, `channel ${o.adapter.channel}@${o.adapter.account} failed to start; retrying`);
      lost?.(reason);
    }
    if (stopped) lost?.('stopping');
    await Promise.race([beating, ended]);
    for (const t of timers) clearTimeout(t);
    generation = null; // refuse what the transport still hands over
    lost = undefined;
    await o.adapter.stop?.().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'long connection stop failed'));
    await o.store.release(o.key, o.holder, gen).catch(() => undefined);
    log.info({ generation: gen, reason: why ?? 'stopping' }, 'lease given up: long connection stopped');
  };

  const loop = (async () => {
    while (!stopped) {
      const sentAt = now();
      let gen: number | null = null;
      try {
        gen = await o.store.acquire(o.key, o.holder, o.timing.ttlMs);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'lease acquire failed; retrying');
      }
      if (gen !== null && !stopped) await hold(gen, sentAt);
      else if (gen !== null) await o.store.release(o.key, o.holder, gen).catch(() => undefined);
      if (!stopped) await sleep(failures === 0 ? o.timing.retryMs : Math.min(30_000, o.timing.retryMs * 2 ** failures));
    }
  })();

  return {
    held: () => generation !== null,
    async stop() {
      stopped = true;
      lost?.('stopping');
      wake?.();
      await loop;
    },
  };
}
