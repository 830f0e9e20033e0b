import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';

const FIELDS = [
  { title: '名称', uidt: '文本', required: true },
  { title: '数量', uidt: '整数' },
  { title: '金额', uidt: '数字' },
  { title: '状态', uidt: '单选', options: ['新建', '完成'] },
  { title: '附加', uidt: 'JSON' },
  { title: '日期', uidt: '日期' },
];

describeEachEngine('datatable writes', (db) => {
  let t: RowsEnv;
  let id: string;
  const count = async (table = '货品') => {
    const { rows } = await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM org_data_acme."${table}"`);
    return Number(rows[0]!.n);
  };
  beforeAll(async () => {
    t = await rowsEnv(db());
    id = await t.table('货品', FIELDS);
  });

  it('R-DT-33/R-DT-08/R-DT-73/R-DT-74/R-DT-85b: insert returns the complete record; id ignored, unknown dropped, "" → NULL, JSON round-trips', async () => {
    const r = await t.call({
      action: 'insert',
      payload: {
        table_id: id,
        data: { id: 999, 名称: '螺丝', 数量: '１，２００', 金额: '12.5', 状态: '', 附加: { k: ['v', 1] }, 颜色: '红', 日期: '2026-01-02' },
      },
    });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(r).toMatchObject({ 名称: '螺丝', 数量: 1200, 金额: 12.5, 状态: null, 附加: { k: ['v', 1] }, 日期: '2026-01-02' });
    expect(r.id).not.toBe(999);
    expect(typeof r.created_at).toBe('string');
    expect(r.action_note).toMatch(/ignored unknown fields: id, 颜色/);
    // R-DT-97: committed, visible from another session
    const { rows } = await db().query<{ 附加: string }>(`SELECT "附加" FROM org_data_acme."货品" WHERE id = $1`, [r.id]);
    expect(JSON.parse(rows[0]!.附加)).toEqual({ k: ['v', 1] });
  });

  it('R-DT-70/R-DT-69/R-DT-72 (acceptance): 1.5 into 整数, 3万 into 数字, an option outside the list ⇒ recoverable', async () => {
    const before = await count();
    for (const [data, field] of [
      [{ 名称: 'a', 数量: 1.5 }, '数量'],
      [{ 名称: 'a', 金额: '3万' }, '金额'],
      [{ 名称: 'a', 状态: '作废' }, '状态'],
    ] as const) {
      const r = await t.call({ action: 'insert', payload: { table_id: id, data } });
      expect(r, JSON.stringify(data)).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'data' });
      expect((r.errors as Array<{ field: string }>)[0]!.field).toBe(field);
      expect(r.non_retriable).toBeUndefined();
    }
    expect(await count()).toBe(before);
  });

  it('R-DT-75: required is checked on insert only', async () => {
    const miss = await t.call({ action: 'insert', payload: { table_id: id, data: { 数量: 1 } } });
    expect(miss).toMatchObject({ success: false, need_param: 'data' });
    const row = await t.call({ action: 'insert', payload: { table_id: id, data: { 名称: '垫片' } } });
    const upd = await t.call({ action: 'update', payload: { table_id: id, row_id: row.id, data: { 数量: 7 } } });
    expect(upd).toMatchObject({ success: true, id: row.id, 名称: '垫片', 数量: 7 });
  });

  it('R-DT-37: update → complete record; unknown row ⇒ not found; bad row_id ⇒ need_param', async () => {
    const row = await t.call({ action: 'insert', payload: { table_id: id, data: { 名称: '弹簧', 数量: 1 } } });
    const u = await t.call({ action: 'update', payload: { table_id: id, row_id: String(row.id), data: { 状态: '完成', 金额: 3 } } });
    expect(u).toMatchObject({ success: true, id: row.id, 名称: '弹簧', 数量: 1, 状态: '完成', 金额: 3 });
    expect(await t.call({ action: 'update', payload: { table_id: id, row_id: 987654, data: { 数量: 1 } } })).toMatchObject({
      success: false,
      not_found: true,
    });
    expect(await t.call({ action: 'update', payload: { table_id: id, row_id: 'abc', data: { 数量: 1 } } })).toMatchObject({
      success: false,
      need_param: 'row_id',
    });
    expect(await t.call({ action: 'update', payload: { table_id: id, row_id: row.id, data: { 颜色: 'x' } } })).toMatchObject({
      success: false,
      need_param: 'data',
    });
  });

  it('R-DT-38/D-11: update_by → {updated}; empty or unparsable filters refused', async () => {
    await t.call({
      action: 'insert_batch',
      payload: {
        table_id: id,
        records: [
          { 名称: 'ub', 数量: 1 },
          { 名称: 'ub', 数量: 2 },
          { 名称: 'ub2', 数量: 3 },
        ],
      },
    });
    const r = await t.call({
      action: 'update_by',
      payload: { table_id: id, filters: [{ field: '名称', op: 'eq', value: 'ub' }], data: { 状态: '完成' } },
    });
    expect(r).toEqual({ success: true, updated: 2, display_md: expect.stringMatching(/^已更新 \*\*.+\*\* 中的 2 条记录。$/) });
    for (const filters of [undefined, [], ['']]) {
      const bad = await t.call({ action: 'update_by', payload: { table_id: id, filters, data: { 状态: '新建' } } });
      expect(bad, JSON.stringify(filters)).toMatchObject({ success: false, need_param: 'filters' });
    }
    const { rows } = await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM org_data_acme."货品" WHERE "状态" = '新建'`);
    expect(rows[0]!.n).toBe('0');
  });

  it('R-DT-34/R-DT-98/R-DT-103: insert_batch isolates each row; counts are verifiable', async () => {
    const before = await count();
    const r = await t.call({
      action: 'insert_batch',
      payload: {
        table_id: id,
        records: [{ 名称: 'b1' }, { 名称: 'b2', 数量: 'x' }, { 名称: 'b3' }, 'not an object', { 名称: 'b5', 日期: '2026/1/2' }],
      },
    });
    expect(r).toMatchObject({ success: true, inserted: 2, skipped: 0, failed: 3, partial: true });
    expect((r.errors as Array<{ row: number }>).map((e) => e.row)).toEqual([2, 4, 5]);
    expect(r.verified_total).toBe(before + 2);
    expect(await count()).toBe(before + 2);
  });

  it('R-DT-59/R-DT-62/D-10: records must be an array; > 100 ⇒ redirect insert_from_file; data array ≤ 100 accepted as a batch', async () => {
    expect(await t.call({ action: 'insert_batch', payload: { table_id: id, records: { 名称: 'x' } } })).toMatchObject({
      success: false,
      need_param: 'records',
    });
    const many = Array.from({ length: 101 }, (_, i) => ({ 名称: `m${i}` }));
    expect(await t.call({ action: 'insert_batch', payload: { table_id: id, records: many } })).toMatchObject({
      success: false,
      redirect: 'insert_from_file',
    });
    expect(await t.call({ action: 'insert', payload: { table_id: id, data: many } })).toMatchObject({
      success: false,
      redirect: 'insert_from_file',
    });
    expect(await t.call({ action: 'upsert', payload: { table_id: id, key_fields: ['名称'], records: many } })).toMatchObject({
      success: false,
      redirect: 'insert_from_file',
    });
    const arr = await t.call({ action: 'insert', payload: { table_id: id, data: [{ 名称: 'd1' }, { 名称: 'd2' }] } });
    expect(arr).toMatchObject({ success: true, inserted: 2 });
    expect(arr.action_note).toMatch(/D-10/);
  });

  it('R-DT-60: on_conflict=skip needs a unique constraint; then duplicates are skipped', async () => {
    const r = await t.call({ action: 'insert_batch', payload: { table_id: id, records: [{ 名称: 'x' }], on_conflict: 'skip' } });
    expect(r).toMatchObject({ success: false, need_param: 'on_conflict', error_type: 'recoverable' });
    const u = await t.table('编码表', [
      { title: '编码', uidt: '文本', unique: true },
      { title: '说明', uidt: '文本' },
    ]);
    await t.call({ action: 'insert', payload: { table_id: u, data: { 编码: 'A' } } });
    const s = await t.call({
      action: 'insert_batch',
      payload: { table_id: u, records: [{ 编码: 'A' }, { 编码: 'B' }, { 编码: 'B' }], on_conflict: 'skip' },
    });
    expect(s).toMatchObject({ success: true, inserted: 1, skipped: 2, failed: 0, verified_total: 2 });
    // without skip a duplicate is a failed row with its SQLSTATE; the others are inserted
    const d = await t.call({ action: 'insert_batch', payload: { table_id: u, records: [{ 编码: 'C' }, { 编码: 'A' }, { 编码: 'D' }] } });
    expect(d).toMatchObject({ success: true, inserted: 2, failed: 1 });
    expect(d.errors).toMatchObject([{ row: 2, sqlstate: '23505' }]);
    const single = await t.call({ action: 'insert', payload: { table_id: u, data: { 编码: 'A' } } });
    expect(single).toMatchObject({ success: false, error_type: 'recoverable', sqlstate: '23505' });
    // R-DT-99: the next call on the same database works
    expect((await t.call({ action: 'query', payload: { table_id: u } })).pageInfo).toMatchObject({ totalRows: 4 });
  });

  it('R-DT-98: database-level failures inside a set-wise chunk are isolated to their rows', async () => {
    const u = await t.table('唯一号', [{ title: '号', uidt: '文本', unique: true }]);
    const recs = Array.from({ length: 40 }, (_, i) => ({ 号: `n${i}` }));
    recs[4] = { 号: 'n0' }; // duplicates of earlier rows: only the database can tell
    recs[36] = { 号: 'n1' };
    const r = await t.call({ action: 'insert_batch', payload: { table_id: u, records: recs } });
    expect(r).toMatchObject({ success: true, inserted: 38, failed: 2, verified_total: 38 });
    expect((r.errors as Array<{ row: number; sqlstate: string }>).map((e) => [e.row, e.sqlstate])).toEqual([
      [5, '23505'],
      [37, '23505'],
    ]);
  });

  it('R-DT-35/R-DT-64: insert_from_file with mapping and defaults; the file is kept', async () => {
    const f = await t.table('导入表', [
      { title: '姓名', uidt: '文本' },
      { title: '城市', uidt: '文本' },
      { title: '分数', uidt: '整数' },
    ]);
    mkdirSync(join(t.ws, 'imports'), { recursive: true });
    writeFileSync(
      join(t.ws, 'imports', 'a.json'),
      JSON.stringify([
        { name: '甲', score: 1 },
        { name: '乙', score: '2', 城市: '上海' },
        { name: '丙', score: 2.5 },
      ]),
    );
    const r = await t.call({
      action: 'insert_from_file',
      payload: { table_id: f, file: 'imports/a.json', mapping: { 姓名: 'name', 分数: 'score' }, defaults: { 城市: '北京' } },
    });
    expect(r).toMatchObject({ success: true, inserted: 2, failed: 1, verified_total: 2 });
    expect(r.errors).toMatchObject([{ row: 3, field: '分数' }]);
    const q = await t.call({ action: 'query', payload: { table_id: f, sort: '姓名' } });
    expect((q.list as Array<Record<string, unknown>>).map((x) => [x.姓名, x.城市, x.分数])).toEqual([
      ['乙', '上海', 2],
      ['甲', '北京', 1],
    ]);
    expect(existsSync(join(t.ws, 'imports', 'a.json'))).toBe(true);
    writeFileSync(join(t.ws, 'b.jsonl'), '{"姓名":"丁"}\n\n{"姓名":"戊"}\n');
    expect(await t.call({ action: 'insert_from_file', payload: { table_id: f, file: join(t.ws, 'b.jsonl') } })).toMatchObject({
      success: true,
      inserted: 2,
    });
  });

  it('R-DT-35/R-DT-98: a multi-chunk import keeps input order in ids and reports every bad row', async () => {
    const f = await t.table('大表', [
      { title: '序', uidt: '整数' },
      { title: '标签', uidt: '多选', options: ['x', 'y"z', 'a,b'] },
      { title: '码', uidt: '文本', unique: true },
    ]);
    const n = 12_345;
    const recs: Array<Record<string, unknown>> = Array.from({ length: n }, (_, i) => ({
      序: i + 1,
      标签: i % 2 ? ['x', 'y"z'] : ['a,b'],
      码: `c${i}`,
    }));
    recs[100] = { 序: '1万', 码: 'bad1' };
    recs[7000] = { 序: 7001, 码: 'c0' }; // duplicate only the database sees
    recs[12000] = { 序: 12001, 标签: ['nope'], 码: 'bad3' };
    writeFileSync(join(t.ws, 'big.json'), JSON.stringify(recs));
    const r = await t.call({ action: 'insert_from_file', payload: { table_id: f, file: 'big.json' } });
    expect(r).toMatchObject({ success: true, inserted: n - 3, failed: 3, verified_total: n - 3 });
    expect((r.errors as Array<{ row: number }>).map((e) => e.row)).toEqual([101, 7001, 12001]);
    const { rows } = await db().query<{ ok: boolean }>(
      `SELECT bool_and(ordered) AS ok FROM (SELECT "序" > lag("序") OVER (ORDER BY id) OR lag("序") OVER (ORDER BY id) IS NULL AS ordered FROM org_data_acme."大表") s`,
    );
    expect(rows[0]!.ok).toBe(true);
    const again = await t.call({ action: 'insert_from_file', payload: { table_id: f, file: 'big.json', on_conflict: 'skip' } });
    expect(again).toMatchObject({ inserted: 0, skipped: n - 2, failed: 2, verified_total: n - 3 });
    const tags = await db().query<{ t: string[] }>(`SELECT "标签" AS t FROM org_data_acme."大表" WHERE "序" IN (1, 2) ORDER BY "序"`);
    expect(tags.rows.map((x) => x.t)).toEqual([['a,b'], ['x', 'y"z']]);
  });

  it('R-DT-34: tricky text values survive the set-wise insert unchanged', async () => {
    const f = await t.table('怪字符', [
      { title: '值', uidt: '文本' },
      { title: '多', uidt: '多选', options: ['a b', 'NULL', 'q"\\', '{x}', 'c,d'] },
    ]);
    const texts = [
      'NULL',
      'null',
      ' lead',
      'trail ',
      'a"b',
      'back\\slash',
      '{brace}',
      'c,d',
      'line\nbreak',
      'tab\tx',
      '中文，标点',
      '😀',
      "'quote'",
    ];
    const records = texts.map((v, i) => ({ 值: v, 多: i % 2 ? ['a b', 'NULL'] : ['q"\\', '{x}', 'c,d'] }));
    const r = await t.call({ action: 'insert_batch', payload: { table_id: f, records } });
    expect(r).toMatchObject({ success: true, inserted: texts.length });
    const { rows } = await db().query<{ v: string; m: string[] }>(`SELECT "值" AS v, "多" AS m FROM org_data_acme."怪字符" ORDER BY id`);
    expect(rows.map((x) => x.v)).toEqual(texts);
    expect(rows.map((x) => x.m)).toEqual(records.map((x) => x.多));
  });

  it('D-23: insert_from_file refuses files outside the workspace and missing files', async () => {
    const outside = join(tmpdir(), `sg-outside-${process.pid}.json`);
    writeFileSync(outside, '[{"名称":"x"}]');
    for (const file of [outside, '../x.json', 'nope.json', undefined]) {
      const r = await t.call({ action: 'insert_from_file', payload: { table_id: id, file } });
      expect(r, String(file)).toMatchObject({ success: false, need_param: 'file', error_type: 'recoverable' });
    }
  });

  it('R-DT-36/R-DT-61/A-34: upsert on a table without constraints: insert, then update on the second run', async () => {
    const recs = [
      { 名称: 'u1', 数量: 1 },
      { 名称: 'u2', 数量: 2 },
    ];
    const first = await t.call({ action: 'upsert', payload: { table_id: id, key_fields: ['名称'], records: recs } });
    expect(first).toMatchObject({ success: true, inserted: 2, updated: 0, failed: 0 });
    const second = await t.call({
      action: 'upsert',
      payload: {
        table_id: id,
        key_fields: '名称',
        records: [
          { 名称: 'u1', 数量: 10 },
          { 名称: 'u3', 数量: 3 },
          { 名称: 'u2', 数量: 'bad' },
        ],
      },
    });
    expect(second).toMatchObject({ success: true, inserted: 1, updated: 1, failed: 1 });
    expect(second.verified_total).toBe(await count());
    const { rows } = await db().query<{ 数量: string }>(`SELECT "数量"::text FROM org_data_acme."货品" WHERE "名称" = 'u1'`);
    expect(rows).toEqual([{ 数量: '10' }]);
    const one = await t.call({ action: 'upsert', payload: { table_id: id, key_fields: ['名称'], data: { 名称: 'u3', 金额: 1 } } });
    expect(one).toMatchObject({ inserted: 0, updated: 1 });
    expect(await t.call({ action: 'upsert', payload: { table_id: id, records: recs } })).toMatchObject({
      success: false,
      need_param: 'key_fields',
    });
    expect(await t.call({ action: 'upsert', payload: { table_id: id, key_fields: ['x'], records: recs } })).toMatchObject({
      success: false,
      need_param: 'key_fields',
    });
    const amb = await t.call({ action: 'upsert', payload: { table_id: id, key_fields: ['名称'], data: { 名称: 'ub', 数量: 9 } } });
    expect(amb).toMatchObject({ success: false, failed: 1 });
    expect(String((amb.errors as Array<{ error: string }>)[0]!.error)).toMatch(/2 行匹配/);
  });
});
