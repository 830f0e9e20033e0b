/**
 * Who may use the SQL channel (R-DT-23, R-DT-25/26, D-02, D-03, D-04): allow_sql,
 * no own-scope table for the operator's roles, table grants per touched table, and DDL only
 * for team_role owner/admin (with the enforceStructuralRoles switch) — on both engines.
 */
import { beforeAll, expect, it } from 'vitest';
import { grant } from '../../src/datatable/access/grants.ts';
import { findTableByTitle } from '../../src/datatable/catalog/metadata.ts';
import { runSqlExecute, runSqlQuery, sqlExecuteAction, sqlQueryAction } from '../../src/datatable/sql/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { sqlEnv } from './sql-helpers.ts';

describeEachEngine('datatable SQL channel permissions', (db) => {
  beforeAll(async () => {
    await migrate(db());
    const owner = sqlEnv(db(), 'perm');
    for (const s of [
      'CREATE TABLE 客户 (名称 text, 负责人工号 text)',
      'CREATE TABLE 公告 (标题 text)',
      "INSERT INTO 客户 (名称, 负责人工号) VALUES ('甲', 'E1'), ('乙', 'E2')",
      "INSERT INTO 公告 (标题) VALUES ('通知')",
      'CREATE VIEW 客户名单 AS SELECT 名称 FROM 客户',
      'CREATE VIEW 名单套娃 AS SELECT * FROM 客户名单',
    ]) {
      const r = await runSqlExecute(owner, s);
      if (r.success !== true) throw new Error(JSON.stringify(r));
    }
    const customers = (await findTableByTitle(db(), 'perm', '客户'))!;
    await grant(db(), customers, { tableId: customers.id, roleId: 'sales', rowScope: 'own', ownerField: '负责人工号' });
    await grant(db(), customers, { tableId: customers.id, roleId: 'viewer', actions: ['query', 'sql_query'] });
    await grant(db(), customers, { tableId: customers.id, roleId: 'reader', actions: ['query'] });
  });

  it('R-DT-26, D-04: allow_sql false refuses both actions as a non-retriable config error', async () => {
    const env = sqlEnv(db(), 'perm', { allowSql: false });
    for (const r of [await runSqlQuery(env, 'SELECT 1 AS a'), await runSqlExecute(env, "INSERT INTO 公告 (标题) VALUES ('x')")]) {
      expect(r).toMatchObject({ success: false, error_type: 'config', non_retriable: true, permission_denied: true });
    }
  });

  it('R-DT-23, D-03: a role with an own-scope table is refused the SQL channel, even for other tables', async () => {
    const env = sqlEnv(db(), 'perm', { roleIds: ['sales'], empNo: 'E1' });
    const r = await runSqlQuery(env, 'SELECT * FROM 公告');
    expect(r).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
    expect(String(r.user_message)).toContain('客户');
    // A second role without a grant row opens the table, so SQL is allowed again.
    expect(await runSqlQuery(sqlEnv(db(), 'perm', { roleIds: ['sales', 'default'] }), 'SELECT count(*) AS n FROM 客户')).toMatchObject({
      success: true,
      rows: [{ n: 2 }],
    });
  });

  it('R-DT-13: table grants apply per touched table — sql_query needs the action on every granted table it reads', async () => {
    const viewer = sqlEnv(db(), 'perm', { roleIds: ['viewer'] });
    expect(await runSqlQuery(viewer, 'SELECT count(*) AS n FROM 客户')).toMatchObject({ success: true, rows: [{ n: 2 }] });
    expect(await runSqlExecute(viewer, "UPDATE 客户 SET 名称 = 'x' WHERE 名称 = '甲'")).toMatchObject({
      success: false,
      permission_denied: true,
    });
    const reader = sqlEnv(db(), 'perm', { roleIds: ['reader'] });
    expect(await runSqlQuery(reader, 'SELECT k.名称 FROM 公告 g JOIN 客户 k ON true')).toMatchObject({
      success: false,
      permission_denied: true,
    });
    expect(await runSqlQuery(reader, 'SELECT 标题 FROM 公告')).toMatchObject({ success: true, rows: [{ 标题: '通知' }] });
  });

  it('R-DT-13: a view does not lend access — grants are checked on the tables behind views, recursively', async () => {
    const reader = sqlEnv(db(), 'perm', { roleIds: ['reader'] });
    expect(await runSqlQuery(reader, 'SELECT * FROM 客户名单')).toMatchObject({ success: false, permission_denied: true });
    expect(await runSqlQuery(reader, 'SELECT * FROM 名单套娃')).toMatchObject({ success: false, permission_denied: true });
    const viewer = sqlEnv(db(), 'perm', { roleIds: ['viewer'] });
    expect(await runSqlQuery(viewer, 'SELECT count(*) AS n FROM 名单套娃')).toMatchObject({ success: true, rows: [{ n: 2 }] });
  });

  it('D-02, R-DT-25: DDL through SQL needs team_role owner/admin; DML does not; the switch turns the rule off', async () => {
    const member = sqlEnv(db(), 'perm', { teamRole: 'member' });
    for (const s of [
      'CREATE TABLE 新表 (a text)',
      'CREATE INDEX 公告_标题 ON 公告 (标题)',
      'CREATE VIEW 视图 AS SELECT 1 AS a',
      'ALTER TABLE 公告 ADD COLUMN 正文 text',
      'DROP VIEW IF EXISTS 视图',
    ]) {
      expect([s, await runSqlExecute(member, s)]).toMatchObject([s, { success: false, error_type: 'config', permission_denied: true }]);
    }
    expect(await findTableByTitle(db(), 'perm', '新表')).toBeNull();
    expect(await runSqlExecute(member, "INSERT INTO 公告 (标题) VALUES ('成员写入')")).toMatchObject({ success: true, affected: 1 });
    const admin = sqlEnv(db(), 'perm', { teamRole: 'admin' });
    expect(await runSqlExecute(admin, 'CREATE TABLE 管理员表 (a text)')).toMatchObject({ success: true, created: true });
    const migrating = sqlEnv(db(), 'perm', { teamRole: 'member' }, { enforceStructuralRoles: false });
    expect(await runSqlExecute(migrating, 'CREATE TABLE 迁移表 (a text)')).toMatchObject({ success: true, created: true });
  });

  it('the dispatcher handlers take {sql} (and confirm_token) from the payload', async () => {
    const env = sqlEnv(db(), 'perm');
    expect(await sqlQueryAction(env, { sql: 'SELECT 标题 FROM 公告 ORDER BY id LIMIT 1' })).toMatchObject({
      success: true,
      rows: [{ 标题: '通知' }],
      row_count: 1,
    });
    expect(await sqlExecuteAction(env, { sql: "UPDATE 公告 SET 标题 = '通知' WHERE 标题 = '通知'" })).toMatchObject({
      success: true,
      affected: 1,
    });
    expect(await sqlQueryAction(env, {})).toMatchObject({ success: false, need_param: 'sql' });
  });
});
