import { beforeAll, expect, it } from 'vitest';
import { callerFromContext, dispatchedActions, runDatatable } from '../../src/datatable/index.ts';
import { DATATABLE_ACTIONS } from '../../src/datatable/model/types.ts';
import type { Tx } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { orgTimeZone } from '../../src/present/clock.ts';
import { describeEachEngine } from '../helpers/db.ts';

it('R-DT-28: the dispatch table is exactly the 20 actions', () => {
  expect(dispatchedActions().sort()).toEqual([...DATATABLE_ACTIONS].sort());
  expect(DATATABLE_ACTIONS).toHaveLength(20);
});

it('R-DT-24/D-09: the caller comes from the context only; emp_no is a legacy fallback', () => {
  const c = callerFromContext({
    org_id: 'acme',
    role_id: 'r',
    actor_emp_no: 'E1',
    emp_no: 'OLD',
    team_role: 'admin',
    allow_sql: false,
    chat_mode: false,
    session_id: 's',
    actor_key: 'k',
    workspace_dir: '/w',
    channel: 'web',
    is_admin: true,
  });
  expect(c).toEqual({
    orgId: 'acme',
    roleIds: ['r'],
    empNo: 'E1',
    teamRole: 'admin',
    allowSql: false,
    chatMode: false,
    sessionId: 's',
    actorKey: 'k',
    workspaceDir: '/w',
    channel: 'web',
    isAdmin: true,
    lang: 'zh-CN',
    timeZone: orgTimeZone(),
  });
  expect(callerFromContext({ _time_zone: 'Europe/London' }).timeZone).toBe('Europe/London');
  expect(callerFromContext({ emp_no: 'OLD' }).empNo).toBe('OLD');
  expect(callerFromContext({ team_role: 'boss' })).toMatchObject({ teamRole: 'member', allowSql: true, chatMode: true });
});

