/**
 * Versioned migrations of schema `skillgate` (issue: foundation §4). Files
 * `src/store/migrations/NNNN_name.sql`, applied in order, each in the same transaction as
 * its bookkeeping row; the whole run holds the `skillgate.migrate` lock, so two processes
 * starting at once on one server apply each version exactly once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { orgTimeZone } from '../present/clock.ts';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Db } from './db.ts';

/** One migration file. */
export interface Migration {
  /** The number prefix, e.g. 1 for `0001_init.sql`. */
  version: number;
  name: string;
  sql: string;
}

/** The folder of the bundled migrations. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/**
 * Read the migration files of `dir`, sorted by version.
 * @throws Error on a file name without a `NNNN_` prefix or a repeated version.
 */
export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const m = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!m) throw new Error(`migration file name must look like 0001_name.sql: ${file}`);
    const version = Number(m[1]);
    if (out.some((x) => x.version === version)) throw new Error(`migration version ${version} is used twice`);
    out.push({ version, name: m[2]!, sql: readFileSync(join(dir, file), 'utf8') });
  }
  return out;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Versions applied by this call, in order. */
  applied: number[];
  /** The schema version after the call. */
  current: number;
}

/**
 * Apply every pending migration. Safe to call concurrently from several processes on one
 * server (advisory lock) and repeatedly (already applied versions are skipped).
 * @throws the database error of a failing migration; the whole run is rolled back (all
 *   pending migrations apply in one transaction), so the schema is never half-migrated.
 */
export async function migrate(db: Db, migrations: Migration[] = readMigrations()): Promise<MigrateResult> {
  // The usual start: every version is applied already — one read, no lock, no DDL.
  const applied = await appliedVersions(db);
  if (applied && migrations.every((m) => applied.has(m.version))) return { applied: [], current: Math.max(0, ...applied) };
  return db.withLock('skillgate.migrate', async (tx) => {
    await tx.query('CREATE SCHEMA IF NOT EXISTS skillgate');
    await tx.query(`CREATE TABLE IF NOT EXISTS skillgate.schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const done = new Set(
      (await tx.query<{ version: number }>('SELECT version FROM skillgate.schema_migrations')).rows.map((r) => r.version),
    );
    // The organisation's zone, for a migration that turns stored wall-clock times into instants (0038).
    await tx.query(`SELECT set_config('skillgate.org_time_zone', $1, true)`, [orgTimeZone()]);
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.query(m.sql);
      await tx.query('INSERT INTO skillgate.schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    const current = Math.max(0, ...done, ...applied);
    return { applied, current };
  });
}

/** The versions in `skillgate.schema_migrations`, or null when the table does not exist yet. */
async function appliedVersions(db: Db): Promise<Set<number> | null> {
  const { rows } = await db.query<{ present: boolean }>("SELECT to_regclass('skillgate.schema_migrations') IS NOT NULL AS present");
  if (!rows[0]?.present) return null;
  const done = await db.query<{ version: number }>('SELECT version FROM skillgate.schema_migrations');
  return new Set(done.rows.map((r) => r.version));
}
