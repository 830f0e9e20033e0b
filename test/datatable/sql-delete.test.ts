/**
 * SQL DELETE through delete protection (R-DT-87..91, R-DT-89 pre-check, A-29,
 * D-05, docs/messaging.md) on both engines: > 10 rows or an unknown count need a confirm_token
 * in chat mode; the token is bound to the statement; every executed SQL DELETE leaves a backup
 * of the deleted rows in the workspace root.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { runDatatable } from '../../src/datatable/index.ts';
import { runSqlExecute, runSqlQuery } from '../../src/datatable/sql/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/db.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { sqlEnv, type SqlTestEnv } from './sql-helpers.ts';

let orgSeq = 0;

/** A fresh org with table 工单 holding `n` rows: 编号 1..n, 状态 '关闭', 日 2024-03-01. */
async function seeded(db: Db, n: number, over: Parameters<typeof sqlEnv>[2] = {}): Promise<SqlTestEnv> {
  const env = sqlEnv(db, `del${++orgSeq}`, over);
  const create = await runSqlExecute(env, 'CREATE TABLE 工单 (编号 bigint, 状态 text, 日 date)');
  if (create.success !== true) throw new Error(JSON.stringify(create));
  const ins = await runSqlExecute(
    env,
    `INSERT INTO 工单 (编号, 状态, 日) SELECT g, '关闭', '2024-03-01' FROM generate_series(1, ${n}) AS g`,
  );
  if (ins.success !== true) throw new Error(JSON.stringify(ins));
  return env;
}

async function count(env: SqlTestEnv): Promise<number> {
  const r = await runSqlQuery(env, 'SELECT count(*) AS n FROM 工单');
  return (r.rows as Array<{ n: number }>)[0]!.n;
}

function backups(env: SqlTestEnv): string[] {
  return readdirSync(env.caller.workspaceDir).filter((f) => f.startsWith('del_backup_'));
}

