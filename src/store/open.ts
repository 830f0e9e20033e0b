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

/** Options of {@link openEmbeddedDb}. */
export interface EmbeddedDbOptions {
  /**
   * The process ends after one task (a CLI command). PostgreSQL's WebAssembly then runs on V8's
   * baseline compiler only: the optimising tier would compile the functions the start-up runs
   * on background threads, about 1 s of CPU a short process never earns back; a gateway keeps
   * it for its long-running queries (docs/performance.md "Start-up"). Process-wide, from the
   * next WebAssembly compile on.
   */
  oneShot?: boolean;
}

/**
 * V8's tier-up budget for the WebAssembly of a gateway (not one-shot): 100 times V8's default
 * (1 800 000), so a function tiers up to the optimising compiler only after running about 100
 * times longer on the baseline one. PostgreSQL's start-up code then stays on the baseline
 * compiler (the optimising compiles of a start were about 0.6 s of CPU on background threads);
 * the functions the long-running queries keep running still tier up (docs/performance.md
 * "Start-up").
 */
export const GATEWAY_WASM_TIERING_BUDGET = 180_000_000;

/**
 * Open embedded PGlite. `dataDir` is a folder (created when missing; the database lives in
 * `<dataDir>/pgdata`) or `undefined` for an in-memory database (tests).
 * The pool has exactly one client (PGlite is one session; library-facts §5).
 */
export async function openEmbeddedDb(dataDir?: string, opts: EmbeddedDbOptions = {}): Promise<Db> {
  setFlagsFromString(opts.oneShot ? '--liftoff-only' : `--wasm-tiering-budget=${GATEWAY_WASM_TIERING_BUDGET}`);
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
  return new PoolDb(pool, { engine: 'embedded', onClose: () => pglite.close() });
}
