import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/db.ts';
import { createTableAction, listTablesAction, STRUCTURE_TABLE_HANDLERS } from '../../src/datatable/structure/table-actions.ts';
import { getTable, resolveTable } from '../../src/datatable/catalog/metadata.ts';
import { effectiveAccess } from '../../src/datatable/access/permissions.ts';
import { grant, listGrants } from '../../src/datatable/access/grants.ts';
import { coerceRecord } from '../../src/datatable/values/coerce.ts';
import type { DtEnv, TableMeta } from '../../src/datatable/model/types.ts';
import { makeEnv } from './structure-helpers.ts';

async function tableCall(env: DtEnv, id: string) {
  const table = (await getTable(env.q, env.caller.orgId, id))!;
  return { table, access: await effectiveAccess(env.q, table, env.caller.roleIds) };
}

async function run(env: DtEnv, action: keyof typeof STRUCTURE_TABLE_HANDLERS, id: string, payload: Record<string, unknown> = {}) {
  return STRUCTURE_TABLE_HANDLERS[action](env, payload, await tableCall(env, id));
}

async function create(env: DtEnv, table_name: string, fields: unknown[]): Promise<string> {
  const r = await createTableAction(env, { table_name, fields });
  if (r.success !== true) throw new Error(JSON.stringify(r));
  return r.id as string;
}

async function columns(db: Db, schema: string, table: string): Promise<Record<string, string>> {
  const { rows } = await db.query<{ column_name: string; data_type: string }>(
    'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
    [schema, table],
  );
  return Object.fromEntries(rows.map((r) => [r.column_name, r.data_type]));
}

