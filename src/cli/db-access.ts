/**
 * How a CLI command reaches the database (README.md "The skillgate command"): directly on a server
 * (`DATABASE_URL`); on an embedded data dir, directly under the data-dir lock when no
 * process holds it, else through the running server's local admin API (`server.json`).
 */
import type { Settings } from '../config/settings.ts';
import { acquireDataDir, DataDirBusyError } from '../store/datadir.ts';
import type { Db } from '../store/db.ts';
import { openEmbeddedDb, openServerDb } from '../store/open.ts';
import { migrate } from '../store/migrate.ts';
import { CliError, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from './io.ts';

/** Calls the running server's local admin API: method, path → parsed JSON body. */
export type LocalApiCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/**
 * Run one database task from the CLI by whichever path is open.
 * @throws CliError (exit 2) when the database cannot be reached or the data dir is held by a
 *   process that wrote no server.json.
 */
export async function withCliDb<T>(
  settings: Settings,
  task: {
    direct: (db: Db) => Promise<T>;
    viaServer?: (call: LocalApiCall) => Promise<T>;
    /** Apply pending migrations before `direct` (default true; `db migrate` does its own). */
    autoMigrate?: boolean;
  },
): Promise<T> {
  const autoMigrate = task.autoMigrate ?? true;
  if (settings.databaseUrl) {
    const db = openServerDb(settings.databaseUrl, { max: 2, applicationName: 'skillgate-cli' });
    try {
      await db.query('SELECT 1').catch((err: Error) => {
        throw new CliError(`cannot reach the database at DATABASE_URL: ${err.message}`, EXIT_FAILED);
      });
      if (autoMigrate) await migrate(db);
      return await task.direct(db);
    } finally {
      await db.close();
    }
  }
  let lock;
  try {
    lock = await acquireDataDir(settings.dataDir);
  } catch (err) {
    if (err instanceof DataDirBusyError && err.server && task.viaServer) {
      const server = err.server;
      const call: LocalApiCall = async <R>(method: string, path: string, body?: unknown): Promise<R> => {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
          method,
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).catch((e: Error) => {
          throw new CliError(`the running server (port ${server.port}) did not answer: ${e.message}`, EXIT_FAILED);
        });
        if (!res.ok) {
          const body = (await res.json().catch(() => ({}))) as { error?: string };
          if (res.status === 422) throw new CliError(body.error ?? 'refused', EXIT_REFUSED);
          throw new CliError(
            `the running server refused the request: HTTP ${res.status}${body.error ? `: ${body.error}` : ''}`,
            EXIT_FAILED,
          );
        }
        return (await res.json()) as R;
      };
      return task.viaServer(call);
    }
    if (err instanceof DataDirBusyError) throw new CliError(err.message, EXIT_FAILED);
    throw err;
  }
  try {
    const db = await openEmbeddedDb(settings.dataDir);
    try {
      if (autoMigrate) await migrate(db);
      return await task.direct(db);
    } finally {
      await db.close();
    }
  } finally {
    await lock.release();
  }
}

/**
 * An admin command that answers `{ok: true, …}` or `{ok: false, error}` (grants, notify targets,
 * audit): run it by whichever path is open ({@link withCliDb}; `path` is its local admin API
 * route), print a refusal on stderr (exit 1) or, with `json`, the result on stdout (exit 0).
 * @returns the exit code when the command is finished, else the successful result for the
 *   caller's text rendering (then exit 0).
 */
export async function runAdminCommand<R extends { ok: boolean }>(
  settings: Settings,
  io: CliIO,
  cmd: { direct: (db: Db) => Promise<R>; path: string; request: unknown; json?: boolean },
): Promise<{ exit: number } | { result: Extract<R, { ok: true }> }> {
  const result = await withCliDb<R>(settings, {
    direct: cmd.direct,
    viaServer: (call) => call<R>('POST', cmd.path, cmd.request),
  });
  if (!result.ok) {
    io.stderr(`skillgate: ${(result as { error?: string }).error ?? 'refused'}\n`);
    return { exit: EXIT_REFUSED };
  }
  if (cmd.json) {
    printJson(io, result);
    return { exit: EXIT_OK };
  }
  return { result: result as Extract<R, { ok: true }> };
}
