/**
 * Test databases: every database test runs on embedded PGlite and, when
 * `TEST_DATABASE_URL` is set, again on the real server, in a database of this vitest
 * worker's own (`<db>_w<worker>`), reset to no schemas when a file opens it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Db, DbEngine } from '../../src/store/db.ts';
import { openEmbeddedDb, openServerDb } from '../../src/store/open.ts';

/** The real server's URL, when the suite also runs there. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** Engines this run covers: always `embedded`, plus `server` with TEST_DATABASE_URL. */
export const ENGINES: DbEngine[] = TEST_DATABASE_URL ? ['embedded', 'server'] : ['embedded'];

/** The worker's slot (1-based), from vitest. */
export function workerId(): string {
  return process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? '0';
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Create (when missing) a database named `<base>_w<worker><suffix>` on the test server and
 * return its URL. `fresh` drops it first (for multi-process tests that need an empty one).
 */
export async function serverDatabaseUrl(suffix = '', fresh = false): Promise<string> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const base = new URL(TEST_DATABASE_URL).pathname.replace(/^\//, '') || 'test';
  // TEST_DB_PREFIX keeps two suites run side by side on one server apart (development only).
  const prefix = process.env.TEST_DB_PREFIX ? `${process.env.TEST_DB_PREFIX}_` : '';
  const name = `${base}_${prefix}w${workerId()}${suffix}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    if (fresh) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile
      });
    }
  } finally {
    await admin.end();
  }
  return withDatabase(TEST_DATABASE_URL, name);
}

/** Drop every non-system schema (and recreate `public`) so a file starts from nothing. */
async function resetServerDatabase(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace
        WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'`,
    );
    for (const r of rows) await c.query(`DROP SCHEMA "${r.nspname}" CASCADE`);
    await c.query('CREATE SCHEMA public');
  } finally {
    await c.end();
  }
}

/** Open a clean database on `engine` (embedded: in memory). Close it when done. */
export async function openTestDb(engine: DbEngine): Promise<Db> {
  if (engine === 'embedded') return openEmbeddedDb();
  const url = await serverDatabaseUrl();
  await resetServerDatabase(url);
  return openServerDb(url, { max: 4, applicationName: 'skillgate-test' });
}

/**
 * `describe` once per engine, with a clean Db opened before and closed after the block.
 * The callback gets a getter (the Db exists only once `beforeAll` ran).
 */
export function describeEachEngine(name: string, body: (db: () => Db, engine: DbEngine) => void): void {
  for (const engine of ENGINES) {
    describe(`${name} [${engine}]`, () => {
      let db: Db | undefined;
      beforeAll(async () => {
        db = await openTestDb(engine);
      });
      afterAll(async () => {
        await db?.close();
      });
      body(() => {
        if (!db) throw new Error('database not open yet');
        return db;
      }, engine);
    });
  }
}