describeEachEngine('datatable dispatcher', (db) => {
  let opened = 0;
  const ctx = (over: Record<string, unknown> = {}) => ({
    org_id: 'disp',
    role_id: 'default',
    team_role: 'owner',
    session_id: 's',
    workspace_dir: '/tmp',
    db_factory: <T>(fn: (tx: Tx) => Promise<T>) => {
      opened++;
      return db().transaction(fn);
    },
    // a legacy session that must never be used (R-DT-96): every call throws
    db: { query: () => Promise.reject(new Error('runtime_context.db must not be used')) },
    ...over,
  });
  beforeAll(async () => {
    await migrate(db());
  });

  it("A-31, R-DT-06: an org whose id normalises to another org's schema is refused for every action, the SQL channel too", async () => {
    const made = await runDatatable(
      { action: 'create_table', table_name: '机密', fields: [{ title: 'v', uidt: '文本' }] },
      ctx({ org_id: 'x_y' }),
    );
    expect(made.success).toBe(true);
    await runDatatable({ action: 'insert', table_name: '机密', data: { v: 'secret of x_y' } }, ctx({ org_id: 'x_y' }));
    for (const input of [
      { action: 'sql_query', sql: 'select * from "机密"' },
      { action: 'sql_execute', sql: 'delete from "机密" where id = 1' },
      { action: 'list_tables' },
      { action: 'query', table_name: '机密' },
    ]) {
      const r = await runDatatable(input, ctx({ org_id: 'xy' }));
      expect(r, JSON.stringify(input)).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
      expect(JSON.stringify(r)).not.toContain('secret of x_y');
    }
    const own = await runDatatable({ action: 'query', table_name: '机密' }, ctx({ org_id: 'x_y' }));
    expect(JSON.stringify(own)).toContain('secret of x_y');
  });

  it('R-DT-96: sessions are opened only through db_factory', async () => {
    opened = 0;
    const r = await runDatatable(
      { action: 'create_table', payload: { table_name: '记录', fields: [{ title: '内容', uidt: '文本' }] } },
      ctx(),
    );
    expect(r.success, JSON.stringify(r)).toBe(true);
    const q = await runDatatable({ action: 'insert', table_id: r.id, data: { 内容: 'x' } }, ctx());
    expect(q.success).toBe(true);
    expect(opened).toBeGreaterThan(0);
  });

  it('no db_factory ⇒ config, non_retriable; nothing thrown', async () => {
    const r = await runDatatable({ action: 'list_tables' }, { org_id: 'disp' });
    expect(r).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
  });

  it('R-DT-03/R-DT-04: a missing table id ⇒ the table list; a title resolves in the same call', async () => {
    const miss = await runDatatable({ action: 'query' }, ctx());
    expect(miss).toMatchObject({ success: false, need_param: 'table_id' });
    expect((miss.tables as Array<{ title: string }>).map((t) => t.title)).toContain('记录');
    const byTitle = await runDatatable({ action: 'query', payload: { table_name: '记录' } }, ctx());
    expect(byTitle.pageInfo).toMatchObject({ totalRows: 1 });
    const unknown = await runDatatable({ action: 'query', payload: { table_name: '没有这张表' } }, ctx());
    expect(unknown).toMatchObject({ success: false, need_param: 'table_id' });
  });

  it('R-ACT-03: every envelope of a normalised call carries action_note (success and failure)', async () => {
    const ok = await runDatatable({ action: 'Query', table: '记录' }, ctx());
    expect(ok.action_note).toMatch(/^Query → query; table → table_name/);
    const fail = await runDatatable({ action: 'Query', table: '记录', filters: [''] }, ctx());
    expect(fail.success).toBe(false);
    expect(fail.action_note).toMatch(/Query → query/);
    const noTable = await runDatatable({ action: '查询' }, ctx());
    expect(noTable.action_note).toBe('查询 → query');
  });

  it('R-DT-13/permissions: an action outside the grant is refused (config, non_retriable)', async () => {
    const t = await runDatatable({ action: 'list_tables' }, ctx());
    const id = (t.result as Array<{ id: string; title: string }>).find((x) => x.title === '记录')!.id;
    await db().query(`INSERT INTO skillgate.dt_grants (table_id, role_id, actions) VALUES ($1::uuid, 'reader', ARRAY['query'])`, [id]);
    expect((await runDatatable({ action: 'query', table_id: id }, ctx({ role_id: 'reader' }))).success).toBe(true);
    const w = await runDatatable({ action: 'insert', table_id: id, data: { 内容: 'y' } }, ctx({ role_id: 'reader' }));
    expect(w).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
  });
});

describeEachEngine('datatable: field names never steer the result', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('R-DT-33, R-DT-37: a written record named like result keys is kept under `record` only', async () => {
    const ctx = {
      org_id: 'steer',
      role_id: 'default',
      team_role: 'owner',
      session_id: 's',
      workspace_dir: '/tmp',
      db_factory: <T>(fn: (tx: Tx) => Promise<T>) => db().transaction(fn),
    };
    const made = await runDatatable(
      {
        action: 'create_table',
        table_name: '怪字段',
        fields: [
          { title: 'display_md', uidt: '文本' },
          { title: 'error_type', uidt: '文本' },
          { title: 'files', uidt: 'JSON' },
          { title: '名称', uidt: '文本' },
        ],
      },
      ctx,
    );
    expect(made.success).toBe(true);
    const r = await runDatatable(
      { action: 'insert', table_name: '怪字段', data: { display_md: 'see attached', error_type: 'config', files: ['x.txt'], 名称: 'a' } },
      ctx,
    );
    expect(r.success).toBe(true);
    expect(r.display_md).not.toBe('see attached'); // the call's own display, not the record's field
    expect(r.display_md).toMatch(/^已在 \*\*怪字段\*\* 新增 1 条记录/);
    expect(r.error_type).toBeUndefined();
    expect(r.files).toBeUndefined();
    expect(r.名称).toBe('a');
    expect(r.record).toMatchObject({ display_md: 'see attached', error_type: 'config', 名称: 'a' });
  });
});
