/**
 * The datatable as a skill (R-DT-02, R-DT-24, D-18): the repo's skills/ folder in
 * the registry, calls through the `skill run` code path (runFromCli with --context) and
 * through call_skill, on PGlite and the real server.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/file.ts';
import { resolveWalls } from '../../src/config/walls.ts';
import { grant } from '../../src/datatable/access/grants.ts';
import { getTable } from '../../src/datatable/catalog/metadata.ts';
import type { Envelope } from '../../src/envelope/types.ts';
import { runFromCli } from '../../src/executor/cli-run.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { withCall } from '../../src/wiring/skill-call.ts';

const SKILLS = fileURLToPath(new URL('../../skills/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/pipeline/', import.meta.url));

describeEachEngine('datatable through the skill pipeline and call_skill', (db) => {
  let services: SkillServices;
  let run: (target: string, input: Record<string, unknown>, context: Record<string, unknown>) => Promise<Envelope>;
  let ws: string;
  let tableId: string;
  const admin = { role_id: 'default', team_role: 'owner', actor_emp_no: 'A0' };
  const e1 = { role_id: 'sales', team_role: 'member', actor_emp_no: 'E1' };
  const e2 = { role_id: 'sales', team_role: 'member', actor_emp_no: 'E2' };

  beforeAll(async () => {
    await migrate(db());
    const dataDir = mkdtempSync(join(tmpdir(), 'sg-dt-pipe-'));
    ws = mkdtempSync(join(tmpdir(), 'sg-dt-pipe-ws-'));
    const registry = await discoverSkills([
      { dir: SKILLS, source: 'builtin' },
      { dir: FIXTURES, source: 'shared' },
    ]);
    services = {
      db: db(),
      registry,
      settings: { dataDir, walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log: createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }), level: 'warn' }),
    };
    const config = parseConfigFile('roles:\n  - id: default\n    org_id: acme\n  - id: sales\n    org_id: acme\n', {
      orgId: 'acme',
      roleId: 'default',
    });
    run = (target, input, context) =>
      runFromCli(withCall(services), config, 'default', { target, input, context, workspace: ws, cwd: process.cwd() });

    const created = await run(
      'datatable',
      {
        action: 'create_table',
        payload: {
          table_name: '商机',
          fields: [
            { title: '名称', uidt: '文本' },
            { title: '负责人', uidt: '文本' },
          ],
        },
      },
      admin,
    );
    expect(created, JSON.stringify(created)).toMatchObject({ success: true });
    tableId = created.id as string;
    const table = (await getTable(db(), 'acme', tableId))!;
    expect((await grant(db(), table, { tableId, roleId: 'sales', rowScope: 'own', ownerField: '负责人' })).ok).toBe(true);
    for (const [who, n] of [
      [e1, 2],
      [e2, 11],
    ] as const) {
      const records = Array.from({ length: n }, (_, i) => ({ 名称: `${who.actor_emp_no}-${i}` }));
      const r = await run('datatable', { action: 'insert_batch', table_name: '商机', records }, who);
      expect(r, JSON.stringify(r)).toMatchObject({ success: true, inserted: n });
    }
  });

  it('R-DT-02/D-18: datatable and its alias nocodb both resolve; only datatable is in the tool list', async () => {
    const names = services.registry.tools().map((t) => t.function.name);
    expect(names).toContain('datatable');
    expect(names).not.toContain('nocodb');
    const viaAlias = await run('nocodb', { action: 'list_tables' }, admin);
    expect(viaAlias.success).toBe(true);
    expect(JSON.stringify(viaAlias)).toContain('商机');
  });

  it('R-DT-16/R-DT-22/R-DT-106 (acceptance): through skill run, a non-admin sees only their rows (query and count)', async () => {
    const q = await run('datatable', { action: 'query', payload: { table_name: '商机' } }, e1);
    expect((q.list as Array<Record<string, unknown>>).map((r) => r.负责人)).toEqual(['E1', 'E1']);
    expect(q.pageInfo).toMatchObject({ totalRows: 2 });
    const c = await run('datatable', { action: 'aggregate', payload: { table_name: '商机', metrics: [{ op: 'count', alias: 'n' }] } }, e2);
    expect(c.rows).toEqual([{ n: 11 }]);
    const all = await run('datatable', { action: 'query', payload: { table_name: '商机' } }, admin);
    expect(all.pageInfo).toMatchObject({ totalRows: 13 });
  });

  it('R-DT-24/R-DT-106 (acceptance): via call_skill the callee sees actor_emp_no, so own rows are visible', async () => {
    const r = await run('caller', { target: 'datatable', input: { action: 'query', payload: { table_name: '商机' } } }, e1);
    expect(r.success).toBe(true);
    const inner = r.result as Envelope;
    expect(inner.pageInfo, JSON.stringify(inner)).toMatchObject({ totalRows: 2 });
    expect((inner.list as Array<Record<string, unknown>>).every((x) => x.负责人 === 'E1')).toBe(true);
    const viaAlias = await run(
      'caller',
      { target: 'nocodb', input: { action: 'aggregate', table_name: '商机', metrics: [{ op: 'count' }] } },
      e2,
    );
    expect((viaAlias.result as Envelope).rows).toEqual([{ count: 11 }]);
  });

  it('R-DT-20 (acceptance): own scope fails closed without actor_emp_no, also through call_skill', async () => {
    const direct = await run('datatable', { action: 'query', payload: { table_name: '商机' } }, { ...e1, actor_emp_no: '' });
    expect(direct).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
    const nested = await run(
      'caller',
      { target: 'datatable', input: { action: 'query', table_name: '商机', actor_emp_no: 'E1' } },
      { ...e1, actor_emp_no: '' },
    );
    expect(nested.result).toMatchObject({ success: false, error_type: 'config' });
  });

  it('R-DT-16/R-DT-87/R-DT-94 (acceptance): update_by and delete_by stay in the own rows; 11 rows ⇒ token, then deleted with a backup artifact', async () => {
    const u = await run(
      'datatable',
      {
        action: 'update_by',
        payload: { table_name: '商机', filters: [{ field: '名称', op: 'contains', value: '-' }], data: { 名称: '已跟进' } },
      },
      e1,
    );
    expect(u).toMatchObject({ success: true, updated: 2 });
    const call = { action: 'delete_by', payload: { table_name: '商机', filters: [{ field: '名称', op: 'contains', value: '-' }] } };
    const first = await run('datatable', call, e2);
    expect(first).toMatchObject({ need_confirm: true, affected: 11 });
    const done = await run('datatable', { ...call, payload: { ...call.payload, confirm_token: first.confirm_token } }, e2);
    expect(done).toMatchObject({ success: true, deleted: 11 });
    expect(existsSync(join(ws, String(done.backup_file)))).toBe(true);
    expect((done.artifacts as Array<{ filename: string }>).map((a) => a.filename)).toContain(done.backup_file);
    const left = await run('datatable', { action: 'query', payload: { table_name: '商机' } }, admin);
    expect((left.list as Array<Record<string, unknown>>).map((r) => r.名称).sort()).toEqual(['已跟进', '已跟进']);
  });

  it('R-DT-12: an empty org_id is a config error, non_retriable, and no schema is created', async () => {
    const r = await run('datatable', { action: 'list_tables' }, { ...admin, org_id: '' });
    expect(r).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
    const { rows } = await db().query(`SELECT nspname FROM pg_namespace WHERE nspname = 'org_data_'`);
    expect(rows).toEqual([]);
  });

  it('R-DT-05/R-ACT-05: aliases are echoed through the pipeline; no action ⇒ need_param action', async () => {
    const r = await run('datatable', { action: '查询', table: '商机', limit: 1 }, admin);
    expect(r.success).toBe(true);
    expect(r.action_note).toMatch(/查询 → query/);
    expect(await run('datatable', { payload: { table_name: '商机' } }, admin)).toMatchObject({ success: false, need_param: 'action' });
  });
});