describeEachEngine('datatable SQL DELETE protection', (db) => {
  beforeEach(async () => {
    await migrate(db());
  });

  it('R-DT-87, R-DT-89: an 11-row SQL DELETE in chat mode returns a confirm_token with the pre-check count and deletes nothing', async () => {
    const env = await seeded(db(), 11);
    const r = await runSqlExecute(env, "DELETE FROM 工单 WHERE 状态 = '关闭'");
    expect(r).toMatchObject({ need_confirm: true, executed: false, affected: 11, action: 'sql_execute', table: '工单' });
    expect(typeof r.confirm_token).toBe('string');
    expect(r.received).toEqual({ sql: "DELETE FROM 工单 WHERE 状态 = '关闭'" });
    expect(await count(env)).toBe(11);
    expect(backups(env)).toEqual([]);
  });

  it('R-DT-88, R-DT-91: the same statement with the token deletes and leaves a backup of exactly the deleted rows; the token is single use', async () => {
    const env = await seeded(db(), 11);
    const sql = "DELETE FROM 工单 WHERE 状态 = '关闭' RETURNING 编号";
    const first = await runSqlExecute(env, sql);
    const token = first.confirm_token;
    const done = await runSqlExecute(env, sql, { confirmToken: token });
    expect(done).toMatchObject({ success: true, affected: 11, deleted: 11 });
    expect((done.rows as unknown[]).length).toBe(11);
    expect(await count(env)).toBe(0);
    const file = done.backup_file as string;
    expect(file).toMatch(/^del_backup_工单_20260301_100000\.json$/);
    expect(backups(env)).toEqual([file]);
    const saved = JSON.parse(readFileSync(join(env.caller.workspaceDir, file), 'utf8')) as Array<Record<string, unknown>>;
    expect(saved.map((r) => r.编号).sort((a, b) => Number(a) - Number(b))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(saved[0]).toMatchObject({ 状态: '关闭', 日: '2024-03-01' });
    const again = await runSqlExecute(env, sql, { confirmToken: token });
    expect(again).toMatchObject({ success: false, token_refused: 'consumed' });
  });

  it('R-DT-91: a DELETE whose condition gives other rows each time (random()) is rolled back whole: no row is deleted without being in the backup', async () => {
    const env = await seeded(db(), 40);
    const token = (await runSqlExecute(env, 'DELETE FROM 工单 WHERE random() < 0.5')).confirm_token; // unknown/large count: confirmation first
    const r = await runSqlExecute(env, 'DELETE FROM 工单 WHERE random() < 0.5', { confirmToken: token });
    expect(r, JSON.stringify(r)).toMatchObject({ success: false, error_type: 'recoverable', refused: 'unstable_delete' });
    expect(String(r.user_message)).toContain('未删除任何数据');
    expect(await count(env)).toBe(40);
    expect(backups(env)).toEqual([]);
  });

  it('A-29: a token presented with a different statement is refused, deletes nothing and is not consumed', async () => {
    const env = await seeded(db(), 12);
    const sql = 'DELETE FROM 工单 WHERE 编号 > 0';
    const token = (await runSqlExecute(env, sql)).confirm_token;
    const other = await runSqlExecute(env, 'DELETE FROM 工单 WHERE 编号 > 1', { confirmToken: token });
    expect(other).toMatchObject({ success: false, token_refused: 'mismatch', need_confirm: true });
    expect(await count(env)).toBe(12);
    expect(await runSqlExecute(env, sql, { confirmToken: token })).toMatchObject({ success: true, deleted: 12 });
  });

  it('R-DT-88: a token older than 5 minutes is refused (injectable clock) and nothing is deleted', async () => {
    const env = await seeded(db(), 11);
    const sql = 'DELETE FROM 工单 WHERE 编号 <= 11';
    const token = (await runSqlExecute(env, sql)).confirm_token;
    env.clock.now = new Date(env.clock.now.getTime() + 5 * 60_000 + 1_000);
    expect(await runSqlExecute(env, sql, { confirmToken: token })).toMatchObject({ success: false, token_refused: 'expired' });
    expect(await count(env)).toBe(11);
  });

  it('R-DT-87, R-DT-91: 10 rows are deleted without a token, still with a backup', async () => {
    const env = await seeded(db(), 12);
    const r = await runSqlExecute(env, 'DELETE FROM 工单 WHERE 编号 <= 10');
    expect(r).toMatchObject({ success: true, deleted: 10 });
    expect(backups(env)).toEqual([r.backup_file]);
    expect(await count(env)).toBe(2);
  });

  it('D-05: with chat_mode false an 11-row delete runs without a token and is backed up', async () => {
    const env = await seeded(db(), 11, { chatMode: false });
    const r = await runSqlExecute(env, 'DELETE FROM 工单 WHERE 编号 > 0');
    expect(r).toMatchObject({ success: true, deleted: 11 });
    expect(backups(env)).toHaveLength(1);
  });

  it('R-DT-89: a failing pre-check counts as unknown and needs a confirmation (DELETE through a view has no ctid)', async () => {
    const env = await seeded(db(), 3);
    expect((await runSqlExecute(env, 'CREATE VIEW 关闭工单 AS SELECT * FROM 工单')).success).toBe(true);
    const r = await runSqlExecute(env, 'DELETE FROM 关闭工单 WHERE 编号 = 1');
    expect(r).toMatchObject({ need_confirm: true, affected: null });
    expect(await count(env)).toBe(3);
  });

  it('R-DT-89: USING joins are counted by distinct target rows, not by join rows', async () => {
    const env = await seeded(db(), 10);
    expect((await runSqlExecute(env, 'CREATE TABLE 标记 (编号 bigint)')).success).toBe(true);
    expect((await runSqlExecute(env, 'INSERT INTO 标记 (编号) SELECT g % 10 + 1 FROM generate_series(1, 30) AS g')).success).toBe(true);
    // 30 join rows, 10 distinct target rows: no confirmation needed.
    const r = await runSqlExecute(env, 'DELETE FROM 工单 g USING 标记 m WHERE m.编号 = g.编号');
    expect(r).toMatchObject({ success: true, deleted: 10 });
    const saved = JSON.parse(readFileSync(join(env.caller.workspaceDir, r.backup_file as string), 'utf8')) as unknown[];
    expect(saved).toHaveLength(10);
  });
});

describeEachEngine('datatable SQL channel through the dispatcher', (db) => {
  beforeEach(async () => {
    await migrate(db());
  });

  it('R-DT-42/43, R-DT-88: runDatatable routes sql_query / sql_execute (payload or flat) and the confirm_token round trip', async () => {
    const env = await seeded(db(), 11);
    const ctx = {
      org_id: env.caller.orgId,
      role_id: 'default',
      session_id: 's1',
      actor_key: 'web:u1',
      team_role: 'owner',
      chat_mode: true,
      allow_sql: true,
      workspace_dir: env.caller.workspaceDir,
      db_factory: <T>(fn: (tx: import('../../src/store/db.ts').Tx) => Promise<T>) => db().transaction(fn),
    };
    const opts = { now: () => env.clock.now };
    const q = await runDatatable({ action: 'sql_query', payload: { sql: 'SELECT count(*) AS n FROM 工单' } }, ctx, opts);
    expect(q).toMatchObject({ success: true, rows: [{ n: 11 }], row_count: 1 });
    const sql = 'DELETE FROM 工单 WHERE 编号 >= 1';
    const first = await runDatatable({ action: 'sql_execute', sql }, ctx, opts);
    expect(first).toMatchObject({ need_confirm: true, affected: 11 });
    const done = await runDatatable({ action: 'sql_execute', sql, confirm_token: first.confirm_token }, ctx, opts);
    expect(done).toMatchObject({ success: true, deleted: 11 });
    expect(backups(env)).toEqual([done.backup_file]);
    const off = await runDatatable({ action: 'sql_query', payload: { sql: 'SELECT 1 AS a' } }, { ...ctx, allow_sql: false }, opts);
    expect(off).toMatchObject({ success: false, error_type: 'config', permission_denied: true });
  });
});
