/**
 * Remaining datatable requirements on both engines: batch scripts
 * only on the admin line (R-DT-27, A-27), `data` as an array (R-DT-63, D-10), the > 100
 * redirect to insert_from_file (R-DT-65), table/field names on the error path after the
 * rollback (R-DT-101), no assumed unique constraint (R-DT-102, A-34).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';

const ADMIN_LINE = { channel: 'web_admin', is_admin: true };

describeEachEngine('datatable: remaining requirements', (db) => {
  let t: RowsEnv;
  const count = async (table: string) => {
    const { rows } = await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM org_data_acme."${table}"`);
    return Number(rows[0]!.n);
  };
  const uniqueIndexes = async (table: string) => {
    const { rows } = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace s ON s.oid = c.relnamespace
        WHERE s.nspname = 'org_data_acme' AND c.relname = $1 AND i.indisunique AND NOT i.indisprimary`,
      [table],
    );
    return rows[0]!.n;
  };
  const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ 名称: `${prefix}${i}` }));

  beforeAll(async () => {
    t = await rowsEnv(db(), { channel: 'web' });
    await t.table('批量', [{ title: '名称', uidt: '文本' }]);
    await t.table('客户', [
      { title: '编号', uidt: '文本', unique: true },
      { title: '名称', uidt: '文本', required: true },
      { title: '等级', uidt: '整数' },
    ]);
    await t.table('流水', [
      { title: '单号', uidt: '文本' },
      { title: '金额', uidt: '数字' },
    ]);
    await t.table('脚本表', [
      { title: '名称', uidt: '文本' },
      { title: '数量', uidt: '整数' },
    ]);
  });

  it('R-DT-63 (D-10): insert with `data` as an array of ≤ 100 is processed as a batch, with an action_note', async () => {
    const r = await t.call({ action: 'insert', payload: { table_name: '批量', data: many(3, 'arr-') } });
    expect(r, JSON.stringify(r)).toMatchObject({ success: true, inserted: 3, failed: 0 });
    expect(String(r.action_note)).toMatch(/insert_batch/);
    expect(await count('批量')).toBe(3);
  });

  it('R-DT-63 (D-10): insert with `data` as an array of 101 is refused with redirect insert_from_file; nothing written', async () => {
    const before = await count('批量');
    const r = await t.call({ action: 'insert', payload: { table_name: '批量', data: many(101, 'big-') } });
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', redirect: 'insert_from_file', need_param: 'data' });
    expect(await count('批量')).toBe(before);
  });

  it('R-DT-65: 101 records via insert_batch (and upsert) ⇒ redirect insert_from_file; the same data in one workspace file imports whole', async () => {
    const before = await count('批量');
    const records = many(101, 'file-');
    const batch = await t.call({ action: 'insert_batch', payload: { table_name: '批量', records } });
    expect(batch).toMatchObject({ success: false, error_type: 'recoverable', redirect: 'insert_from_file', need_param: 'records' });
    expect(String(batch.user_message)).toMatch(/insert_from_file/);
    const up = await t.call({ action: 'upsert', payload: { table_name: '批量', key_fields: ['名称'], records } });
    expect(up).toMatchObject({ success: false, redirect: 'insert_from_file' });
    expect(await count('批量')).toBe(before);
    // The redirect's advice: the whole data once in a workspace file, one insert_from_file call.
    mkdirSync(join(t.ws, 'imports'), { recursive: true });
    writeFileSync(join(t.ws, 'imports', 'batch_import_1.json'), JSON.stringify(records));
    const file = await t.call({ action: 'insert_from_file', payload: { table_name: '批量', file: 'imports/batch_import_1.json' } });
    expect(file, JSON.stringify(file)).toMatchObject({ success: true, inserted: 101, failed: 0, verified_total: before + 101 });
    expect(await count('批量')).toBe(before + 101);
  });

  it('R-DT-101: a unique violation on insert / update reports the table and the field after the rollback; the next write works', async () => {
    const first = await t.call({ action: 'insert', payload: { table_name: '客户', data: { 编号: 'C1', 名称: '甲' } } });
    expect(first.success, JSON.stringify(first)).toBe(true);
    const dup = await t.call({ action: 'insert', payload: { table_name: '客户', data: { 编号: 'C1', 名称: '乙' } } });
    expect(dup).toMatchObject({ success: false, error_type: 'recoverable', sqlstate: '23505', table: '客户', fields: ['编号'] });
    expect(String(dup.user_message)).toContain('表「客户」');
    expect(String(dup.user_message)).toContain('字段：编号');
    expect(String(dup.error)).toContain('table "客户"');
    // The failed transaction was rolled back: the next statement is not poisoned (25P02).
    const next = await t.call({ action: 'insert', payload: { table_name: '客户', data: { 编号: 'C2', 名称: '丙' } } });
    expect(next.success, JSON.stringify(next)).toBe(true);
    const upd = await t.call({ action: 'update', payload: { table_name: '客户', row_id: next.id, data: { 编号: 'C1' } } });
    expect(upd).toMatchObject({ success: false, sqlstate: '23505', table: '客户', fields: ['编号'] });
    const updBy = await t.call({
      action: 'update_by',
      payload: { table_name: '客户', filters: [{ field: '编号', op: 'eq', value: 'C2' }], data: { 编号: 'C1' } },
    });
    expect(updBy).toMatchObject({ success: false, sqlstate: '23505', table: '客户', fields: ['编号'] });
    expect(await count('客户')).toBe(2);
  });

  it('R-DT-101: an upsert row that fails in the database names its field in errors', async () => {
    // Matched on 名称 (no constraint there); the new row's 编号 collides with C1.
    const r = await t.call({
      action: 'upsert',
      payload: {
        table_name: '客户',
        key_fields: ['名称'],
        records: [
          { 名称: '丁', 编号: 'C1' },
          { 名称: '戊', 编号: 'C5' },
        ],
      },
    });
    expect(r, JSON.stringify(r)).toMatchObject({ success: true, inserted: 1, failed: 1, partial: true });
    expect(r.errors).toEqual([expect.objectContaining({ row: 1, field: '编号', sqlstate: '23505' })]);
  });

  it('R-DT-102: on_conflict=skip on a table without a unique constraint is refused, nothing written', async () => {
    const before = await count('流水');
    const r = await t.call({
      action: 'insert_batch',
      payload: { table_name: '流水', on_conflict: 'skip', records: [{ 单号: 'A' }, { 单号: 'A' }] },
    });
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'on_conflict' });
    expect(String(r.user_message)).toMatch(/唯一约束/);
    expect(await count('流水')).toBe(before);
  });

  it('R-DT-102 (A-34): upsert matches on key_fields without a unique constraint and never creates one', async () => {
    expect(await uniqueIndexes('流水')).toBe(0);
    const a = await t.call({ action: 'upsert', payload: { table_name: '流水', key_fields: ['单号'], data: { 单号: 'U1', 金额: 10 } } });
    expect(a, JSON.stringify(a)).toMatchObject({ success: true, inserted: 1, updated: 0 });
    const b = await t.call({
      action: 'upsert',
      payload: {
        table_name: '流水',
        key_fields: ['单号'],
        records: [
          { 单号: 'U1', 金额: 25 },
          { 单号: 'U2', 金额: 5 },
        ],
      },
    });
    expect(b).toMatchObject({ success: true, inserted: 1, updated: 1, failed: 0 });
    const { rows } = await db().query<{ 单号: string; 金额: string }>(
      `SELECT "单号", "金额"::text AS "金额" FROM org_data_acme."流水" WHERE "单号" LIKE 'U%' ORDER BY "单号"`,
    );
    expect(rows.map((x) => [x.单号, Number(x.金额)])).toEqual([
      ['U1', 25],
      ['U2', 5],
    ]);
    expect(await uniqueIndexes('流水')).toBe(0);
  });

  const SCRIPT = `INSERT INTO 脚本表 (名称, 数量) VALUES ('a', 1); INSERT INTO 脚本表 (名称, 数量) VALUES ('b', 2); UPDATE 脚本表 SET 数量 = 数量 + 10 WHERE 名称 = 'a'`;

  it('R-DT-27 (A-27): a batch script outside the admin line is refused with error_type config; nothing runs', async () => {
    for (const ctx of [
      { channel: 'web', is_admin: false },
      { channel: 'web', is_admin: true },
      { channel: 'web_admin', is_admin: false },
      { channel: 'telegram' },
    ]) {
      const r = await t.call({ action: 'sql_execute', payload: { sql: SCRIPT } }, ctx);
      expect(r, JSON.stringify(ctx)).toMatchObject({ success: false, error_type: 'config', refused: 'batch_script', statements: 3 });
    }
    expect(await count('脚本表')).toBe(0);
    // One statement per call stays the rule elsewhere, and sql_query never runs scripts (R-DT-76).
    expect(await t.call({ action: 'sql_execute', payload: { sql: `INSERT INTO 脚本表 (名称) VALUES ('x')` } })).toMatchObject({
      success: true,
      affected: 1,
    });
    expect(await t.call({ action: 'sql_query', payload: { sql: 'SELECT 1; SELECT 2' } }, ADMIN_LINE)).toMatchObject({
      success: false,
      refused: 'multi_statement',
    });
    await db().query(`DELETE FROM org_data_acme."脚本表"`);
  });

  it('R-DT-27 (A-27): on the admin line (web_admin + is_admin) the script runs statement by statement', async () => {
    const r = await t.call({ action: 'sql_execute', payload: { sql: SCRIPT } }, ADMIN_LINE);
    expect(r, JSON.stringify(r)).toMatchObject({ success: true, script: true, statements: 3, executed: 3, affected: 3 });
    expect((r.results as Array<{ index: number; affected: number }>).map((x) => [x.index, x.affected])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    const { rows } = await db().query<{ 名称: string; 数量: number }>(`SELECT "名称", "数量" FROM org_data_acme."脚本表" ORDER BY "名称"`);
    expect(rows.map((x) => [x.名称, Number(x.数量)])).toEqual([
      ['a', 11],
      ['b', 2],
    ]);
  });

  it('R-DT-27 (A-27): each statement of a script passes the usual checks; the script stops at the first failure', async () => {
    const before = await count('脚本表');
    const sql = `INSERT INTO 脚本表 (名称) VALUES ('c'); DELETE FROM 脚本表; INSERT INTO 脚本表 (名称) VALUES ('d')`;
    const r = await t.call({ action: 'sql_execute', payload: { sql } }, ADMIN_LINE);
    expect(r).toMatchObject({ success: false, script: true, executed: 1, failed_index: 2, failed: { refused: 'where_required' } });
    expect(r.remaining_sql).toEqual(['DELETE FROM 脚本表', `INSERT INTO 脚本表 (名称) VALUES ('d')`]);
    expect(await count('脚本表')).toBe(before + 1);
  });

  it('R-DT-27 (A-27): a DELETE needing confirmation stops the script without handing out a token', async () => {
    await t.call({ action: 'insert_batch', payload: { table_name: '脚本表', records: many(11, 'del-') } });
    const before = await count('脚本表');
    const sql = `DELETE FROM 脚本表 WHERE 名称 LIKE 'del-%'; INSERT INTO 脚本表 (名称) VALUES ('after')`;
    const r = await t.call({ action: 'sql_execute', payload: { sql } }, { ...ADMIN_LINE, chat_mode: true });
    expect(r).toMatchObject({ success: false, script: true, executed: 0, failed_index: 1, failed: { need_confirm: true } });
    expect(JSON.stringify(r)).not.toContain('confirm_token');
    expect(await count('脚本表')).toBe(before);
  });
});
