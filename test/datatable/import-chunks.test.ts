/**
 * The column-wise batch path on a real database (R-DT-34, R-DT-98, R-DT-99, R-DT-103), with
 * tiny chunks and id blocks so one batch of 100 crosses many chunk and id-block boundaries.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BATCH_TUNING } from '../../src/datatable/bulk/write-batch.ts';
import type { Tx } from '../../src/store/db.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';

describeEachEngine('datatable column-wise batches', (db) => {
  let t: RowsEnv;
  const saved = { ...BATCH_TUNING };
  beforeAll(async () => {
    t = await rowsEnv(db());
    Object.assign(BATCH_TUNING, { chunkRows: 7, concurrency: 3, idBlock: 10 });
  });
  afterAll(() => {
    Object.assign(BATCH_TUNING, saved);
  });

  it('R-DT-98/R-DT-99/R-DT-103: ids follow the input across chunks and id blocks; database-only conflicts, database errors and in-batch duplicates each cost only their row', async () => {
    const f = await t.table('分块', [
      { title: '序', uidt: '整数' },
      { title: '码', uidt: '文本', unique: true },
      { title: '额', uidt: '数字', precision: 5, scale: 2 },
      { title: 'constructor', uidt: '文本' },
    ]);
    expect(await t.call({ action: 'insert', payload: { table_id: f, data: { 序: 0, 码: 'dup' } } })).toMatchObject({ success: true });
    const records: Array<Record<string, unknown>> = Array.from({ length: 100 }, (_, i) => ({
      序: i + 1,
      码: `k${i}`,
      额: '1.5',
      ...(i % 2 ? { constructor: 'c' } : {}),
    }));
    records[20]!.码 = 'dup'; // only the database sees this one
    records[50]!.额 = '999.999'; // passes validation, overflows numeric(5,2) after rounding (22003)
    records[80]!.码 = 'k3'; // repeats row 4
    records[90]!.序 = '1.5'; // refused by validation
    const r = await t.call({ action: 'insert_batch', payload: { table_id: f, records } });
    expect(r).toMatchObject({ success: true, partial: true, inserted: 96, skipped: 0, failed: 4, verified_total: 97 });
    const errors = r.errors as Array<{ row: number; sqlstate?: string; error: string }>;
    expect(errors.map((e) => [e.row, e.sqlstate])).toEqual([
      [21, '23505'],
      [51, '22003'],
      [81, '23505'],
      [91, undefined],
    ]);
    expect(errors[2]!.error).toMatch(/第 4 行/);
    const { rows } = await db().query<{ seq: string; c: string | null }>(
      `SELECT "序"::text AS seq, "constructor" AS c FROM org_data_acme."分块" WHERE "序" > 0 ORDER BY id`,
    );
    expect(rows.map((x) => Number(x.seq))).toEqual(records.map((_, i) => i + 1).filter((n) => ![21, 51, 81, 91].includes(n)));
    expect(rows.filter((x) => x.c === 'c').length).toBe(50); // the odd rows; the four failing rows are even
    expect(rows.some((x) => x.c !== null && x.c !== 'c')).toBe(false);
    const again = await t.call({ action: 'insert_batch', payload: { table_id: f, records: records.slice(0, 30), on_conflict: 'skip' } });
    expect(again).toMatchObject({ inserted: 0, skipped: 30, failed: 0, verified_total: 97 });
  });

  it('R-DT-34/R-DT-98: values already in the table are found before the INSERT (no chunk fails and runs again); same row numbers and text, skip counts them', async () => {
    const f = await t.table('预查', [
      { title: '码', uidt: '文本', unique: true },
      { title: '号', uidt: '整数', unique: true },
    ]);
    expect(
      await t.call({
        action: 'insert_batch',
        payload: {
          table_id: f,
          records: [
            { 码: 'a', 号: 1 },
            { 码: 'b', 号: 2 },
          ],
        },
      }),
    ).toMatchObject({ inserted: 2 });
    const sql: string[] = [];
    const wrap = (tx: Tx): Tx =>
      Object.assign(Object.create(tx) as Tx, {
        query: (q: string, v?: unknown[]) => (sql.push(q), tx.query(q, v)),
        savepoint: <T>(fn: (sp: Tx) => Promise<T>) => tx.savepoint((sp) => fn(wrap(sp))),
      });
    const db_factory = <T>(fn: (tx: Tx) => Promise<T>) => db().transaction((tx) => fn(wrap(tx)));
    const records = Array.from({ length: 30 }, (_, i) => ({ 码: `k${i}`, 号: 100 + i }));
    records[3]!.码 = 'a'; // in the table (text field)
    records[17]!.号 = 2; // in the table (integer field)
    records[25]!.码 = 'k4'; // repeats row 5 of the file
    const r = await t.call({ action: 'insert_batch', payload: { table_id: f, records: records.slice(0, 30) } }, { db_factory });
    expect(r).toMatchObject({ inserted: 27, failed: 3, verified_total: 29 });
    const errors = r.errors as Array<{ row: number; sqlstate?: string; error: string }>;
    expect(errors.map((e) => [e.row, e.sqlstate])).toEqual([
      [4, '23505'],
      [18, '23505'],
      [26, '23505'],
    ]);
    expect(errors[0]!.error).toBe('违反唯一约束（重复值）（唯一字段：码、号）（SQLSTATE 23505）');
    expect(sql.filter((q) => q.startsWith('INSERT')).length).toBe(5); // one per chunk of 7, none redone
    expect(sql.filter((q) => q.includes('ON CONFLICT'))).toEqual([]);
    const skip = await t.call({ action: 'insert_batch', payload: { table_id: f, records: records.slice(0, 10), on_conflict: 'skip' } });
    expect(skip).toMatchObject({ inserted: 0, skipped: 10, failed: 0, verified_total: 29 });
  });
});
