/**
 * Bulk import through `COPY … FROM STDIN` on the server engine (R-DT-98, R-DT-99, R-DT-34): values
 * with COPY's special characters arrive unchanged, and a chunk
 * holding a duplicate only the database sees falls back and reports exactly that row. On
 * PGlite the same test exercises the unnest path (no `copyFrom` there).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY_TUNING, copyField } from '../../src/datatable/bulk/column-copy.ts';
import { BATCH_TUNING } from '../../src/datatable/bulk/write-batch.ts';
import type { Tx } from '../../src/store/db.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';

describeEachEngine('datatable import via COPY FROM STDIN (server engine)', (db, engine) => {
  let t: RowsEnv;
  const saved = { ...BATCH_TUNING };
  const savedCopy = { ...COPY_TUNING };
  let copies = 0;
  // Counts COPY statements (present only on the server engine's transactions).
  const countingFactory = <T>(fn: (tx: Tx) => Promise<T>) =>
    db().transaction((tx) => {
      const copy = tx.copyFrom;
      const wrapped: Tx = copy
        ? {
            query: (s, v) => tx.query(s, v),
            savepoint: (f) => tx.savepoint(() => f(wrapped)),
            copyFrom: (s, d) => {
              copies++;
              return copy.call(tx, s, d);
            },
          }
        : tx;
      return fn(wrapped);
    });
  beforeAll(async () => {
    t = await rowsEnv(db());
    Object.assign(BATCH_TUNING, { chunkRows: 10, concurrency: 2, idBlock: 25 });
    COPY_TUNING.enabled = true;
  });
  afterAll(() => {
    Object.assign(BATCH_TUNING, saved);
    Object.assign(COPY_TUNING, savedCopy);
  });

  it('R-DT-98: array-literal elements become COPY text fields (\\N, unquoting, \\ \\t \\n \\r escaped)', () => {
    expect(copyField('NULL')).toBe('\\N');
    expect(copyField('"NULL"')).toBe('NULL');
    expect(copyField('12.5')).toBe('12.5');
    expect(copyField('"a\\"b\\\\c"')).toBe('a"b\\\\c');
    expect(copyField('"x\ty\nz\rw"')).toBe('x\\ty\\nz\\rw');
    expect(copyField('"\\\\N"')).toBe('\\\\N');
  });

  it('R-DT-98/R-DT-99/R-DT-34: special characters round-trip; a database-only duplicate in a chunk falls back and reports exactly that row', async () => {
    const f = await t.table('复制', [
      { title: '码', uidt: '文本', unique: true },
      { title: '注', uidt: '长文本' },
      { title: '额', uidt: '数字', precision: 6, scale: 2 },
      { title: '时', uidt: '日期时间' },
      { title: '标', uidt: '多选', options: ['a,b', 'c"d', 'e\\f'] },
    ]);
    expect(await t.call({ action: 'insert', payload: { table_id: f, data: { 码: 'taken' } } })).toMatchObject({ success: true });
    const odd = ['tab\there', 'line\nbreak', 'cr\rx', 'back\\slash', 'quote"s', 'NULL', '\\N', '{x,y}', ' lead', '中文，逗号'];
    const records = Array.from({ length: 40 }, (_, i) => ({
      码: `k${i}`,
      注: odd[i % odd.length],
      额: i % 3 === 0 ? null : `${i}.25`,
      时: `2026-03-0${(i % 9) + 1} 0${i % 10}:15:00`,
      标: i % 2 ? ['a,b', 'c"d'] : ['e\\f'],
    }));
    records[13]!.码 = 'taken'; // only the database sees this one (chunk 2 of 4)
    writeFileSync(join(t.ws, 'copy.json'), JSON.stringify(records));
    copies = 0;
    const r = await t.call({ action: 'insert_from_file', payload: { table_id: f, file: 'copy.json' } }, { db_factory: countingFactory });
    expect(r).toMatchObject({ success: true, partial: true, inserted: 39, skipped: 0, failed: 1, verified_total: 40 });
    expect(r.errors).toEqual([{ row: 14, sqlstate: '23505', error: '违反唯一约束（重复值）（唯一字段：码）（SQLSTATE 23505）' }]);
    expect(copies).toBe(engine === 'server' ? 4 : 0);
    const { rows } = await db().query<{ code: string; note: string | null; amount: string | null; at: string; tags: string[] }>(
      `SELECT "码" AS code, "注" AS note, "额"::text AS amount, to_char("时", 'YYYY-MM-DD HH24:MI:SS') AS at, "标" AS tags
         FROM org_data_acme."复制" WHERE "码" <> 'taken' ORDER BY id`,
    );
    const expected = records.filter((_, i) => i !== 13);
    expect(rows.map((x) => x.code)).toEqual(expected.map((x) => x.码));
    expect(rows.map((x) => x.note)).toEqual(expected.map((x) => x.注));
    expect(rows.map((x) => x.amount)).toEqual(expected.map((x) => (x.额 === null ? null : x.额)));
    expect(rows.map((x) => x.at)).toEqual(expected.map((x) => x.时));
    expect(rows.map((x) => x.tags)).toEqual(expected.map((x) => x.标));
  });
});
