/**
 * The embedded data dir is opened by one process only (CONTRACTS.md §1): a lock file
 * (`<data>/skillgate.lock`, via proper-lockfile: refreshed while held, stale after 15 s so a
 * crashed process does not lock the dir forever) and, while `serve` runs, `<data>/server.json`
 * with the port and a per-start token (mode 0600) so that CLI commands reach the running
 * server instead.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const SERVER_FILE = 'server.json';

/**
 * Take the data dir for this process (creating the dir when missing).
 * @throws DataDirBusyError when another live process holds it.
 */
export async function acquireDataDir(dataDir: string): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  try {
    const release = await lockfile.lock(dataDir, {
      lockfilePath: join(dataDir, LOCK_NAME),
      realpath: false,
      stale: 15_000,
      update: 5_000,
      retries: 0,
      // Losing the lock (e.g. the dir was removed) must not crash the process with a throw
      // from a timer; the next start re-checks.
      onCompromised: () => undefined,
    });
    return { release: () => release().catch(() => undefined) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new DataDirBusyError(dataDir, readServerInfo(dataDir));
    }
    throw err;
  }
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
