/**
 * The embedded data dir is opened by one process only (README.md "The skillgate command"): a lock file
 * (`<data>/skillgate.lock`, via proper-lockfile: refreshed while held, stale after 15 s so a
 * crashed process does not lock the dir forever; `<data>/skillgate.lock.owner` names the holder's
 * pid and host, so a lock left by a process that no longer runs on this host is taken over at
 * once instead of after 15 s) and, while `serve` runs, `<data>/server.json`
 * with the port and a per-start token (mode 0600) so that CLI commands reach the running
 * server instead.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';

/** Thrown when another process holds the data dir. */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    /** The running server's hand-off, when it wrote one. */
    readonly server: ServerInfo | null,
  ) {
    super(
      server
        ? `the data dir ${dataDir} is in use by a running skillgate server (pid ${server.pid}, port ${server.port}); stop it first, or use a command that talks to it`
        : `the data dir ${dataDir} is in use by another skillgate process; only one process may open an embedded database (set DATABASE_URL to share a PostgreSQL server)`,
    );
    this.name = 'DataDirBusyError';
  }
}

/** `<data>/server.json`. */
export interface ServerInfo {
  pid: number;
  port: number;
  /** Per-start token for the local admin API (hex, 32 bytes). */
  token: string;
  /** ISO time the server started. */
  started_at: string;
}

/** A held data-dir lock. */
export interface DataDirLock {
  release(): Promise<void>;
}

const LOCK_NAME = 'skillgate.lock';
const OWNER_FILE = 'skillgate.lock.owner';
const SERVER_FILE = 'server.json';

/** Who holds the lock: written right after taking it. */
interface LockOwner {
  pid: number;
  host: string;
}

/** True when a process with this pid exists here (EPERM: it exists, owned by another user). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The owner record (its text) when the recorded holder of the lock is a process of this host
 * that no longer runs (a crash or `kill -9`), else null. A holder on another host (a shared
 * volume), or one that cannot be read, is never judged dead here — proper-lockfile's 15 s
 * staleness still applies.
 */
function deadHolder(dataDir: string): string | null {
  try {
    const text = readFileSync(join(dataDir, OWNER_FILE), 'utf8');
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || !Number.isInteger(o.pid) || o.pid <= 0 || o.host !== hostname()) return null;
    return o.pid !== process.pid && !processAlive(o.pid) ? text : null;
  } catch {
    return null;
  }
}

/**
 * {@link deadHolder}, asked twice {@link TAKEOVER_SETTLE_MS} apart with the same answer: a process
 * that has just taken a stale lock writes its own owner record right after, so a record that
 * still names the same dead pid a moment later is really left over.
 */
async function holderIsGone(dataDir: string): Promise<boolean> {
  const first = deadHolder(dataDir);
  if (first === null) return false;
  await new Promise((r) => setTimeout(r, TAKEOVER_SETTLE_MS));
  return deadHolder(dataDir) === first;
}

/** Pause between the two looks of {@link holderIsGone}, ms. */
const TAKEOVER_SETTLE_MS = 150;

function takeLock(dataDir: string): Promise<() => Promise<void>> {
  return lockfile.lock(dataDir, {
    lockfilePath: join(dataDir, LOCK_NAME),
    realpath: false,
    stale: 15_000,
    update: 5_000,
    retries: 0,
    // Losing the lock (e.g. the dir was removed) must not crash the process with a throw
    // from a timer; the next start re-checks.
    onCompromised: () => undefined,
  });
}

/**
 * Take the data dir for this process (creating the dir when missing). A lock whose recorded
 * holder no longer runs on this host is removed and taken (see {@link holderIsGone}).
 * @throws DataDirBusyError when another live process holds it.
 */
export async function acquireDataDir(dataDir: string): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await takeLock(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    if (!(await holderIsGone(dataDir))) throw new DataDirBusyError(dataDir, readServerInfo(dataDir));
    rmSync(join(dataDir, LOCK_NAME), { recursive: true, force: true });
    try {
      release = await takeLock(dataDir);
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirBusyError(dataDir, readServerInfo(dataDir));
      throw again;
    }
  }
  const owner: LockOwner = { pid: process.pid, host: hostname() };
  writeFileSync(join(dataDir, OWNER_FILE), JSON.stringify(owner) + '\n');
  return {
    release: async () => {
      rmSync(join(dataDir, OWNER_FILE), { force: true });
      await release().catch(() => undefined);
    },
  };
}

/** Write `<data>/server.json` with mode 0600. */
export function writeServerInfo(dataDir: string, info: ServerInfo): void {
  const file = join(dataDir, SERVER_FILE);
  writeFileSync(file, JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Read `<data>/server.json`, or null when absent or unreadable. */
export function readServerInfo(dataDir: string): ServerInfo | null {
  const file = join(dataDir, SERVER_FILE);
  if (!existsSync(file)) return null;
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as ServerInfo;
    return typeof v.port === 'number' && typeof v.token === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Remove `<data>/server.json` (on shutdown). */
export function removeServerInfo(dataDir: string): void {
  rmSync(join(dataDir, SERVER_FILE), { force: true });
}
