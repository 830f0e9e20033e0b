/**
 * Console section `tables` (docs/console.md "Table browser"): the data tables of an
 * organisation, their rows page by page through the datatable's `query`, cells written as the
 * datatable's display writes them (money, instants in the role's zone, long text cut), bounded
 * page size with zh-CN / English errors, and grants: an action a role lacks and row scope `own`
 * (fail closed without an employee number; an admin contact sees only its own rows).
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issueWebToken } from '../../src/web-auth/tokens.ts';
import { runGrantCommand } from '../../src/admin/grants.ts';
import { tablesSection } from '../../src/console/api/tables.ts';
import type { AdminConsoleDeps } from '../../src/console/index.ts';
import type { ConfigFile } from '../../src/config/file.ts';
import { runDatatable } from '../../src/datatable/index.ts';
import { importDirectory } from '../../src/identity/import.ts';
import type { Tx } from '../../src/store/db.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { startConsoleRig, type ConsoleRig } from './rig.ts';

const CONFIG: ConfigFile = {
  roles: [
    { id: 'default', org_id: 'demo', skills: ['*'], access: 'open', allow: [], timezone: 'Asia/Shanghai' },
    { id: 'ops', org_id: 'demo', skills: ['*'], access: 'open', allow: [], timezone: 'UTC' },
    { id: 'far', org_id: 'other', skills: ['*'], access: 'open', allow: [] },
  ],
  accounts: [],
};
const LONG = 'Quarterly maintenance of the rooftop cooling units and replacement of every worn filter before summer';

describeEachEngine('console section tables: read-only paged table browser', (db) => {
  let rig: ConsoleRig;
  let cookie = '';
  const ids: Record<string, string> = {};

  async function dt(action: string, payload: Record<string, unknown>) {
    const env = await runDatatable(
      { action, payload },
      {
        org_id: 'demo',
        role_id: 'default',
        actor_emp_no: 'E0001',
        team_role: 'owner',
        db: db(),
        db_factory: (fn: (tx: Tx) => Promise<unknown>) => db().transaction(fn),
      },
    );
    expect(env.success, JSON.stringify(env)).toBe(true);
    return env;
  }

  beforeAll(async () => {
    rig = await startConsoleRig(db(), { deps: { sections: [tablesSection], config: CONFIG } as Partial<AdminConsoleDeps> });
    const fields = [
      { title: '名称', uidt: '文本' },
      { title: '金额', uidt: '金额' },
      { title: '到期', uidt: '日期时间' },
      { title: '说明', uidt: '长文本' },
      { title: '负责人', uidt: '文本' },
    ];
    ids.small = String((await dt('create_table', { table_name: '合同', fields })).id);
    await dt('insert_batch', {
      table_id: ids.small,
      records: [
        { 名称: '甲', 金额: 1234.5, 到期: '2026-03-04T00:15:00Z', 说明: LONG, 负责人: 'E0009' },
        { 名称: '乙', 金额: 10, 负责人: 'E0001' },
        { 名称: '丙', 金额: 0.25, 负责人: 'E0009' },
      ],
    });
    ids.big = String((await dt('create_table', { table_name: '流水', fields: [{ title: '序号', uidt: '整数' }] })).id);
    await dt('insert_batch', { table_id: ids.big, records: Array.from({ length: 60 }, (_, i) => ({ 序号: i + 1 })) });
    const rep = await importDirectory(db(), {
      orgId: 'demo',
      roleId: 'default',
      data: JSON.stringify({ contacts: [{ contact_key: 'boss', name: '王总', emp_no: 'E0009', is_admin: true }] }),
      format: 'json',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    expect(rep.errors).toEqual([]);
    const token = await issueWebToken(db(), 'demo', 'boss');
    const signin = await rig.call('signin', { method: 'POST', auth: null, body: { token }, headers: { 'x-skillgate-admin': '1' } });
    expect(signin.status).toBe(200);
    cookie = (signin.headers.get('set-cookie') ?? '').split(';')[0]!;
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('refuses without a credential', async () => {
    expect((await rig.call('tables/', { auth: null })).status).toBe(401);
    expect((await rig.call(`tables/rows?table=${ids.small}`, { auth: null })).status).toBe(401);
  });

  it("lists the organisation's tables and roles; another organisation has none", async () => {
    const list = await rig.call('tables/');
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ org: 'demo', orgs: ['demo', 'other'], role: 'default', roles: ['default', 'ops'] });
    expect(list.json.tables).toEqual([
      { id: ids.small, title: '合同' },
      { id: ids.big, title: '流水' },
    ]);
    const other = await rig.call('tables/?org=other');
    expect(other.json).toMatchObject({ org: 'other', role: 'far', roles: ['far'], tables: [] });
    expect((await rig.call(`tables/rows?org=other&table=${ids.small}`)).status).toBe(404);
  });

  it('writes cells as the datatable display does: field order, money, instants in the role zone, long text cut', async () => {
    const res = await rig.call(`tables/rows?table=${ids.small}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ table: { id: ids.small, title: '合同' }, page: 0, page_size: 50, total: 3, has_more: false });
    expect(res.json.columns.slice(0, 5)).toEqual(['名称', '金额', '到期', '说明', '负责人']);
    expect(res.json.columns).toContain('id');
    expect(res.json.columns.indexOf('id')).toBeGreaterThan(4);
    const byName = (rows: { cells: { text: string; full?: string }[] }[], name: string) =>
      rows.find((r) => r.cells[0]!.text === name)!.cells;
    const a = byName(res.json.rows, '甲');
    expect(a[1]).toEqual({ text: '1,234.50' });
    expect(a[2]).toEqual({ text: '2026-03-04 08:15:00' });
    expect(a[3]!.full).toBe(LONG);
    expect(a[3]!.text.endsWith('…')).toBe(true);
    expect([...a[3]!.text].length).toBeLessThanOrEqual(40);
    expect(byName(res.json.rows, '丙')[1]).toEqual({ text: '0.25' });
    expect(byName(res.json.rows, '乙')[2]).toEqual({ text: '' });
    const ops = await rig.call(`tables/rows?table=${ids.small}&role=ops`);
    expect(byName(ops.json.rows, '甲')[2]).toEqual({ text: '2026-03-04 00:15:00' });
  });

  it('pages a 60-row table 50 at a time, bounded page size, errors in zh-CN or English', async () => {
    const p0 = await rig.call(`tables/rows?table=${ids.big}`);
    expect(p0.json).toMatchObject({ page: 0, page_size: 50, total: 60, has_more: true });
    expect(p0.json.rows).toHaveLength(50);
    const p1 = await rig.call(`tables/rows?table=${ids.big}&page=1`);
    expect(p1.json).toMatchObject({ page: 1, total: 60, has_more: false });
    expect(p1.json.rows).toHaveLength(10);
    const seq = (rows: { cells: { text: string }[] }[]) => rows.map((r) => Number(r.cells[0]!.text));
    expect([...seq(p0.json.rows), ...seq(p1.json.rows)].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const tooBig = await rig.call(`tables/rows?table=${ids.big}&page_size=101`);
    expect(tooBig.status).toBe(400);
    expect(tooBig.json).toEqual({ code: 'bad_page_size', error: 'page_size 必须是 1 到 100 的整数。' });
    const en = await rig.call(`tables/rows?table=${ids.big}&page_size=0&lang=en`);
    expect(en.json).toEqual({ code: 'bad_page_size', error: 'page_size must be an integer from 1 to 100.' });
    expect((await rig.call(`tables/rows?table=${ids.big}&page=-1`)).json.code).toBe('bad_page');
    expect((await rig.call(`tables/rows?table=${ids.big}&role=far`)).json.code).toBe('unknown_role');
    expect((await rig.call('tables/?org=nope')).json.code).toBe('unknown_org');
    const missing = await rig.call('tables/rows?table=00000000-0000-4000-8000-000000000000&lang=en');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toBe('Organisation "demo" has no such data table.');
  });

  it("respects grants: a role without query is refused; row scope own shows the admin contact's rows only", async () => {
    const noQuery = await runGrantCommand(db(), { op: 'grant', orgId: 'demo', table: '流水', roleId: 'ops', actions: ['insert'] });
    expect(noQuery.ok).toBe(true);
    const refused = await rig.call(`tables/rows?table=${ids.big}&role=ops`);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('denied');
    expect(refused.json.error).toContain('无权');
    expect((await rig.call(`tables/rows?table=${ids.big}`)).json.total).toBe(60);

    const own = await runGrantCommand(db(), {
      op: 'grant',
      orgId: 'demo',
      table: '合同',
      roleId: 'ops',
      actions: ['query'],
      rowScope: 'own',
      ownerField: '负责人',
    });
    expect(own.ok).toBe(true);
    const token = await rig.call(`tables/rows?table=${ids.small}&role=ops`);
    expect(token.status).toBe(403);
    expect(token.json.code).toBe('denied');
    const mine = await rig.call(`tables/rows?table=${ids.small}&role=ops`, { auth: { cookie } });
    expect(mine.status).toBe(200);
    expect(mine.json.total).toBe(2);
    expect(mine.json.rows.map((r: { cells: { text: string }[] }) => r.cells[0]!.text).sort()).toEqual(['丙', '甲']);
    expect((await rig.call(`tables/rows?table=${ids.small}`, { auth: { cookie } })).json.total).toBe(3);
  });
});
