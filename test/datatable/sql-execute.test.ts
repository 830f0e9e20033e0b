/**
 * The SQL channel executed on both engines (R-DT-42/43, R-DT-76..86,
 * R-DT-99/100, R-DT-12, A-36, D-12): the benign corpus runs, the hostile corpus is refused with
 * nothing changed, names route to the organisation's schema, results keep PostgreSQL's forms,
 * DDL is mirrored into the metadata.
 */
import { beforeAll, expect, it } from 'vitest';
import { listTables, findTableByTitle } from '../../src/datatable/catalog/metadata.ts';
import { grant, listGrants } from '../../src/datatable/access/grants.ts';
import { checkSqlSync, ensureParser, runSqlExecute, runSqlQuery } from '../../src/datatable/sql/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { readCorpus, sqlEnv, type SqlTestEnv } from './sql-helpers.ts';

const FIXTURE_TABLES = [
  'CREATE TABLE 客户 (名称 text NOT NULL, 城市 text, 等级 bigint, 注册日期 date, 备注 text)',
  'CREATE TABLE 订单 (客户id bigint, 金额 numeric(18,2), 状态 text, 下单时间 timestamp, 时段 text)',
];

async function ok(p: Promise<Record<string, unknown>>): Promise<Record<string, unknown>> {
  const r = await p;
  if (r.success !== true) throw new Error(`expected success, got ${JSON.stringify(r)}`);
  return r;
}

