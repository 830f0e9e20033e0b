/**
 * Hot statements run as named prepared statements (src/store/prepared.ts, docs/performance.md):
 * a text gets a name on its second run, the server then holds one prepared statement for it per
 * connection, and a schema change that makes the named form stale costs one unnamed rerun, not
 * an error.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { statementName } from '../../src/store/prepared.ts';

/** Prepared statements of the connection that runs this query (the embedded engine has one). */
const prepared = `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'sg\\_%'`;

it('a text is named on its second sight; DDL, SET and transaction control never are', () => {
  const text = `SELECT ${Math.random()} AS once_then_hot`;
  expect(statementName(text)).toBeUndefined();
  const name = statementName(text);
  expect(name).toMatch(/^sg_[0-9a-z]+$/);
  expect(statementName(text)).toBe(name);
  for (const other of ['CREATE TABLE x (v int)', 'SET search_path = public', 'BEGIN', 'LISTEN x']) {
    statementName(other);
    expect(statementName(other)).toBeUndefined();
  }
});

describeEachEngine('store: hot statements', (db) => {
  it('a statement run again is prepared once on the server and keeps answering', async () => {
    const text = `SELECT $1::int * 2 AS doubled, '${Math.random()}' AS tag`;
    const results: number[] = [];
    for (let i = 1; i <= 4; i++) results.push((await db().query<{ doubled: number }>(text, [i])).rows[0]!.doubled);
    expect(results).toEqual([2, 4, 6, 8]);
    await db().transaction(async (tx) => {
      // inside a transaction the same name is used on the transaction's connection
      expect((await tx.query<{ doubled: number }>(text, [5])).rows[0]!.doubled).toBe(10);
      expect((await tx.query<{ doubled: number }>(text, [6])).rows[0]!.doubled).toBe(12);
      const { rows } = await tx.query<{ n: number }>(`${prepared} AND statement = $1`, [text]);
      expect(rows[0]!.n).toBe(1);
    });
  });

  it('after a column is added, a hot SELECT * answers with the new shape instead of failing', async () => {
    const table = `public.t_hot_${Math.random().toString(36).slice(2, 8)}`;
    await db().query(`CREATE TABLE ${table} (a int)`);
    await db().query(`INSERT INTO ${table} VALUES (1)`);
    const text = `SELECT * FROM ${table}`;
    expect((await db().query(text)).rows).toEqual([{ a: 1 }]);
    expect((await db().query(text)).rows).toEqual([{ a: 1 }]);
    await db().query(`ALTER TABLE ${table} ADD COLUMN b text DEFAULT 'x'`);
    expect((await db().query(text)).rows).toEqual([{ a: 1, b: 'x' }]);
    expect((await db().query(text)).rows).toEqual([{ a: 1, b: 'x' }]);
  });
});

describeEachEngine('store: a failed statement', (db) => {
  it('leaves the database answering the next statements correctly, named or not', async () => {
    const text = `SELECT 10 / $1::int AS v, '${Math.random()}' AS tag`;
    const out: Array<number | string> = [];
    for (const d of [1, 2, 0, 5, 0, 10]) {
      try {
        out.push((await db().query<{ v: number }>(text, [d])).rows[0]!.v);
      } catch (err) {
        out.push((err as { code?: string }).code ?? 'no code');
      }
    }
    expect(out).toEqual([10, 5, '22012', 2, '22012', 1]);
    expect((await db().query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});

describeEachEngine('store: a Db as JSON', (db) => {
  it('shows its engine only, never its pool, connection settings or statements', async () => {
    await db().query('SELECT 1');
    await db().query('SELECT 1');
    const json = JSON.stringify({ db: db() });
    expect(JSON.parse(json)).toEqual({ db: { engine: db().engine } });
  });
});
