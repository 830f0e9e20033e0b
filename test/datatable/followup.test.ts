/**
 * Follow-up fixes found by a fresh user's test: aggregate over dates and checkboxes,
 * import paths, SQL limits, value validation, stale confirm tokens, error classes,
 * single-language messages, `like` patterns. Both engines.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { dbErrorEnvelope } from '../../src/datatable/model/results.ts';
import { checkSql } from '../../src/datatable/sql/check.ts';
import { runSqlQuery } from '../../src/datatable/sql/execute.ts';
import { wrapSelectBounded } from '../../src/datatable/sql/session.ts';
import { describeEachEngine, TEST_DATABASE_URL } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';
import { sqlEnv } from './sql-helpers.ts';
import { withCall } from '../../src/wiring/skill-call.ts';

/** A zh user_message holds no Latin words apart from the acronym SQL (table names here are Chinese). */
const zhOnly = (m: unknown) => String(m).replace(/SQL/g, '');
const HAN_ONLY = /^[^A-Za-z]*$/;

describeEachEngine('datatable follow-up fixes', (db, engine) => {
  let t: RowsEnv;
  let id: string;
  beforeAll(async () => {
    t = await rowsEnv(db());
    id = await t.table('台账', [
      { title: '名称', uidt: '文本' },
      { title: '日', uidt: '日期' },
      { title: '时刻', uidt: '日期时间' },
      { title: '完成', uidt: '勾选' },
      { title: '数量', uidt: '整数' },
      { title: '金额', uidt: '金额' },
      { title: '标签', uidt: '多选', options: ['a%b', 'ab', 'x_y'] },
    ]);
    const r = await t.call({
      action: 'insert_batch',
      payload: {
        table_id: id,
        records: [
          { 名称: '100%纯', 日: '2026-01-02', 时刻: '2026-01-02 23:30:00', 完成: true, 数量: 1, 标签: ['a%b'] },
          { 名称: '1000纯', 日: '2026-03-04', 时刻: '2026-03-04T08:15:00', 完成: false, 数量: 2, 标签: ['ab'] },
          { 名称: 'AB_C', 日: '2025-12-31', 时刻: '2025-12-31 00:00:00', 完成: false, 数量: 3, 标签: ['x_y'] },
        ],
      },
    });
    expect(r, JSON.stringify(r)).toMatchObject({ success: true, inserted: 3 });
  });

  it('R-DT-32/R-DT-55 (item 1): max/min on 日期 and 日期时间 come back as the strings query returns, independent of the time zone', async () => {
    const r = await t.call({
      action: 'aggregate',
      payload: {
        table_id: id,
        metrics: [
          { field: '日', op: 'max', alias: '最晚日' },
          { field: '日', op: 'min', alias: '最早日' },
          { field: '时刻', op: 'max', alias: '最晚时刻' },
        ],
      },
    });
    expect(r, JSON.stringify(r)).toMatchObject({ success: true });
    const row = (r.rows as Array<Record<string, unknown>>)[0]!;
    const q = await t.call({ action: 'query', payload: { table_id: id, sort: '-时刻', limit: 1 } });
    const latest = (q.list as Array<Record<string, unknown>>)[0]!;
    expect(row).toEqual({ 最晚日: '2026-03-04', 最早日: '2025-12-31', 最晚时刻: latest.时刻 });
    // timestamptz read back as text in the caller's zone: the wall-clock time as written, with its offset
    expect(String(row.最晚时刻)).toMatch(/^2026-03-04 08:15:00[+-]\d{2}(:\d{2})?$/);
  });

  it('R-DT-35: an import file whose record is nested 100 000 levels deep is reported as a row error; the result stays serialisable', async () => {
    writeFileSync(join(t.ws, 'deep.json'), `[${'['.repeat(100_000)}${']'.repeat(100_000)}, {"名称": "ok"}]`);
    const r = await t.call({ action: 'insert_from_file', table_id: id, file: 'deep.json' });
    expect(() => JSON.stringify(r)).not.toThrow();
    expect(r, JSON.stringify(r).slice(0, 400)).toMatchObject({ success: true, inserted: 1, failed: 1 });
    expect((r.errors as Array<{ row: number }>)[0]!.row).toBe(1);
  });

  it('R-DT-55 (item 1): max/min on a 勾选 field is refused as recoverable, naming the field (no SQLSTATE 42883)', async () => {
    const r = await t.call({ action: 'aggregate', payload: { table_id: id, metrics: [{ field: '完成', op: 'max' }] } });
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'metrics' });
    expect(String(r.user_message)).toContain('「完成」');
    expect(r.sqlstate).toBeUndefined();
  });

  it('R-DT-35/D-23 (items 2, 8): a bare file name is found in a workspace sub-folder; a directory or a missing file is recoverable and named relative to the workspace', async () => {
    mkdirSync(join(t.ws, 'imports', 'deep'), { recursive: true });
    writeFileSync(join(t.ws, 'imports', 'deep', 'rows.json'), JSON.stringify([{ 名称: '导入1' }, { 名称: '导入2' }]));
    for (const file of ['rows.json', join(t.ws, 'rows.json'), 'imports/deep/rows.json']) {
      const r = await t.call({ action: 'insert_from_file', table_id: id, file });
      expect(r, `${file}: ${JSON.stringify(r)}`).toMatchObject({ success: true, inserted: 2 });
    }
    const dir = await t.call({ action: 'insert_from_file', table_id: id, file: 'imports' });
    expect(dir).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'file' });
    expect(String(dir.user_message)).toContain('「imports」是一个目录');
    const missing = await t.call({ action: 'insert_from_file', table_id: id, file: 'imports/nope.json' });
    expect(missing).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'file' });
    expect(String(missing.user_message)).toContain('「imports/nope.json」');
    for (const env of [dir, missing]) expect(JSON.stringify(env)).not.toContain(t.ws);
    mkdirSync(join(t.ws, 'other'), { recursive: true });
    writeFileSync(join(t.ws, 'other', 'rows.json'), '[]');
    const twice = await t.call({ action: 'insert_from_file', table_id: id, file: 'rows.json' });
    expect(twice).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'file' });
    expect(String(twice.user_message)).toContain('imports/deep/rows.json');
  });

  it('R-DT-100 (item 8): file-system errors (EISDIR, ENOENT) are recoverable without the absolute path; 57014 is a recoverable timeout', () => {
    const eisdir = Object.assign(new Error('EISDIR: illegal operation on a directory, read /srv/secret/ws/x'), {
      code: 'EISDIR',
      syscall: 'read',
    });
    const r = dbErrorEnvelope(eisdir, 'insert_from_file', 'zh-CN');
    expect(r).toMatchObject({ success: false, error_type: 'recoverable', file_error: 'EISDIR' });
    expect(JSON.stringify(r)).not.toContain('/srv/secret');
    const timeout = dbErrorEnvelope(
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }),
      'sql_query',
      'zh-CN',
    );
    expect(timeout).toMatchObject({ success: false, error_type: 'recoverable', timeout: true, sqlstate: '57014' });
    expect(String(timeout.user_message)).toContain('超时');
    expect(dbErrorEnvelope(Object.assign(new Error('x'), { code: '40001' }), 'q', 'zh-CN').error_type).toBe('transient');
  });

  it('R-DT-42 (item 4): sql_query caps rows (truncated + action_note) and refuses over-long or too deep statements clearly', async () => {
    const many = await t.call({ action: 'sql_query', sql: 'SELECT g FROM generate_series(1, 1500) AS g' });
    expect(many, JSON.stringify(many).slice(0, 300)).toMatchObject({ success: true, row_count: 1000, truncated: true });
    expect(String(many.action_note)).toContain('1000');
    const union = Array.from({ length: 3000 }, (_, i) => `SELECT ${i}`).join(' UNION ');
    const deep = await t.call({ action: 'sql_query', sql: union });
    expect(deep, JSON.stringify(deep).slice(0, 300)).toMatchObject({ success: false, error_type: 'recoverable', refused: 'too_complex' });
    expect(String(deep.error)).not.toMatch(/call stack/i);
    const long = await t.call({ action: 'sql_query', sql: `SELECT '${'x'.repeat(100_001)}'` });
    expect(long).toMatchObject({ success: false, error_type: 'recoverable', refused: 'too_long' });
  });

  it('R-DT-42 (item 4): a value over the size cap never travels to the gateway — the crossing row comes without its text, later rows not at all', async () => {
    const { rows } = await db().query<{ r: string | null; len: number }>(
      wrapSelectBounded("SELECT g, repeat('x', 3000) AS pad FROM generate_series(1, 3) AS g", 1000, 5000),
    );
    expect(rows.map((x) => x.r === null)).toEqual([false, true]);
    expect(Number(rows[1]!.len)).toBeGreaterThan(3000);
    const env = sqlEnv(db(), 'acme');
    const huge = await runSqlQuery(env, "SELECT repeat('x', 30000000) AS big");
    expect(huge).toMatchObject({ success: true, rows: [], truncated: true, truncated_by: 'size' });
  });

  it('R-DT-42 (item 4): the result size is capped too', async () => {
    const env = sqlEnv(db(), 'acme');
    const r = await runSqlQuery(env, "SELECT g, repeat('x', 1000) AS pad FROM generate_series(1, 50) AS g", { maxResultChars: 5000 });
    expect(r).toMatchObject({ success: true, truncated: true, truncated_by: 'size' });
    expect((r.rows as unknown[]).length).toBeLessThan(5);
    expect((r.rows as unknown[]).length).toBeGreaterThan(0);
  });

  it(`R-DT-42 (item 3): unbounded constructs ${engine === 'embedded' ? 'are refused on the embedded engine' : 'run on the server, whose statement_timeout cancels them as a recoverable timeout'}`, async () => {
    const huge = 'SELECT count(*) AS n FROM generate_series(1, 100000000000) AS g';
    const recursive = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';
    if (engine === 'embedded') {
      for (const sql of [huge, recursive, 'SELECT count(*) FROM generate_series(1, 1000000) a, generate_series(1, 1000000) b']) {
        const r = await t.call({ action: 'sql_query', sql });
        expect(r, sql).toMatchObject({ success: false, error_type: 'recoverable', refused: 'unbounded' });
      }
      const ok = await t.call({ action: 'sql_query', sql: 'SELECT count(*) AS n FROM generate_series(1, 1000) AS g' });
      expect(ok).toMatchObject({ success: true, rows: [{ n: 1000 }] });
      // A CTE cross-joined with itself: each series is small, the planner's estimate is not (10¹² rows).
      const selfJoin = 'WITH s AS (SELECT generate_series(1, 1000) AS g) SELECT count(*) FROM s a, s b, s c, s d';
      const refused = await t.call({ action: 'sql_query', sql: selfJoin });
      expect(refused, JSON.stringify(refused)).toMatchObject({ success: false, error_type: 'recoverable', refused: 'unbounded' });
      expect(String(refused.user_message)).toContain('预估代价');
      const modest = await t.call({
        action: 'sql_query',
        sql: 'WITH s AS (SELECT generate_series(1, 300) AS g) SELECT count(*) AS n FROM s a, s b',
      });
      expect(modest).toMatchObject({ success: true, rows: [{ n: 90000 }] });
    } else {
      const env = sqlEnv(db(), 'acme');
      const r = await runSqlQuery(env, huge, { statementTimeoutMs: 200 });
      expect(r).toMatchObject({ success: false, error_type: 'recoverable', sqlstate: '57014', timeout: true });
    }
    const plan = await checkSql(recursive, { schema: 'org_data_acme' });
    expect(plan.ok && plan.unbounded !== undefined).toBe(true);
  });

  it('R-DT-05 (item 5): payload given as the JSON text of an object is accepted; other strings are refused clearly', async () => {
    const r = await t.call({
      action: 'query',
      payload: JSON.stringify({ table_name: '台账', filters: [{ field: '数量', op: 'eq', value: 2 }] }),
    });
    expect(r, JSON.stringify(r)).toMatchObject({ success: true, pageInfo: { totalRows: 1 } });
    const bad = await t.call({ action: 'query', payload: 'table_name=台账' });
    expect(bad).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'payload' });
  });

  it('R-DT-66/R-DT-68 (item 6): NUL bytes and numeric overflow are refused in the value layer, naming the field (and the row in batches)', async () => {
    const nul = await t.call({ action: 'insert', payload: { table_id: id, data: { 名称: 'a\u0000b' } } });
    expect(nul).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'data' });
    expect((nul.errors as Array<{ field: string }>)[0]!.field).toBe('名称');
    const batch = await t.call({
      action: 'insert_batch',
      payload: {
        table_id: id,
        records: [
          { 名称: 'ok' },
          { 名称: 'x\u0000' },
          { 数量: '9223372036854775808' },
          { 金额: '1' + '0'.repeat(400) },
          { 金额: '0.' + '1'.repeat(20000) },
          { 标签: ['a\u0000'] },
        ],
      },
    });
    expect(batch, JSON.stringify(batch).slice(0, 400)).toMatchObject({ success: true, inserted: 1, failed: 5 });
    const errs = batch.errors as Array<{ row: number; field?: string; sqlstate?: string }>;
    expect(errs.map((e) => [e.row, e.field])).toEqual([
      [2, '名称'],
      [3, '数量'],
      [4, '金额'],
      [5, '金额'],
      [6, '标签'],
    ]);
    expect(errs.every((e) => e.sqlstate === undefined)).toBe(true);
    const filt = await t.call({
      action: 'query',
      payload: { table_id: id, filters: [{ field: '数量', op: 'gt', value: '99999999999999999999' }] },
    });
    expect(filt).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'filters' });
    const filtNul = await t.call({
      action: 'query',
      payload: { table_id: id, filters: [{ field: '名称', op: 'contains', value: 'a\u0000' }] },
    });
    expect(filtNul).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'filters' });
  });

  it('R-DT-87/R-DT-88: a stale token on a ≤ 10-row delete_by is refused clearly without a false confirmation prompt; the call without it deletes', async () => {
    const tid = await t.table('清理', [{ title: '组', uidt: '文本' }]);
    await t.call({ action: 'insert_batch', payload: { table_id: tid, records: Array.from({ length: 12 }, () => ({ 组: 'g' })) } });
    const call = { action: 'delete_by', payload: { table_id: tid, filters: [{ field: '组', op: 'eq', value: 'g' }] } };
    const first = await t.call(call);
    expect(first).toMatchObject({ need_confirm: true });
    await t.call({ action: 'insert_batch', payload: { table_id: tid, records: Array.from({ length: 1 }, () => ({ 组: 'h' })) } });
    // expired (injectable clock) while the matching rows shrank to 3
    await db().query(
      `DELETE FROM org_data_acme."清理" WHERE id IN (SELECT id FROM org_data_acme."清理" WHERE "组" = 'g' ORDER BY id LIMIT 9)`,
    );
    t.clock.now = new Date(t.clock.now.getTime() + 6 * 60_000);
    const stale = await t.call({ ...call, payload: { ...call.payload, confirm_token: first.confirm_token } });
    expect(stale, JSON.stringify(stale)).toMatchObject({
      success: false,
      error_type: 'recoverable',
      token_refused: 'expired',
      confirmation_needed: false,
      affected: 3,
    });
    expect(stale.need_confirm).toBeUndefined();
    expect(stale.confirm_token).toBeUndefined();
    expect(String(stale.user_message)).toContain('不需要确认');
    const { rows } = await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM org_data_acme."清理"`);
    expect(rows[0]!.n).toBe('4');
    const direct = await t.call(call);
    expect(direct).toMatchObject({ success: true, deleted: 3 });
  });

  it('R-DT-98/R-DT-103 (item 12): a chunked import reports in-file duplicates (found in the application) and conflicts with existing rows (found by the database) row by row', async () => {
    const tid = await t.table('唯一导入', [
      { title: '码', uidt: '文本', unique: true },
      { title: '序', uidt: '整数' },
    ]);
    await t.call({ action: 'insert_batch', payload: { table_id: tid, records: [{ 码: 'c100' }, { 码: 'c7000' }] } });
    const recs: Array<Record<string, unknown>> = Array.from({ length: 12_000 }, (_, i) => ({ 码: `c${i}`, 序: i + 1 }));
    recs[9000] = { 码: 'c5', 序: 9001 }; // in-file duplicate of row 6
    writeFileSync(join(t.ws, 'uniq.json'), JSON.stringify(recs));
    const r = await t.call({ action: 'insert_from_file', payload: { table_id: tid, file: 'uniq.json' } });
    expect(r, JSON.stringify(r).slice(0, 400)).toMatchObject({ success: true, inserted: 11_997, failed: 3, verified_total: 11_999 });
    const errs = r.errors as Array<{ row: number; sqlstate?: string; field?: string; error: string }>;
    expect(errs.map((e) => [e.row, e.sqlstate])).toEqual([
      [101, '23505'],
      [7001, '23505'],
      [9001, '23505'],
    ]);
    expect(errs[2]).toMatchObject({ field: '码' });
    expect(errs[2]!.error).toContain('第 6 行');
    const { rows } = await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM org_data_acme."唯一导入" WHERE "序" = 9001`);
    expect(rows[0]!.n).toBe('0');
  });

  it('R-DT-13/D-01/D-04 (item 9): permission messages are single-language per lang', async () => {
    const sql = await t.call({ action: 'sql_query', sql: 'SELECT 1' }, { allow_sql: false });
    expect(sql).toMatchObject({ success: false, permission_denied: true });
    expect(zhOnly(sql.user_message)).toMatch(HAN_ONLY);
    const structural = await t.call(
      { action: 'add_field', payload: { table_id: id, field: { title: '备注', uidt: '文本' } } },
      { team_role: 'member' },
    );
    expect(zhOnly(structural.user_message)).toMatch(HAN_ONLY);
    const en = await t.call({ action: 'sql_query', sql: 'SELECT 1' }, { allow_sql: false, lang: 'en' });
    expect(String(en.user_message)).not.toMatch(/[\u4e00-\u9fa5]/);
    const { checkAction } = await import('../../src/datatable/access/permissions.ts');
    const env = checkAction({ actions: new Set(['query']), rowScope: 'all', ownerField: null }, 'delete_by', 'zh-CN', '台账')!;
    expect(String(env.user_message)).toBe('当前角色无权对表「台账」进行「按条件删除」操作，请联系管理员授权');
    expect(env.denied_action).toBe('delete_by');
    const dbErr = dbErrorEnvelope(Object.assign(new Error('permission denied for schema public'), { code: '42501' }), 'sql_query', 'zh-CN');
    expect(String(dbErr.user_message)).not.toMatch(/permission denied/);
  });

  it('R-DT-50 (item 10): like wraps a value without wildcards as %…%; % and _ typed by the user are wildcards; contains keeps them literal', async () => {
    const names = async (filters: unknown) => {
      const r = await t.call({ action: 'query', payload: { table_id: id, filters, sort: '名称', limit: 100 } });
      expect(r, JSON.stringify(r)).toMatchObject({ success: true });
      return (r.list as Array<Record<string, unknown>>)
        .map((x) => String(x.名称))
        .filter((n) => ['100%纯', '1000纯', 'AB_C'].includes(n))
        .sort();
    };
    expect(await names([{ field: '名称', op: 'like', value: '纯' }])).toEqual(['100%纯', '1000纯']);
    expect(await names([{ field: '名称', op: 'like', value: '100%纯' }])).toEqual(['100%纯', '1000纯']);
    expect(await names([{ field: '名称', op: 'contains', value: '100%' }])).toEqual(['100%纯']);
    expect(await names([{ field: '名称', op: 'like', value: 'ab_c' }])).toEqual(['AB_C']);
    expect(await names([{ field: '名称', op: 'like', value: '_b%' }])).toEqual(['AB_C']); // a pattern is anchored, as in SQL
    expect(await names([{ field: '名称', op: 'like', value: 'a_' }])).toEqual([]);
    const tags = await t.call({ action: 'query', payload: { table_id: id, filters: [{ field: '标签', op: 'like', value: 'a%' }] } });
    expect((tags.list as Array<Record<string, unknown>>).map((x) => x.名称).sort()).toEqual(['100%纯', '1000纯']);
  });
});

