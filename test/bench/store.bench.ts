/**
 * Store: the cost of the one code path (Db over node-postgres over PGlite) against calling
 * PGlite directly, per parameterized query.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { PoolDb } from '../../src/store/pool-db.ts';
import type { BenchCase } from './harness.ts';

/** Bench cases of the store. */
export function storeCases(): BenchCase[] {
  let pglite: PGlite;
  let db: PoolDb;
  return [
    {
      name: 'Db.query (embedded, via pg adapter)',
      baselineName: 'PGlite.query direct',
      iterations: 500,
      setup: async () => {
        pglite = await PGlite.create();
        db = new PoolDb(new pg.Pool({ ...createPgConfig(pglite), max: 1 }), { engine: 'embedded' });
      },
      baseline: () => pglite.query('SELECT $1::int + 1 AS n', [41]),
      subject: () => db.query('SELECT $1::int + 1 AS n', [41]),
      teardown: async () => {
        await db.close();
        await pglite.close();
      },
    },
  ];
}