describeEachEngine('datatable SQL channel: corpora on the database', (db) => {
  let env: SqlTestEnv;
  beforeAll(async () => {
    await ensureParser();
    await migrate(db());
    env = sqlEnv(db(), 'acme', { chatMode: false });
    for (const ddl of FIXTURE_TABLES) await ok(runSqlExecute(env, ddl));
    await ok(
      runSqlExecute(
        env,
        `INSERT INTO 客户 (名称, 城市, 等级, 注册日期, 备注) VALUES
           ('张三', '上海', 3, '2024-03-01', '{"k": 1}'), ('李四', '北京', 1, '2023-01-02', 'a:b'), ('王五', '上海', 2, NULL, NULL)`,
      ),
    );
    await ok(
      runSqlExecute(
        env,
        `INSERT INTO 订单 (客户id, 金额, 状态, 下单时间, 时段) VALUES
           (1, 120.50, '已付款', '2024-03-01 10:30:00', '10:30'), (1, 80, '待付款', '2024-04-02 09:00:00', '09:00'), (2, 300, '已付款', '2024-04-05 18:45:00', '18:45')`,
      ),
    );
    // Decoys the channel must never reach: a same-named table in public and in another org.
    await db().query('CREATE TABLE public."客户" (名称 text)');
    await db().query(`INSERT INTO public."客户" (名称) VALUES ('PUBLIC_SECRET')`);
    const rival = sqlEnv(db(), 'rival', { chatMode: false });
    await ok(runSqlExecute(rival, 'CREATE TABLE 客户 (名称 text)'));
    await ok(runSqlExecute(rival, "INSERT INTO 客户 (名称) VALUES ('RIVAL_SECRET')"));
  });

  it('R-DT-77: bare names reach the organisation schema only — never public or another org', async () => {
    const r = await ok(runSqlQuery(env, 'SELECT 名称 FROM 客户 ORDER BY id'));
    expect((r.rows as Array<{ 名称: string }>).map((x) => x.名称)).toEqual(['张三', '李四', '王五']);
    const q = await ok(runSqlQuery(env, 'SELECT count(*) AS n FROM "org_data_acme"."客户"'));
    expect(q.rows).toEqual([{ n: 3 }]);
  });

  it('R-DT-81: every hostile statement is refused by sql_execute with its rule and changes nothing', async () => {
    const snapshot = async () => ({
      schemas: (await db().query<{ n: string }>("SELECT nspname AS n FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' ORDER BY 1")).rows,
      tables: (
        await db().query<{ t: string }>(
          "SELECT schemaname || '.' || tablename AS t FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
        )
      ).rows,
      acme: (await runSqlQuery(env, 'SELECT * FROM 客户 ORDER BY id')).rows,
      pub: (await db().query('SELECT * FROM public."客户"')).rows,
      meta: (await listTables(db(), 'acme')).map((t) => [t.title, t.fields.length]),
    });
    const before = await snapshot();
    const wrong: unknown[] = [];
    for (const e of readCorpus('hostile')) {
      const r = await runSqlExecute(env, e.sql);
      if (r.success !== false || r.refused !== e.expect || r.error_type !== 'recoverable') wrong.push({ sql: e.sql, got: r });
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });

  it('R-DT-77, D-12: every benign statement runs on this engine, in file order', async () => {
    const failed: unknown[] = [];
    for (const e of readCorpus('benign')) {
      const plan = checkSqlSync(e.sql, { schema: 'org_data_acme' });
      const r = plan.ok && plan.kind === 'select' ? await runSqlQuery(env, e.sql) : await runSqlExecute(env, e.sql);
      if (r.success !== true) failed.push({ sql: e.sql, got: r });
    }
    expect(failed).toEqual([]);
    const stock = await findTableByTitle(db(), 'acme', '库存');
    expect(stock?.fields.map((f) => [f.title, f.uidt, f.required])).toEqual([
      ['物料', '文本', true],
      ['数量', '整数', true],
      ['单价', '数字', false],
      ['入库日期', '日期', false],
      ['已盘点', '勾选', false],
      ['备注', '文本', false],
      ['到货时间', '时间', false],
      ['更新于', '日期时间', false],
      ['库位', '文本', false],
    ]);
  });

  it('search_path and the timeout are transaction-local: nothing leaks to the next transaction', async () => {
    const before = (await db().query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path;
    await ok(runSqlQuery(env, 'SELECT 1 AS a'));
    const after = await db().transaction(async (tx) => (await tx.query<{ search_path: string }>('SHOW search_path')).rows[0]?.search_path);
    expect(after).toBe(before);
    expect(after).not.toContain('org_data');
  });
});

describeEachEngine('datatable SQL channel: results, errors and DDL', (db, engine) => {
  let env: SqlTestEnv;
  beforeAll(async () => {
    await migrate(db());
    env = sqlEnv(db(), 'beta', { chatMode: false });
    await ok(
      runSqlExecute(
        env,
        'CREATE TABLE 记录 (名称 text UNIQUE, 日 date, 时刻 timestamp, 点 time, 金额 numeric(38,18), 大数 bigint, 好 boolean, 档案 json)',
      ),
    );
    await ok(
      runSqlExecute(
        env,
        `INSERT INTO 记录 (名称, 日, 时刻, 点, 金额, 大数, 好, 档案) VALUES
          ('a', '2024-03-01', '2024-03-01 10:30:00', '08:15:00', 12345678901234567890.123456789012345678, 9007199254740993, true, '{"v": [1, 2]}'),
          ('b', NULL, NULL, NULL, 1.5, 7, false, NULL)`,
      ),
    );
  });

  it('R-DT-42: sql_query returns {rows, row_count, sql} with dates, times and numbers exactly as PostgreSQL has them', async () => {
    const r = await ok(runSqlQuery(env, 'SELECT 名称, 日, 时刻, 点, 金额, 大数, 好, 档案 FROM 记录 ORDER BY 名称 ;'));
    expect(r.row_count).toBe(2);
    expect(r.sql).toBe('SELECT 名称, 日, 时刻, 点, 金额, 大数, 好, 档案 FROM 记录 ORDER BY 名称');
    expect(r.rows).toEqual([
      {
        名称: 'a',
        日: '2024-03-01',
        时刻: '2024-03-01T10:30:00',
        点: '08:15:00',
        金额: '12345678901234567890.123456789012345678',
        大数: '9007199254740993',
        好: true,
        档案: { v: [1, 2] },
      },
      { 名称: 'b', 日: null, 时刻: null, 点: null, 金额: 1.5, 大数: 7, 好: false, 档案: null },
    ]);
  });

  it('R-DT-42: sql_query runs SELECT only and points writes to sql_execute', async () => {
    const r = await runSqlQuery(env, "UPDATE 记录 SET 名称 = 'x' WHERE 名称 = 'a'");
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', refused: 'read_only', redirect: 'sql_execute' });
    expect((await ok(runSqlQuery(env, "SELECT count(*) AS n FROM 记录 WHERE 名称 = 'a'"))).rows).toEqual([{ n: 1 }]);
  });

  it("R-DT-43: INSERT / UPDATE report affected rows; RETURNING rows come back in PostgreSQL's forms", async () => {
    const ins = await ok(runSqlExecute(env, "INSERT INTO 记录 (名称, 日) VALUES ('c', '2025-12-31'), ('d', NULL) RETURNING 名称, 日"));
    expect(ins).toMatchObject({
      affected: 2,
      rows: [
        { 名称: 'c', 日: '2025-12-31' },
        { 名称: 'd', 日: null },
      ],
    });
    const upd = await ok(runSqlExecute(env, "UPDATE 记录 SET 好 = true WHERE 名称 IN ('c', 'd')"));
    expect(upd).toMatchObject({ affected: 2 });
    expect(upd.rows).toBeUndefined();
  });

  it('D-12: a colon followed by letters or digits inside literals is stored and read back untouched', async () => {
    const text = 'a:b 10:30 :name {"value":0.85} $1 ?';
    await ok(runSqlExecute(env, `INSERT INTO 记录 (名称) VALUES ('${text.replace(/'/g, "''")}')`));
    const r = await ok(runSqlQuery(env, "SELECT 名称 FROM 记录 WHERE 名称 LIKE 'a:b%'"));
    expect(r.rows).toEqual([{ 名称: text }]);
  });

  it("R-DT-42: the statement's ORDER BY survives the JSON wrapper", async () => {
    const r = await ok(runSqlQuery(env, 'SELECT n FROM generate_series(1, 5) AS g(n) ORDER BY n DESC'));
    expect(r.rows).toEqual([{ n: 5 }, { n: 4 }, { n: 3 }, { n: 2 }, { n: 1 }]);
  });

  it('the row cap cuts large results and says so', async () => {
    const r = await ok(runSqlQuery(env, 'SELECT n FROM generate_series(1, 8) AS g(n) ORDER BY n', { maxRows: 3 }));
    expect(r).toMatchObject({ row_count: 3, truncated: true, rows: [{ n: 1 }, { n: 2 }, { n: 3 }] });
  });

  it('R-DT-100, R-DT-99: a database error is classified by SQLSTATE, rolled back, and the next call works', async () => {
    const dup = await runSqlExecute(env, "INSERT INTO 记录 (名称) VALUES ('a')");
    expect(dup).toMatchObject({ success: false, error_type: 'recoverable', sqlstate: '23505' });
    const bad = await runSqlQuery(env, 'SELECT 1 / 0 AS x');
    expect(bad).toMatchObject({ success: false, sqlstate: '22012' });
    expect((await ok(runSqlQuery(env, "SELECT count(*) AS n FROM 记录 WHERE 名称 = 'a'"))).rows).toEqual([{ n: 1 }]);
  });

  it("an unknown table is answered with the organisation's table list, not a database error", async () => {
    const r = await runSqlQuery(env, 'SELECT * FROM 不存在 JOIN 记录 ON true');
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', missing_tables: ['不存在'], tables: ['记录'] });
  });

  it('R-DT-12: an empty org is a config error (non_retriable); a missing sql asks for it', async () => {
    expect(await runSqlQuery(sqlEnv(db(), ''), 'SELECT 1')).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
    expect(await runSqlExecute(env, '  ')).toMatchObject({ success: false, need_param: 'sql' });
  });

  it('A-36, R-DT-86: CREATE TABLE creates id/created_at first, registers the mapped fields, and IF NOT EXISTS answers already_exists', async () => {
    const r = await ok(runSqlExecute(env, 'CREATE TABLE 库存 (物料 varchar(40) NOT NULL UNIQUE, 数量 integer, 单价 numeric(12,3))'));
    expect(r).toMatchObject({ created: true, table: '库存', affected: 0 });
    const meta = await findTableByTitle(db(), 'beta', '库存');
    expect(r.table_id).toBe(meta?.id);
    expect(meta?.fields.map((f) => [f.title, f.uidt, f.required, f.unique, f.precision, f.scale])).toEqual([
      ['物料', '文本', true, true, null, null],
      ['数量', '整数', false, false, null, null],
      ['单价', '数字', false, false, 12, 3],
    ]);
    const cols = await db().query<{ column_name: string; data_type: string }>(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'org_data_beta' AND table_name = '库存' ORDER BY ordinal_position",
    );
    expect(cols.rows.map((c) => c.column_name)).toEqual(['id', 'created_at', '物料', '数量', '单价']);
    expect(await ok(runSqlExecute(env, 'CREATE TABLE IF NOT EXISTS 库存 (x text)'))).toMatchObject({
      created: false,
      already_exists: true,
      table_id: meta?.id,
    });
    expect(await runSqlExecute(env, 'CREATE TABLE 库存 (x text)')).toMatchObject({
      success: false,
      already_exists: true,
      table_id: meta?.id,
    });
  });

  it("D-02, A-36: ALTER TABLE through SQL keeps the metadata and the grants' owner field in step", async () => {
    const before = await findTableByTitle(db(), 'beta', '库存');
    await grant(db(), before!, { tableId: before!.id, roleId: 'sales', rowScope: 'own', ownerField: '物料' });
    const r = await ok(
      runSqlExecute(env, 'ALTER TABLE 库存 ADD COLUMN 仓库 text, ALTER COLUMN 数量 SET NOT NULL, ALTER COLUMN 数量 SET DEFAULT 0'),
    );
    expect(r).toMatchObject({ altered: true, table_id: before?.id });
    await ok(runSqlExecute(env, 'ALTER TABLE 库存 RENAME COLUMN 物料 TO 料号'));
    const after = await findTableByTitle(db(), 'beta', '库存');
    expect(after?.fields.map((f) => [f.title, f.required, f.position])).toEqual([
      ['料号', true, 0],
      ['数量', true, 1],
      ['单价', false, 2],
      ['仓库', false, 3],
    ]);
    expect((await listGrants(db(), before!.id)).map((g) => g.ownerField)).toEqual(['料号']);
    await db().query('DELETE FROM skillgate.dt_grants WHERE table_id = $1::uuid', [before!.id]);
  });

  it('CREATE INDEX / VIEW and DROP VIEW / INDEX run in the organisation schema', async () => {
    await ok(runSqlExecute(env, 'CREATE INDEX 库存_仓库 ON 库存 (仓库)'));
    await ok(runSqlExecute(env, 'CREATE VIEW 有货 AS SELECT 料号, 数量 FROM 库存 WHERE 数量 > 0'));
    expect((await ok(runSqlQuery(env, 'SELECT count(*) AS n FROM 有货'))).rows).toEqual([{ n: 0 }]);
    const objs = await db().query<{ relname: string; nspname: string }>(
      "SELECT c.relname, n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname IN ('库存_仓库', '有货')",
    );
    expect(objs.rows.map((o) => o.nspname)).toEqual(['org_data_beta', 'org_data_beta']);
    await ok(runSqlExecute(env, 'DROP VIEW 有货'));
    await ok(runSqlExecute(env, 'DROP INDEX 库存_仓库'));
    expect(await runSqlQuery(env, 'SELECT * FROM 有货')).toMatchObject({ success: false, missing_tables: ['有货'] });
  });

  if (engine === 'server') {
    it('R-DT-100: statement_timeout bounds a runaway statement (server engine; PGlite has no timer) — a recoverable timeout', async () => {
      const r = await runSqlQuery(env, 'SELECT count(*) FROM generate_series(1, 500000000)', { statementTimeoutMs: 50 });
      expect(r).toMatchObject({ success: false, error_type: 'recoverable', sqlstate: '57014', timeout: true });
    });
  }
});
