/**
 * Start-up takeover and, on a server, the heartbeat of this process (docs/recovery.md).
 * Embedded: one takeover at start. Server: a beat every {@link HEARTBEAT_MS}; each beat also
 * takes over the work of instances silent for {@link TAKEOVER_MS}, and the first one that of
 * processes of this host that no longer run (known dead at once, no waiting).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from '../log/logger.ts';
import type { Db } from '../store/db.ts';
import { beatAndTakeOver, HEARTBEAT_MS, leave, sameHostInstances, takeOverAll, TAKEOVER_MS, type TakenOver } from './takeover.ts';

/** The running heartbeat (server) or nothing (embedded). */
export interface Recovery {
  /** Stop beating and leave (server: what this process still holds is made due for the others). */
  stop(): Promise<void>;
}

/**
 * This host's identity for liveness checks: host name, boot id and pid namespace, so two
 * containers sharing a host name are never taken for one host. Null where not knowable.
 */
export function localHostKey(): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNs = readlinkSync('/proc/self/ns/pid');
    return `${hostname()}|${boot}|${pidNs}`;
  } catch {
    return null;
  }
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function logTaken(log: Logger, taken: TakenOver, why: string, extra: Record<string, unknown> = {}): void {
  if (taken.inbox + taken.outbox === 0) return;
  log.warn({ inbox_events: taken.inbox, outbox_messages: taken.outbox, ...extra }, `work of a stopped gateway process taken over (${why})`);
}

/**
 * Take over at start and (server) keep beating. Resolves once the start-up takeover is written,
 * so the inbox started after it finds the taken-over events due.
 */
export async function startRecovery(
  db: Db,
  self: string,
  log: Logger,
  opts: {
    heartbeatMs?: number;
    takeoverMs?: number;
    /** Hand back other work of the stopped processes (`'all'`: embedded start) — the async jobs they ran. */
    onTakeOver?: (dead: readonly string[] | 'all') => Promise<unknown>;
  } = {},
): Promise<Recovery> {
  const handBack = async (dead: readonly string[] | 'all'): Promise<void> => {
    if (!opts.onTakeOver || (dead !== 'all' && dead.length === 0)) return;
    await opts.onTakeOver(dead).catch((err: unknown) => log.warn({ err: (err as Error).message }, 'handing back async jobs failed'));
  };
  if (db.engine !== 'server') {
    logTaken(log, await takeOverAll(db, self), 'this process owns the data dir');
    await handBack('all');
    return { stop: async () => undefined };
  }
  const hostKey = localHostKey();
  const self_ = { id: self, hostKey, pid: process.pid };
  const knownDead = hostKey ? (await sameHostInstances(db, self, hostKey)).filter((i) => !pidRuns(i.pid)).map((i) => i.id) : [];
  const first = await beatAndTakeOver(db, self_, { knownDead, takeoverMs: opts.takeoverMs });
  logTaken(log, first, 'no longer running on this host or heartbeat stopped', { instances: first.dead });
  await handBack(first.dead);
  let beating: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    beating = beatAndTakeOver(db, self_, { takeoverMs: opts.takeoverMs ?? TAKEOVER_MS })
      .then(async (t) => {
        logTaken(log, t, 'heartbeat stopped', { instances: t.dead });
        await handBack(t.dead);
      })
      .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'heartbeat failed; retrying at the next beat'));
  }, opts.heartbeatMs ?? HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await beating;
      await leave(db, self).catch((err: unknown) => log.warn({ err: (err as Error).message }, 'leaving the instance list failed'));
    },
  };
}
