import { beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FIELDS = [
  { title: '姓名', uidt: '文本' },
  { title: '部门', uidt: '单选', options: ['研发', '销售', '财务'] },
  { title: '薪资', uidt: '整数' },
  { title: '奖金', uidt: '数字' },
  { title: '入职', uidt: '日期' },
  { title: '标签', uidt: '多选', options: ['a', 'b', 'c'] },
  { title: '备注', uidt: '文本' },
];

describeEachEngine('datatable reads: query, aggregate, filters', (db) => {
  let t: RowsEnv;
  let id: string;
  beforeAll(async () => {
    t = await rowsEnv(db());
    id = await t.table('员工', FIELDS);
    const depts = ['研发', '销售', '财务'];
    const recs = Array.from({ length: 120 }, (_, i) => ({
      姓名: `员工${i + 1}`,
      部门: depts[i % 3],
      薪资: 5000 + i * 100,
      奖金: (i % 7) * 1.5,
      入职: `2025-${String((i % 12) + 1).padStart(2, '0')}-01`,
      标签: i % 2 ? ['a'] : ['b', 'c'],
      备注: i % 10 === 0 ? null : `note ${i}`,
    }));
    writeFileSync(join(t.ws, 'staff.json'), JSON.stringify(recs));
    const r = await t.call({ action: 'insert_from_file', payload: { table_id: id, file: 'staff.json' } });
    expect(r).toMatchObject({ success: true, inserted: 120, failed: 0, verified_total: 120 });
  });

  it('R-DT-31/R-DT-56/R-DT-57: {list, pageInfo}; default id DESC; default limit 100', async () => {
    const r = await t.call({ action: 'query', payload: { table_id: id } });
    expect(r.success).toBe(true);
    const list = r.list as Array<Record<string, unknown>>;
    expect(list).toHaveLength(100);
    expect(list[0]!.id).toBe(120);
    expect(list[1]!.id).toBe(119);
    expect(r.pageInfo).toEqual({ totalRows: 120, limit: 100, offset: 0, hasMore: true });
    expect(Object.keys(list[0]!)).toEqual(['id', '姓名', '部门', '薪资', '奖金', '入职', '标签', '备注', 'created_at']);
    expect(list[0]).toMatchObject({ 姓名: '员工120', 部门: '财务', 薪资: 16900, 奖金: 0, 入职: '2025-12-01', 标签: ['a'] });
    const page2 = await t.call({ action: 'query', payload: { table_id: id, limit: 100, offset: 100 } });
    expect((page2.list as unknown[]).length).toBe(20);
    expect(page2.pageInfo).toMatchObject({ hasMore: false, offset: 100 });
  });

  it('R-DT-57/A-28: limit above 1000 is clamped and said in action_note', async () => {
    const r = await t.call({ action: 'query', payload: { table_id: id, limit: 5000 } });
    expect(r.success).toBe(true);
    expect(r.pageInfo).toMatchObject({ limit: 1000 });
    expect(r.action_note).toMatch(/limit 5000 → 1000/);
    const bad = await t.call({ action: 'query', payload: { table_id: id, limit: -1 } });
    expect(bad).toMatchObject({ success: false, need_param: 'limit', error_type: 'recoverable' });
  });

  it('R-DT-56: sort by one field, "-" for descending; unknown sort field is an error', async () => {
    const asc = await t.call({ action: 'query', payload: { table_id: id, sort: '薪资', limit: 2 } });
    expect((asc.list as Array<Record<string, unknown>>).map((x) => x.薪资)).toEqual([5000, 5100]);
    const desc = await t.call({ action: 'query', payload: { table_id: id, sort: '-薪资', limit: 2 } });
    expect((desc.list as Array<Record<string, unknown>>).map((x) => x.薪资)).toEqual([16900, 16800]);
    const bad = await t.call({ action: 'query', payload: { table_id: id, sort: '-不存在' } });
    expect(bad).toMatchObject({ success: false, need_param: 'sort' });
  });

  it('R-DT-49/R-DT-50: the eleven operators, AND-ed', async () => {
    const count = async (filters: unknown) => {
      const r = await t.call({ action: 'query', payload: { table_id: id, filters, limit: 1 } });
      expect(r.success, JSON.stringify(r)).toBe(true);
      return (r.pageInfo as { totalRows: number }).totalRows;
    };
    expect(await count([{ field: '部门', op: 'eq', value: '研发' }])).toBe(40);
    expect(await count([{ field: '部门', op: 'ne', value: '研发' }])).toBe(80);
    expect(await count([{ field: '薪资', op: 'gt', value: 16000 }])).toBe(9);
    expect(await count([{ field: '薪资', op: 'gte', value: 16000 }])).toBe(10);
    expect(await count([{ field: '薪资', op: 'lt', value: 5200 }])).toBe(2);
    expect(await count([{ field: '薪资', op: 'lte', value: 5200 }])).toBe(3);
    expect(await count([{ field: '姓名', op: 'contains', value: '员工11' }])).toBe(11); // 11, 110..119
    expect(await count([{ field: '部门', op: 'in', value: ['研发', '财务'] }])).toBe(80);
    expect(await count([{ field: '薪资', op: 'between', value: [5000, 5900] }])).toBe(10);
    expect(await count([{ field: '备注', op: 'is_null' }])).toBe(12);
    expect(await count([{ field: '备注', op: 'not_null' }])).toBe(108);
    expect(await count([{ field: '标签', op: 'contains', value: 'c' }])).toBe(60);
    expect(await count([{ field: '入职', op: 'gte', value: '2025-12-01' }])).toBe(10);
    // R-DT-49: two filters ⇒ intersection
    expect(
      await count([
        { field: '部门', op: 'eq', value: '研发' },
        { field: '薪资', op: 'lt', value: 6000 },
      ]),
    ).toBe(4);
    // full-width digits in a number filter (R-DT-68)
    expect(await count([{ field: '薪资', op: 'eq', value: '５，０００' }])).toBe(1);
  });

  it('R-DT-50: wrong value shapes are errors (between arity, in not an array, unknown op)', async () => {
    for (const f of [
      { field: '薪资', op: 'between', value: [1] },
      { field: '薪资', op: 'between', value: [1, 2, 3] },
      { field: '部门', op: 'in', value: '研发' },
      { field: '部门', op: 'like_regex', value: 'x' },
      { field: '薪资', op: 'eq', value: { a: 1 } },
    ]) {
      const r = await t.call({ action: 'query', payload: { table_id: id, filters: [f] } });
      expect(r, JSON.stringify(f)).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'filters' });
    }
  });

  it('R-DT-51: the field-map shape is converted to eq conditions (noted)', async () => {
    const r = await t.call({ action: 'query', payload: { table_id: id, filters: { 部门: '研发', 薪资: 5000 } } });
    expect(r.pageInfo).toMatchObject({ totalRows: 1 });
    expect(r.action_note).toMatch(/field map/);
  });

  it('R-DT-52: a filter on an unknown field is an error, never dropped', async () => {
    const r = await t.call({ action: 'query', payload: { table_id: id, filters: [{ field: '年龄', op: 'gt', value: 3 }] } });
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'filters' });
    expect(String(r.error)).toMatch(/"年龄" does not exist/);
  });

  it('R-DT-53/A-37: unresolved references in filter values are refused', async () => {
    for (const value of ['{客户名}', 'x {name} y', '$steps.fetch.name', ['ok', '$prev.x']]) {
      const op = Array.isArray(value) ? 'in' : 'eq';
      const r = await t.call({ action: 'query', payload: { table_id: id, filters: [{ field: '姓名', op, value }] } });
      expect(r, JSON.stringify(value)).toMatchObject({ success: false, need_param: 'filters' });
      expect(String(r.error)).toMatch(/unresolved reference/);
    }
    const jsonish = await t.call({ action: 'query', payload: { table_id: id, filters: [{ field: '姓名', op: 'eq', value: '{"a": 1}' }] } });
    expect(jsonish.success).toBe(true);
  });

  it('R-DT-54/D-11: unparsable items ("", "x") are refused, never widened to the whole table', async () => {
    for (const filters of [['', 'x'], [''], ['部门=研发'], [null], [{ op: 'eq', value: 1 }], '部门=研发']) {
      const r = await t.call({ action: 'query', payload: { table_id: id, filters } });
      expect(r, JSON.stringify(filters)).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'filters' });
      expect(r.list).toBeUndefined();
    }
  });

  it('R-DT-32/R-DT-55: aggregate → {rows, group_by, metrics}; count may omit field', async () => {
    const r = await t.call({
      action: 'aggregate',
      payload: {
        table_id: id,
        group_by: '部门',
        metrics: [
          { op: 'count', alias: '人数' },
          { field: '薪资', op: 'sum', alias: '总薪资' },
          { field: '薪资', op: 'max' },
          { field: '奖金', op: 'avg', alias: '平均奖金' },
          { field: '薪资', op: 'min' },
        ],
      },
    });
    expect(r.success, JSON.stringify(r)).toBe(true);
    expect(r.group_by).toEqual(['部门']);
    expect(r.metrics).toEqual([
      { op: 'count', alias: '人数' },
      { field: '薪资', op: 'sum', alias: '总薪资' },
      { field: '薪资', op: 'max', alias: 'max_薪资' },
      { field: '奖金', op: 'avg', alias: '平均奖金' },
      { field: '薪资', op: 'min', alias: 'min_薪资' },
    ]);
    const rows = r.rows as Array<Record<string, unknown>>;
    expect(rows.map((x) => x.部门)).toEqual(['研发', '财务', '销售']);
    const yf = rows.find((x) => x.部门 === '研发')!;
    expect(yf.人数).toBe(40);
    expect(yf.总薪资).toBe(Array.from({ length: 40 }, (_, k) => 5000 + k * 3 * 100).reduce((a, b) => a + b, 0));
    expect(yf.min_薪资).toBe(5000);
    expect(typeof yf.平均奖金).toBe('number');
    const all = await t.call({
      action: 'aggregate',
      payload: { table_id: id, metrics: [{ op: 'count' }], filters: [{ field: '部门', op: 'eq', value: '销售' }] },
    });
    expect(all.rows).toEqual([{ count: 40 }]);
  });

  it('R-DT-55: bad metrics are recoverable errors (missing, unknown op, sum of text)', async () => {
    for (const metrics of [
      undefined,
      [],
      [{ field: '薪资', op: 'median' }],
      [{ field: '姓名', op: 'sum' }],
      [{ op: 'sum' }],
      [{ field: '不存在', op: 'max' }],
    ]) {
      const r = await t.call({ action: 'aggregate', payload: { table_id: id, metrics } });
      expect(r, JSON.stringify(metrics)).toMatchObject({ success: false, need_param: 'metrics' });
    }
  });

  it('R-DT-58/A-28: aggregate limit default 1000, 20000 clamped to 10000 with a note', async () => {
    const r = await t.call({
      action: 'aggregate',
      payload: { table_id: id, group_by: ['姓名'], metrics: [{ op: 'count' }], limit: 20000 },
    });
    expect(r.success).toBe(true);
    expect((r.rows as unknown[]).length).toBe(120);
    expect(r.action_note).toMatch(/limit 20000 → 10000/);
    const small = await t.call({
      action: 'aggregate',
      payload: { table_id: id, group_by: ['姓名'], metrics: [{ op: 'count', alias: 'n' }], limit: 5, sort: '-n' },
    });
    expect((small.rows as unknown[]).length).toBe(5);
  });
});