it('docs (item 11): the command reference lists the datatable grant/revoke/grants commands', async () => {
  const { readFileSync } = await import('node:fs');
  const cli = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  for (const cmd of ['datatable grant', 'datatable revoke', 'datatable grants']) expect(cli).toContain(cmd);
  expect(TEST_DATABASE_URL === undefined || typeof TEST_DATABASE_URL === 'string').toBe(true);
});

describeEachEngine('datatable follow-up fixes through the skill pipeline', (db) => {
  it('R-FILE-03/R-DT-35 (item 2) and R-DT-05 (item 5): flat file "imports/x.json" and nested payload.file reach the same file; a JSON-string payload passes schema.json', async () => {
    const { randomBytes } = await import('node:crypto');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { Writable } = await import('node:stream');
    const { fileURLToPath } = await import('node:url');
    const { parseConfigFile } = await import('../../src/config/file.ts');
    const { resolveWalls } = await import('../../src/config/walls.ts');
    const { runFromCli } = await import('../../src/executor/cli-run.ts');
    const { createLogger } = await import('../../src/log/logger.ts');
    const { discoverSkills } = await import('../../src/registry/discover.ts');
    const { migrate } = await import('../../src/store/migrate.ts');
    await migrate(db());
    const ws = mkdtempSync(join(tmpdir(), 'sg-dt-fu-ws-'));
    const registry = await discoverSkills([{ dir: fileURLToPath(new URL('../../skills/', import.meta.url)), source: 'builtin' }]);
    const services = {
      db: db(),
      registry,
      settings: { dataDir: mkdtempSync(join(tmpdir(), 'sg-dt-fu-')), walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log: createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }), level: 'warn' }),
    };
    const config = parseConfigFile('roles:\n  - id: default\n    org_id: pipefu\n', { orgId: 'pipefu', roleId: 'default' });
    const run = (input: Record<string, unknown>) =>
      runFromCli(withCall(services), config, 'default', {
        target: 'datatable',
        input,
        context: { team_role: 'owner', actor_emp_no: 'A0' },
        workspace: ws,
        cwd: process.cwd(),
      });
    const created = await run({
      action: 'create_table',
      payload: JSON.stringify({ table_name: '导入表', fields: [{ title: '名称', uidt: '文本' }] }),
    });
    expect(created, JSON.stringify(created)).toMatchObject({ success: true });
    mkdirSync(join(ws, 'imports'), { recursive: true });
    writeFileSync(join(ws, 'imports', 'x.json'), JSON.stringify([{ 名称: 'a' }, { 名称: 'b' }, { 名称: 'c' }]));
    const flat = await run({ action: 'insert_from_file', table_name: '导入表', file: 'imports/x.json' });
    expect(flat, JSON.stringify(flat)).toMatchObject({ success: true, inserted: 3 });
    const nested = await run({ action: 'insert_from_file', payload: { table_name: '导入表', file: 'imports/x.json' } });
    expect(nested, JSON.stringify(nested)).toMatchObject({ success: true, inserted: 3, verified_total: 6 });
    const asText = await run({ action: 'query', payload: JSON.stringify({ table_name: '导入表', limit: 1 }) });
    expect(asText, JSON.stringify(asText)).toMatchObject({ success: true, pageInfo: { totalRows: 6 } });
  });
});
