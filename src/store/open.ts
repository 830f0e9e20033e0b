/**
 * Open the process's database: a real server when `DATABASE_URL` is set, embedded PGlite
 * persisted under the data dir otherwise.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';
import type { Db } from './db.ts';
import { PoolDb } from './pool-db.ts';

/** Options of {@link openServerDb}. */
export interface ServerDbOptions {
  /** Pool size (default 10). */
  max?: number;
  /** `application_name` shown in pg_stat_activity (default `skillgate`). */
  applicationName?: string;
}

/**
 * Connect to a PostgreSQL server. The pool connects lazily; call `db.query('SELECT 1')`
 * to check reachability.
 */
export function openServerDb(connectionString: string, opts: ServerDbOptions = {}): Db {
  const applicationName = opts.applicationName ?? 'skillgate';
  const pool = new pg.Pool({ connectionString, max: opts.max ?? 10, application_name: applicationName });
  // Db.relaxed: sessions whose commits do not wait for the WAL flush (docs/pipeline.md "Commits").
  const relaxedPool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    application_name: applicationName,
    options: '-c synchronous_commit=off',
  });
  // An idle client losing its server must not crash the process; the next query fails instead.
  pool.on('error', () => undefined);
  relaxedPool.on('error', () => undefined);
  return new PoolDb(pool, {
    engine: 'server',
    relaxedPool,
    listenClient: () => new pg.Client({ connectionString, application_name: `${applicationName}-listen` }),
  });
}

/**
 * PGlite's own start parameters plus a smaller buffer cache. PostgreSQL's default of 128 MB
 * shared_buffers is set up (touched) in the WASM memory at every start, so it is resident
 * whether used or not; one gateway's database fits in far less (docs/performance.md "Start-up").
 * Appended to `PGlite.defaultStartParams`.
 */
export const EMBEDDED_EXTRA_PARAMS = ['-c', 'shared_buffers=16MB'];

/**
 * V8 flags for PostgreSQL's WebAssembly, process-wide from the next WebAssembly compile on: the
 * baseline compiler (Liftoff) only. V8's optimising tier (TurboFan) compiled a few hot functions
 * at every start whatever the tier-up budget, on background threads whose freed compile memory
 * stays in their malloc arenas: about 45 MB of RSS for the life of the process, and about 1 s of
 * CPU per CLI command. Gateway turns ran no slower without it; a 100 000-row insert on the
 * embedded engine runs 1.3–1.6 times slower (docs/performance.md "Start-up").
 */
export const EMBEDDED_WASM_FLAGS = '--liftoff-only';

/**
 * Open embedded PGlite. `dataDir` is a folder (created when missing; the database lives in
 * `<dataDir>/pgdata`) or `undefined` for an in-memory database (tests).
 * The pool has exactly one client (PGlite is one session; library-facts §5).
 */
export async function openEmbeddedDb(dataDir?: string): Promise<Db> {
  setFlagsFromString(EMBEDDED_WASM_FLAGS);
  // Imported here, not at the top: a server-engine process never loads PGlite.
  const { PGlite } = await import('@electric-sql/pglite');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const startParams = [...PGlite.defaultStartParams, ...EMBEDDED_EXTRA_PARAMS];
  let pglite: PGlite;
  if (dataDir) {
    const dir = join(dataDir, 'pgdata');
    mkdirSync(dir, { recursive: true });
    pglite = await PGlite.create(dir, { startParams });
  } else {
    pglite = await PGlite.create({ startParams });
  }
  const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 });
  return new PoolDb(pool, { engine: 'embedded', onClose: () => pglite.close(), embeddedCopy: (sql, data) => blobCopy(pglite, sql, data) });
}

const FROM_STDIN = /\bFROM\s+STDIN\b/i;

/**
 * {@link Db.copyFrom} on PGlite: the same statement reading PGlite's `/dev/blob` device, filled
 * with `data` for this query. The caller holds the session (src/store/pool-db.ts).
 * @throws when `sql` has no `FROM STDIN`, or the database error.
 */
async function blobCopy(pglite: PGlite, sql: string, data: string): Promise<number> {
  if (!FROM_STDIN.test(sql)) throw new Error('copyFrom: the statement must read FROM STDIN');
  const res = await pglite.query(sql.replace(FROM_STDIN, "FROM '/dev/blob'"), [], { blob: new Blob([data]) });
  return res.affectedRows ?? 0;
}