describeEachEngine('datatable structure actions', (getDb) => {
  let db: Db;
  let env: DtEnv;
  beforeAll(async () => {
    db = getDb();
    await migrate(db);
    env = makeEnv(db);
  });

  it('R-DT-12, R-ORG-04: an empty org_id is a config error (non_retriable) and no schema is created', async () => {
    for (const orgId of ['', '--']) {
      const e = makeEnv(db, { orgId });
      const r = await createTableAction(e, { table_name: '客户', fields: [] });
      expect(r).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
      expect(await listTablesAction(e, {})).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
      expect(await resolveTable(e, { table_name: '客户' })).toMatchObject({ ok: false, envelope: { error_type: 'config' } });
    }
    const { rows } = await db.query("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'org\\_data\\_%' OR nspname LIKE 'r\\_%'");
    expect(rows).toEqual([]);
  });

  it('R-DT-07, R-DT-08, R-DT-11, R-DT-66: create_table makes org_data_<org>."<title>" with id bigserial, created_at and one column per logical type, no foreign keys', async () => {
    const fields = [
      { title: '文本列', uidt: '文本' },
      { title: '长文本列', uidt: '长文本' },
      { title: '整数列', uidt: '整数' },
      { title: '数字列', uidt: '数字' },
      { title: '日期列', uidt: '日期' },
      { title: '日期时间列', uidt: '日期时间' },
      { title: '时间列', uidt: '时间' },
      { title: '勾选列', uidt: '勾选' },
      { title: '单选列', uidt: '单选', options: ['甲', '乙'] },
      { title: '多选列', uidt: '多选', options: ['红', '绿'] },
      { title: '邮箱列', uidt: '邮箱' },
      { title: '电话列', uidt: '电话' },
      { title: '链接列', uidt: '链接' },
      { title: 'JSON列', uidt: 'JSON' },
    ];
    const r = await createTableAction(env, { table_name: '全类型', fields });
    expect(r).toMatchObject({ success: true, title: '全类型' });
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.already_exists).toBeUndefined();
    const cols = await columns(db, 'org_data_acme', '全类型');
    expect(cols).toEqual({
      id: 'bigint',
      created_at: 'timestamp with time zone',
      文本列: 'text',
      长文本列: 'text',
      整数列: 'bigint',
      数字列: 'numeric',
      日期列: 'date',
      日期时间列: 'timestamp with time zone',
      时间列: 'time without time zone',
      勾选列: 'boolean',
      单选列: 'text',
      多选列: 'ARRAY',
      邮箱列: 'text',
      电话列: 'text',
      链接列: 'text',
      JSON列: 'text',
    });
    const fk = await db.query(
      "SELECT 1 FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'org_data_acme' AND c.contype = 'f'",
    );
    expect(fk.rowCount).toBe(0);
    const pk = await db.query<{ def: string }>(
      "SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid WHERE r.relname = '全类型' AND c.contype = 'p'",
    );
    expect(pk.rows[0]?.def).toBe('PRIMARY KEY (id)');
  });

  it('R-DT-66, R-DT-85b: coerced values of every logical type are accepted by their columns and read back', async () => {
    const table = (await resolveTable(env, { table_name: '全类型' })) as { ok: true; table: TableMeta };
    const rec = coerceRecord(
      table.table,
      {
        文本列: 'a:b',
        长文本列: 'MA20偏离%',
        整数列: '９,２２３',
        数字列: '1,234.567',
        日期列: '2026-01-02',
        日期时间列: '2026-01-02T09:30:15+08:00',
        时间列: '09:30',
        勾选列: '是',
        单选列: '甲',
        多选列: '红、绿',
        邮箱列: 'a@b.cn',
        电话列: '138 0000 0000',
        链接列: 'https://x.cn',
        JSON列: { value: 0.85, list: [1, 2] },
      },
      { mode: 'insert' },
    );
    expect(rec.errors).toEqual([]);
    const cols = Object.keys(rec.values);
    const sql = `INSERT INTO "org_data_acme"."全类型" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})
      RETURNING "整数列", "数字列"::text AS n, "日期列"::text AS d, ("日期时间列" AT TIME ZONE 'UTC')::text AS dt, "时间列"::text AS t, "勾选列", "多选列", "JSON列"`;
    const { rows } = await db.query(
      sql,
      cols.map((c) => rec.values[c]),
    );
    expect(rows[0]).toMatchObject({
      整数列: '9223',
      n: '1234.57',
      d: '2026-01-02',
      dt: '2026-01-02 01:30:15',
      t: '09:30:00',
      勾选列: true,
      多选列: ['红', '绿'],
    });
    expect(JSON.parse(rows[0]!.JSON列 as string)).toEqual({ value: 0.85, list: [1, 2] });
  });

  it('R-DT-44: a second create_table of the same title returns the existing table with already_exists: true', async () => {
    const first = await createTableAction(env, { table_name: '客户', fields: [{ title: '客户名', uidt: '文本', required: true }] });
    const again = await createTableAction(env, { table_name: '客户', fields: [{ title: '别的', uidt: '整数' }] });
    expect(again).toEqual({ success: true, id: first.id, title: '客户', already_exists: true });
    expect(Object.keys(await columns(db, 'org_data_acme', '客户')).sort()).toEqual(['created_at', 'id', '客户名'].sort());
  });

  it('R-DT-10, R-DT-84, R-DT-08: bad table and field names and system columns are refused with need_param', async () => {
    expect(await createTableAction(env, { table_name: '1表', fields: [] })).toMatchObject({
      success: false,
      need_param: 'table_name',
      error_type: 'recoverable',
    });
    expect(await createTableAction(env, { table_name: '容差%', fields: [] })).toMatchObject({ success: false, need_param: 'table_name' });
    const r = await createTableAction(env, {
      table_name: '坏字段',
      fields: [
        { title: '容差%', uidt: '数字' },
        { title: 'id', uidt: '整数' },
        { title: 'x', uidt: '金钱' },
        { title: '状态', uidt: '单选' },
        { title: 'y', uidt: '文本' },
        { title: 'y', uidt: '文本' },
        { name: '名称' },
      ],
    });
    expect(r).toMatchObject({ success: false, need_param: 'fields' });
    const errors = r.errors as string[];
    expect(errors).toHaveLength(6);
    expect(errors.join('\n')).toMatch(/fields\[6\].*缺少 title.*收到的键：name/);
    expect(errors.join('\n')).toMatch(/fields\[0\].*容差百分比/);
    expect(errors.join('\n')).toMatch(/fields\[1\].*系统列/);
    expect(errors.join('\n')).toMatch(/fields\[2\].*未知的字段类型/);
    expect(errors.join('\n')).toMatch(/fields\[3\].*options/);
    expect(errors.join('\n')).toMatch(/fields\[5\].*重复/);
    expect(await createTableAction(env, { table_name: '无字段' })).toMatchObject({ success: false, need_param: 'fields' });
    expect((await db.query("SELECT 1 FROM pg_class WHERE relname IN ('坏字段', '无字段', '1表')")).rowCount).toBe(0);
  });

  it('R-DT-67, R-DT-30, A-33: list_columns reads the metadata: aliases stored as 数字 with preset precision, Chinese uidt names', async () => {
    const id = await create(env, '账目', [
      { title: '金额', uidt: '金额' },
      { title: '比例', uidt: '百分比' },
      { title: '精算', uidt: '高精度数字' },
      { title: '普通', uidt: '数字' },
      { title: '自定', uidt: '数字', precision: 10, scale: 3 },
      { title: '旧名', uidt: 'SingleLineText' },
      { title: '状态', uidt: '单选', options: [' 开 ', '关', '开'], required: true, unique: true },
    ]);
    const r = await run(env, 'list_columns', id);
    expect(r.success).toBe(true);
    expect(r.result).toEqual([
      { title: '金额', uidt: '数字', required: false, unique: false, options: [], precision: 18, scale: 2 },
      { title: '比例', uidt: '数字', required: false, unique: false, options: [], precision: 12, scale: 4 },
      { title: '精算', uidt: '数字', required: false, unique: false, options: [], precision: 38, scale: 18 },
      { title: '普通', uidt: '数字', required: false, unique: false, options: [], precision: 38, scale: 2 },
      { title: '自定', uidt: '数字', required: false, unique: false, options: [], precision: 10, scale: 3 },
      { title: '旧名', uidt: '文本', required: false, unique: false, options: [], precision: null, scale: null },
      { title: '状态', uidt: '单选', required: true, unique: true, options: ['开', '关'], precision: null, scale: null },
    ]);
    const types = await db.query<{ column_name: string; numeric_precision: number; numeric_scale: number }>(
      "SELECT column_name, numeric_precision, numeric_scale FROM information_schema.columns WHERE table_schema = 'org_data_acme' AND table_name = '账目' AND column_name = '金额'",
    );
    expect(types.rows[0]).toMatchObject({ numeric_precision: 18, numeric_scale: 2 });
    // R-DT-09: a column added behind the platform's back is not a business field.
    await db.query('ALTER TABLE "org_data_acme"."账目" ADD COLUMN "暗列" text');
    const again = await run(env, 'list_columns', id);
    expect((again.result as Array<{ title: string }>).map((c) => c.title)).not.toContain('暗列');
  });

  it('R-DT-08: a unique field gets a UNIQUE constraint in the database', async () => {
    const id = await create(env, '唯一表', [{ title: '编号', uidt: '文本', unique: true }]);
    const t = (await getTable(db, 'acme', id))!;
    await db.query(`INSERT INTO "${t.schema}"."唯一表" ("编号") VALUES ('A')`);
    await expect(db.query(`INSERT INTO "${t.schema}"."唯一表" ("编号") VALUES ('A')`)).rejects.toMatchObject({ code: '23505' });
  });

  it("R-DT-29: list_tables returns [{id, title, schema, qualified}] of the caller's org only", async () => {
    const other = makeEnv(db, { orgId: 'Other-Org' });
    await create(other, '客户', []);
    const r = await listTablesAction(env, {});
    const list = r.result as Array<Record<string, unknown>>;
    expect(r.count).toBe(list.length);
    const c = list.find((x) => x.title === '客户')!;
    expect(Object.keys(c).sort()).toEqual(['id', 'qualified', 'schema', 'title']);
    expect(c).toMatchObject({ schema: 'org_data_acme', qualified: '"org_data_acme"."客户"' });
    expect(list.every((x) => x.schema === 'org_data_acme')).toBe(true);
    const o = (await listTablesAction(other, {})).result as Array<Record<string, unknown>>;
    expect(o).toEqual([expect.objectContaining({ title: '客户', schema: 'org_data_otherorg' })]);
    expect(o[0]!.id).not.toBe(c.id);
  });

  it('R-DT-03, R-DT-04: table_id, else table_name / table / table_title by exact title; otherwise the table list', async () => {
    const id = (await resolveTable(env, { table_name: '客户' })) as { ok: true; table: TableMeta };
    expect(id.ok).toBe(true);
    expect((await resolveTable(env, { table_id: id.table.id })) as unknown).toMatchObject({ ok: true, table: { title: '客户' } });
    expect(await resolveTable(env, { table: '客户' })).toMatchObject({ ok: true, table: { id: id.table.id } });
    expect(await resolveTable(env, { table_title: '客户' })).toMatchObject({ ok: true, table: { id: id.table.id } });
    expect(await resolveTable(env, { table_id: '客户' })).toMatchObject({
      ok: true,
      table: { id: id.table.id },
      note: expect.stringContaining('title'),
    });
    const missing = await resolveTable(env, {});
    expect(missing).toMatchObject({ ok: false, envelope: { success: false, need_param: 'table_id', error_type: 'recoverable' } });
    const tables = (missing as unknown as { envelope: { tables: Array<{ title: string }> } }).envelope.tables;
    expect(tables.map((t) => t.title)).toContain('客户');
    const unknown = await resolveTable(env, { table_name: '客 户' });
    expect(unknown).toMatchObject({ ok: false, envelope: { need_param: 'table_id', tables: expect.any(Array) } });
    expect((unknown as { envelope: { user_message: string } }).envelope.user_message).toContain('「客户」');
    // An unknown UUID and a foreign org's id are not found either.
    expect(await resolveTable(env, { table_id: '00000000-0000-4000-8000-000000000000' })).toMatchObject({ ok: false });
    const foreign = (await resolveTable(makeEnv(db, { orgId: 'Other-Org' }), { table_name: '客户' })) as { ok: true; table: TableMeta };
    expect(await resolveTable(env, { table_id: foreign.table.id })).toMatchObject({ ok: false });
  });

  it('R-DT-45: add_field adds a typed column after the existing fields; a duplicate or bad definition is refused', async () => {
    const id = await create(env, '订单', [{ title: '单号', uidt: '文本' }]);
    const r = await run(env, 'add_field', id, { field: { title: '金额', uidt: '金额', required: true } });
    expect(r).toEqual({ success: true, title: '金额', uidt: '数字', required: true, unique: false, options: [], precision: 18, scale: 2 });
    expect((await columns(db, 'org_data_acme', '订单')).金额).toBe('numeric');
    expect((await getTable(db, 'acme', id))!.fields.map((f) => [f.title, f.position])).toEqual([
      ['单号', 0],
      ['金额', 1],
    ]);
    expect(await run(env, 'add_field', id, { field: { title: '金额', uidt: '整数' } })).toMatchObject({
      success: false,
      need_param: 'field',
    });
    expect(await run(env, 'add_field', id, { field: { title: 'created_at', uidt: '日期' } })).toMatchObject({
      success: false,
      need_param: 'field',
    });
    expect(await run(env, 'add_field', id, {})).toMatchObject({ success: false, need_param: 'field' });
  });

  it('R-DT-46: update_field renames, changes type (converting data), toggles unique and options; returns the latest definition', async () => {
    const id = await create(env, '库存', [
      { title: '数量', uidt: '文本' },
      { title: '状态', uidt: '单选', options: ['有'] },
    ]);
    await db.query(`INSERT INTO "org_data_acme"."库存" ("数量", "状态") VALUES ('12', '有'), ('7', '有')`);
    const typed = await run(env, 'update_field', id, { field_title: '数量', patch: { uidt: '整数' } });
    expect(typed).toMatchObject({ success: true, title: '数量', uidt: '整数', precision: null });
    expect((await columns(db, 'org_data_acme', '库存')).数量).toBe('bigint');
    const renamed = await run(env, 'update_field', id, { field_title: '数量', patch: { title: '库存量', unique: true, color: 'x' } });
    expect(renamed).toMatchObject({ success: true, title: '库存量', unique: true, ignored: ['color'] });
    expect(Object.keys(await columns(db, 'org_data_acme', '库存'))).toContain('库存量');
    await expect(db.query(`INSERT INTO "org_data_acme"."库存" ("库存量") VALUES (12)`)).rejects.toMatchObject({ code: '23505' });
    expect(await run(env, 'update_field', id, { field_title: '库存量', patch: { unique: false } })).toMatchObject({
      success: true,
      unique: false,
    });
    await db.query(`INSERT INTO "org_data_acme"."库存" ("库存量") VALUES (12)`);
    const opts = await run(env, 'update_field', id, { field_title: '状态', patch: { options: ['有', '无'] } });
    expect(opts).toMatchObject({ success: true, options: ['有', '无'] });
    const meta = (await getTable(db, 'acme', id))!;
    expect(meta.fields.map((f) => f.title)).toEqual(['库存量', '状态']);
  });

  it('R-DT-46, R-DT-99: a type change the data cannot take fails recoverably and changes nothing (rolled back)', async () => {
    const id = await create(env, '备忘', [{ title: '内容', uidt: '文本' }]);
    await db.query(`INSERT INTO "org_data_acme"."备忘" ("内容") VALUES ('abc')`);
    const r = await run(env, 'update_field', id, { field_title: '内容', patch: { uidt: '整数', title: '数值' } });
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', sqlstate: '22P02' });
    expect((await columns(db, 'org_data_acme', '备忘')).内容).toBe('text');
    expect((await getTable(db, 'acme', id))!.fields[0]).toMatchObject({ title: '内容', uidt: '文本' });
    expect(await run(env, 'update_field', id, { field_title: '没有', patch: { title: 'x' } })).toMatchObject({
      success: false,
      need_param: 'field_title',
    });
    expect(await run(env, 'update_field', id, { field_title: '内容' })).toMatchObject({ success: false, need_param: 'patch' });
    expect(await run(env, 'update_field', id, { field_title: '内容', patch: { uidt: '单选' } })).toMatchObject({
      success: false,
      need_param: 'patch',
    });
  });

  it('R-DT-47, A-30: delete_field backs the column up to the workspace root, drops it, and returns {deleted, field}', async () => {
    const e = makeEnv(db);
    const id = await create(e, '员工', [
      { title: '姓名', uidt: '文本' },
      { title: '工号', uidt: '文本' },
    ]);
    await db.query(`INSERT INTO "org_data_acme"."员工" ("姓名", "工号") VALUES ('甲', 'E1'), ('乙', NULL)`);
    const r = await run(e, 'delete_field', id, { field_title: '工号' });
    expect(r).toMatchObject({
      success: true,
      deleted: true,
      field: { title: '工号', uidt: '文本' },
      backup_file: 'del_backup_员工_工号_20260102_030405.json',
    });
    const backup = JSON.parse(readFileSync(join(e.caller.workspaceDir, r.backup_file as string), 'utf8')) as Array<Record<string, unknown>>;
    expect(backup).toHaveLength(1);
    expect(backup[0]).toMatchObject({ 工号: 'E1' });
    expect(Object.keys(await columns(db, 'org_data_acme', '员工'))).not.toContain('工号');
    expect((await getTable(db, 'acme', id))!.fields.map((f) => f.title)).toEqual(['姓名']);
  });

  it('R-DT-19, R-DT-47: the owner field of an own-scope grant cannot be deleted; a rename carries the grant along', async () => {
    const id = await create(env, '工单', [
      { title: '负责人工号', uidt: '文本' },
      { title: '描述', uidt: '长文本' },
    ]);
    const t = (await getTable(db, 'acme', id))!;
    expect(await grant(db, t, { tableId: id, roleId: 'sales', rowScope: 'own', ownerField: '负责人工号' })).toMatchObject({ ok: true });
    expect(await run(env, 'delete_field', id, { field_title: '负责人工号' })).toMatchObject({ success: false, error_type: 'config' });
    expect(await run(env, 'update_field', id, { field_title: '负责人工号', patch: { title: '负责人' } })).toMatchObject({
      success: true,
      title: '负责人',
    });
    expect((await listGrants(db, id))[0]).toMatchObject({ roleId: 'sales', ownerField: '负责人' });
  });

  it('R-DT-48, A-30: delete_table backs the rows up, drops the table and its metadata and grants; returns true', async () => {
    const e = makeEnv(db);
    const id = await create(e, '临时', [{ title: '值', uidt: '整数' }]);
    const t = (await getTable(db, 'acme', id))!;
    await grant(db, t, { tableId: id, roleId: 'x', actions: ['query'] });
    await db.query(`INSERT INTO "org_data_acme"."临时" ("值") VALUES (1), (2), (3)`);
    const r = await run(e, 'delete_table', id);
    expect(r).toMatchObject({ success: true, result: true, backup_file: 'del_backup_临时_20260102_030405.json' });
    const rows = JSON.parse(readFileSync(join(e.caller.workspaceDir, r.backup_file as string), 'utf8')) as Array<Record<string, unknown>>;
    expect(rows.map((x) => x.值)).toEqual([1, 2, 3]);
    expect((await db.query("SELECT 1 FROM pg_class WHERE relname = '临时'")).rowCount).toBe(0);
    expect(await getTable(db, 'acme', id)).toBeNull();
    expect(await listGrants(db, id)).toEqual([]);
  });

  it('R-DT-92, A-30: a backup that cannot be written does not block delete_table', async () => {
    const e = makeEnv(db, { workspaceDir: '/nonexistent/ws' });
    const id = await create(e, '临时二', [{ title: '值', uidt: '整数' }]);
    const r = await run(e, 'delete_table', id);
    expect(r).toMatchObject({ success: true, result: true, backup_file: null });
    expect(existsSync('/nonexistent/ws')).toBe(false);
  });

  it('R-DT-25, D-01: a member is refused every structural action; the switch enforceStructuralRoles=false lets it through', async () => {
    const member = makeEnv(db, { teamRole: 'member' });
    expect(await createTableAction(member, { table_name: '成员表', fields: [] })).toMatchObject({
      success: false,
      error_type: 'config',
      non_retriable: true,
    });
    const id = ((await resolveTable(env, { table_name: '客户' })) as { ok: true; table: TableMeta }).table.id;
    for (const [action, payload] of [
      ['add_field', { field: { title: 'x', uidt: '文本' } }],
      ['update_field', { field_title: '客户名', patch: { required: false } }],
      ['delete_field', { field_title: '客户名' }],
      ['delete_table', {}],
    ] as const) {
      expect(await run(member, action, id, payload)).toMatchObject({ success: false, error_type: 'config', permission_denied: true });
    }
    expect((await getTable(db, 'acme', id))!.fields.map((f) => f.title)).toEqual(['客户名']);
    expect(await run(member, 'list_columns', id)).toMatchObject({ success: true });
    const admin = makeEnv(db, { teamRole: 'admin' });
    expect(await createTableAction(admin, { table_name: '管理员表', fields: [] })).toMatchObject({ success: true });
    const open = makeEnv(db, { teamRole: 'member' }, { enforceStructuralRoles: false });
    expect(await createTableAction(open, { table_name: '成员表', fields: [] })).toMatchObject({ success: true });
  });

  it("R-DT-13, R-DT-25: a grant restricting a role's actions refuses a structural action not granted, even to an owner", async () => {
    const id = await create(env, '受限', [{ title: 'a', uidt: '文本' }]);
    const t = (await getTable(db, 'acme', id))!;
    await grant(db, t, { tableId: id, roleId: 'default', actions: ['query', 'list_columns'] });
    expect(await run(env, 'add_field', id, { field: { title: 'b', uidt: '文本' } })).toMatchObject({
      success: false,
      permission_denied: true,
    });
    expect(await run(env, 'list_columns', id)).toMatchObject({ success: true });
  });

  it('A-31: an org whose id normalises to a schema already used by another org is refused', async () => {
    expect(await createTableAction(makeEnv(db, { orgId: 'a-b' }), { table_name: '表一', fields: [] })).toMatchObject({ success: true });
    const r = await createTableAction(makeEnv(db, { orgId: 'AB' }), { table_name: '表二', fields: [] });
    expect(r).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
    expect(r.error).toMatch(/org_data_ab/);
  });

  it('R-DT-44: two concurrent create_table calls of one title create it once (one gets already_exists)', async () => {
    const [a, b] = await Promise.all([
      createTableAction(makeEnv(db), { table_name: '并发', fields: [{ title: 'x', uidt: '文本' }] }),
      createTableAction(makeEnv(db), { table_name: '并发', fields: [{ title: 'x', uidt: '文本' }] }),
    ]);
    expect(a.success && b.success).toBe(true);
    expect(a.id).toBe(b.id);
    expect([a.already_exists, b.already_exists].filter(Boolean)).toHaveLength(1);
  });

  it('R-DT-104: reserved words and quotes in titles are quoted correctly', async () => {
    const id = await create(env, 'select', [
      { title: 'from', uidt: '文本' },
      { title: 'order', uidt: '整数' },
    ]);
    expect((await run(env, 'list_columns', id)).result).toHaveLength(2);
    await db.query('INSERT INTO "org_data_acme"."select" ("from", "order") VALUES ($1, $2)', ['x', 1]);
  });
});
