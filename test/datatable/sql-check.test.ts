/**
 * The SQL channel's checker (R-DT-76..84, D-02, D-12): both corpora in
 * test/fixtures/sql/ and the individual rules. Pure: no database (execution is covered by
 * sql-execute.test.ts on both engines).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSql, checkSqlSync, ensureParser, type SqlCheckResult, type SqlPlan } from '../../src/datatable/sql/index.ts';
import { readCorpus as corpus } from './sql-helpers.ts';

const SCHEMA = 'org_data_acme';
const OPTS = { schema: SCHEMA, otherOrgSchemas: ['org_data_rival'] };

function check(sql: string): SqlCheckResult {
  return checkSqlSync(sql, OPTS);
}

function accepted(sql: string): SqlPlan {
  const r = check(sql);
  if (!r.ok) throw new Error(`refused ${r.code}: ${r.reason.en}\n${sql}`);
  return r;
}

function refusedCode(sql: string): string {
  const r = check(sql);
  return r.ok ? `ACCEPTED(${r.kind})` : r.code;
}

beforeAll(async () => {
  await ensureParser();
});

describe('SQL channel corpora', () => {
  const hostile = corpus('hostile');
  const benign = corpus('benign');

  it('the corpora are large enough: ≥ 60 hostile, ≥ 40 benign, every hostile entry names its refusal', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(60);
    expect(benign.length).toBeGreaterThanOrEqual(40);
    expect(hostile.filter((e) => !e.expect)).toEqual([]);
  });

  it('R-DT-76..84: every hostile statement is refused, each for its own rule (100%)', () => {
    const wrong = hostile.map((e) => ({ sql: e.sql, want: e.expect, got: refusedCode(e.sql) })).filter((x) => x.got !== x.want);
    expect(wrong).toEqual([]);
  });

  it('R-DT-76..84: no hostile statement is refused merely as a syntax error (they must be valid SQL)', () => {
    expect(hostile.filter((e) => refusedCode(e.sql) === 'syntax').map((e) => e.sql)).toEqual([]);
  });

  it('R-DT-77, D-12: every benign statement is accepted (100%)', () => {
    const refused = benign
      .map((e) => ({ sql: e.sql, r: check(e.sql) }))
      .filter((x) => !x.r.ok)
      .map((x) => ({ sql: x.sql, why: x.r.ok ? '' : `${x.r.code}: ${x.r.reason.en}` }));
    expect(refused).toEqual([]);
  });
});

describe('SQL channel checker rules', () => {
  it('R-DT-76: exactly one statement; a trailing semicolon and trailing comments are fine and dropped from the executed text', async () => {
    expect(refusedCode('select 1; select 2')).toBe('multi_statement');
    const plan = await checkSql('select 1 ;  -- done', OPTS);
    expect(plan.ok && plan.rewrittenSql).toBe('select 1');
    expect(refusedCode('')).toBe('empty');
    expect(refusedCode(' ; ')).toBe('empty');
    expect(refusedCode('-- nothing')).toBe('empty');
    expect(refusedCode('selec 1')).toBe('syntax');
  });

  it('R-DT-77: bare names are accepted and reported as the tables to route; CTE names are not tables', () => {
    const plan = accepted('WITH x AS (SELECT * FROM "客户") SELECT * FROM x JOIN 订单 o ON o.客户id = x.id');
    expect(plan.tables.sort()).toEqual(['客户', '订单'].sort());
    expect(accepted(`SELECT * FROM ${SCHEMA}."客户"`).tables).toEqual(['客户']);
  });

  it('R-DT-81: a CTE name does not hide a catalog relation and a CTE out of scope is a real table', () => {
    expect(refusedCode('WITH pg_user AS (SELECT 1) SELECT * FROM pg_user')).toBe('catalog_relation');
    const plan = accepted('SELECT * FROM (WITH a AS (SELECT 1) SELECT * FROM a) s, a');
    expect(plan.tables).toEqual(['a']);
  });

  it('R-DT-81: the own schema is matched exactly (case-sensitive when quoted), any other schema is refused', () => {
    expect(check(`SELECT * FROM ORG_DATA_ACME."客户"`).ok).toBe(true); // unquoted folds to lower case
    expect(refusedCode(`SELECT * FROM "ORG_DATA_ACME"."客户"`)).toBe('schema');
    const r = check('SELECT * FROM org_data_rival.x');
    expect(!r.ok && r.reason.en).toMatch(/another organisation/);
    const zh = check('SELECT * FROM public.x');
    expect(!zh.ok && zh.reason.zh).toMatch(/public/);
  });

  it("R-DT-81: an explicit pg_catalog type is refused while the parser's own pg_catalog names (integer, EXTRACT, TRIM …) pass", () => {
    expect(refusedCode('SELECT 1::pg_catalog.int4')).toBe('schema');
    expect(refusedCode('SELECT 1::"pg_catalog".int4')).toBe('schema');
    accepted(
      "SELECT CAST(1 AS integer), 2::bigint, extract(epoch FROM now()), trim(' a '), substring('abc' FROM 2), position('b' IN 'abc'), now() AT TIME ZONE 'UTC'",
    );
  });

  it('R-DT-79: UPDATE and DELETE need WHERE; TRUNCATE is a whole-table delete and refused', () => {
    expect(refusedCode('UPDATE t SET a = 1')).toBe('where_required');
    expect(refusedCode('DELETE FROM t')).toBe('where_required');
    expect(refusedCode('TRUNCATE t')).toBe('where_required');
    expect(accepted('DELETE FROM t WHERE a = 1').kind).toBe('delete');
  });

  it('R-DT-80: BEGIN / COMMIT / ROLLBACK / SAVEPOINT / RELEASE are refused as transaction control', () => {
    for (const s of [
      'BEGIN',
      'COMMIT',
      'ROLLBACK',
      'SAVEPOINT a',
      'RELEASE SAVEPOINT a',
      'ROLLBACK TO SAVEPOINT a',
      'ABORT',
      "PREPARE TRANSACTION 'x'",
    ]) {
      expect(refusedCode(s)).toBe('transaction_control');
    }
  });

  it('R-DT-82: CREATE only TABLE / INDEX / VIEW', () => {
    expect(accepted('CREATE TABLE 客户 (名称 text)').kind).toBe('create_table');
    expect(accepted('CREATE INDEX i ON 客户 (名称)').kind).toBe('create_index');
    expect(accepted('CREATE VIEW v AS SELECT 1 AS a').kind).toBe('create_view');
    const others = [
      'CREATE SEQUENCE s',
      'CREATE TYPE t AS (a int)',
      "CREATE TYPE e AS ENUM ('a')",
      'CREATE MATERIALIZED VIEW m AS SELECT 1',
      'CREATE DOMAIN d AS text',
      'CREATE POLICY p ON t USING (true)',
      'CREATE RULE r AS ON INSERT TO t DO INSTEAD NOTHING',
      'CREATE DATABASE x',
      'CREATE SERVER s FOREIGN DATA WRAPPER w',
      'CREATE PROCEDURE p() LANGUAGE sql AS $$ SELECT 1 $$',
      'CREATE AGGREGATE a (int) (sfunc = int4pl, stype = int)',
      'CREATE CAST (text AS int) WITH INOUT',
    ];
    for (const s of others) expect([s, refusedCode(s)]).toEqual([s, 'create_kind']);
  });

  it('R-DT-78, R-DT-08: created tables may not define id / created_at (any case) or a PRIMARY KEY; the system columns are prepended', () => {
    expect(refusedCode('CREATE TABLE t ("ID" text)')).toBe('system_column');
    expect(refusedCode('CREATE TABLE t (Created_At date)')).toBe('system_column');
    expect(refusedCode('CREATE TABLE t (a text, CONSTRAINT pk PRIMARY KEY (a))')).toBe('primary_key');
    const plan = accepted('CREATE TABLE "库存" (物料 text)');
    expect(plan.rewrittenSql).toBe(
      'CREATE TABLE "库存" ("id" bigserial PRIMARY KEY, "created_at" timestamptz NOT NULL DEFAULT now(), 物料 text)',
    );
  });

  it('R-DT-84: created column and table names follow the identifier rule; data values are not restricted', () => {
    expect(refusedCode('CREATE TABLE t ("容差%" text)')).toBe('identifier');
    expect(refusedCode('CREATE TABLE "1表" (a text)')).toBe('identifier');
    expect(refusedCode('ALTER TABLE t ADD COLUMN "a b" text')).toBe('identifier');
    expect(refusedCode('ALTER TABLE t RENAME COLUMN a TO "x%"')).toBe('identifier');
    accepted("INSERT INTO t (备注) VALUES ('MA20偏离%')");
  });

  it('R-DT-83: no JSONB type, no ::jsonb cast, no jsonb functions; json on text is fine', () => {
    expect(refusedCode("CREATE TABLE t (a text DEFAULT '[]'::jsonb)")).toBe('jsonb');
    expect(refusedCode("SELECT CAST('{}' AS jsonb)")).toBe('jsonb');
    expect(refusedCode("SELECT jsonb_typeof('1')")).toBe('jsonb');
    accepted("SELECT '{\"a\": 1}'::json ->> 'a'");
  });

  it('A-36: CREATE TABLE maps the SQL types to logical types with precision, NOT NULL → required, UNIQUE → unique', () => {
    const plan = accepted(
      'CREATE TABLE IF NOT EXISTS 库存 (物料 varchar(20) NOT NULL, 数量 integer, 大数 bigint, 单价 numeric(12,3), 比例 real, 日 date, 时刻 timestamp, 带时区 timestamptz, 点 time, 好 boolean, 档案 json, UNIQUE (物料))',
    );
    expect(plan.createTable).toEqual({
      title: '库存',
      ifNotExists: true,
      fields: [
        { title: '物料', uidt: '文本', required: true, unique: true },
        { title: '数量', uidt: '整数' },
        { title: '大数', uidt: '整数' },
        { title: '单价', uidt: '数字', precision: 12, scale: 3 },
        { title: '比例', uidt: '数字' },
        { title: '日', uidt: '日期' },
        { title: '时刻', uidt: '日期时间' },
        { title: '带时区', uidt: '日期时间' },
        { title: '点', uidt: '时间' },
        { title: '好', uidt: '勾选' },
        { title: '档案', uidt: 'JSON' },
      ],
    });
    expect(refusedCode('CREATE TABLE t (标签 text[])')).toBe('type');
    expect(refusedCode('CREATE TABLE t (a bytea)')).toBe('type');
    expect(refusedCode('CREATE TABLE t (a serial)')).toBe('type');
  });

  it('R-DT-08: id and created_at are never written (INSERT lists, UPDATE SET, ON CONFLICT SET, positional INSERT)', () => {
    expect(refusedCode("INSERT INTO t (ID, a) VALUES (1, 'x')")).toBe('system_column');
    expect(refusedCode('UPDATE t SET id = 2 WHERE id = 1')).toBe('system_column');
    expect(refusedCode("INSERT INTO t (a) VALUES ('x') ON CONFLICT (a) DO UPDATE SET created_at = now()")).toBe('system_column');
    expect(refusedCode("INSERT INTO t VALUES ('x')")).toBe('insert_columns');
    accepted('INSERT INTO t DEFAULT VALUES');
  });

  it('D-12: a colon inside a literal is just text (the statement is kept byte for byte)', () => {
    const sql = "INSERT INTO t (a, b) VALUES ('10:30', '{\"value\":0.85} :name')";
    expect(accepted(sql).rewrittenSql).toBe(sql);
  });

  it('D-02, A-30: ALTER supports ADD COLUMN, SET/DROP DEFAULT, SET/DROP NOT NULL, RENAME COLUMN (DROP COLUMN goes to delete_field) and reports the metadata steps', () => {
    const plan = accepted(
      "ALTER TABLE 库存 ADD COLUMN 仓库 text NOT NULL DEFAULT 'A', ALTER COLUMN 数量 SET NOT NULL, ALTER COLUMN 数量 SET DEFAULT 0",
    );
    expect(plan.alter).toEqual({
      table: '库存',
      steps: [
        { op: 'add_column', field: { title: '仓库', uidt: '文本', required: true }, ifNotExists: false },
        { op: 'set_required', column: '数量', required: true },
        { op: 'default', column: '数量' },
      ],
    });
    expect(plan.structural).toBe(true);
    expect(accepted('ALTER TABLE 库存 RENAME COLUMN 仓库 TO 库位').alter?.steps).toEqual([
      { op: 'rename_column', column: '仓库', to: '库位' },
    ]);
    expect(refusedCode('ALTER TABLE 库存 RENAME TO 仓储')).toBe('ddl_not_supported');
    expect(refusedCode('ALTER TABLE 库存 DROP COLUMN id')).toBe('system_column');
    expect(refusedCode('ALTER TABLE 库存 ADD CONSTRAINT u UNIQUE (物料)')).toBe('ddl_not_supported');
    const drop = check('ALTER TABLE 库存 DROP COLUMN 物料');
    expect(!drop.ok && [drop.code, drop.redirect]).toEqual(['ddl_not_supported', 'delete_field']);
  });

  it('DROP: VIEW and INDEX only; DROP TABLE redirects to delete_table', () => {
    expect(accepted('DROP VIEW IF EXISTS v').drop).toEqual({ objects: ['v'], type: 'view' });
    const r = check('DROP TABLE 客户');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.redirect).toBe('delete_table');
    expect(refusedCode('DROP VIEW public.v')).toBe('schema');
  });

  it("R-DT-89: the DELETE pre-check reuses the statement's own target, USING and WHERE text and counts distinct target rows", () => {
    const plan = accepted(
      "WITH w AS (SELECT 1 AS x) DELETE FROM ONLY 客户 AS k USING 订单 o WHERE o.客户id = k.id AND k.备注 = 'a:b' -- tail\nRETURNING k.id",
    );
    expect(plan.delete?.countSql).toBe(
      'WITH w AS (SELECT 1 AS x) SELECT count(DISTINCT "k".ctid) AS n FROM  ONLY 客户 AS k \n,  订单 o \nWHERE  o.客户id = k.id AND k.备注 = \'a:b\' -- tail\n\n',
    );
    for (const q of [plan.delete!.countSql, plan.delete!.rowsSql]) expect(check(q).ok).toBe(true);
    const simple = accepted("DELETE FROM 客户 WHERE 名称 = 'x' -- trailing comment");
    expect(simple.delete?.rowsSql).toBe('SELECT "客户".* FROM  客户 \nWHERE  名称 = \'x\' -- trailing comment\n');
  });

  it('the walk is an allowlist: unknown syntax is refused rather than passed', () => {
    expect(refusedCode('SELECT * FROM t TABLESAMPLE SYSTEM (10)')).toBe('syntax_not_allowed');
    expect(refusedCode("SELECT * FROM XMLTABLE('/a' PASSING '<a/>' COLUMNS x int)")).toBe('syntax_not_allowed');
    expect(refusedCode('SELECT * FROM t FOR UPDATE')).toBe('syntax_not_allowed');
    expect(refusedCode("SELECT JSON_OBJECT('a': 1)")).toBe('syntax_not_allowed');
  });
});
