/**
 * The console's management sections over HTTP (docs/configuration.md; docs/console.md):
 * directory import and view, table grants, notify targets (masked), schedules, and the admin
 * proxy fill through the chat pipeline (R-ADM-01..03). One console per engine, mounted behind the
 * console's own sign-in.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueWebToken } from '../../src/web-auth/tokens.ts';
import { directorySection } from '../../src/console/api/directory.ts';
import { grantsSection } from '../../src/console/api/grants.ts';
import { notifySection } from '../../src/console/api/notify.ts';
import { proxySection } from '../../src/console/api/proxy.ts';
import { schedulesSection } from '../../src/console/api/schedules.ts';
import type { AdminConsoleDeps } from '../../src/console/index.ts';
import { resolveWalls } from '../../src/config/walls.ts';
import { createTableAction } from '../../src/datatable/structure/table-actions.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { withCall } from '../../src/wiring/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { Scheduler } from '../../src/schedule/scheduler.ts';
import { migrate } from '../../src/store/migrate.ts';
import { makeEnv } from '../datatable/structure-helpers.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { startConsoleRig, type ConsoleRig } from './rig.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/console/', import.meta.url));
const CLEARED = [
  'actor_title',
  'actor_department',
  'actor_department_path',
  'actor_position',
  'actor_key',
  'actor_id',
  'actor_emp_no',
] as const;

const DIRECTORY = {
  departments: [{ path: '/总部/销售中心/销售一部/' }],
  contacts: [
    {
      contact_key: 'boss',
      name: '王总',
      emp_no: 'E0009',
      department: '/总部/销售中心/',
      position: '总监',
      title: 'M9',
      phone: '13800000009',
      email: 'boss@example.com',
      tags: ['管理'],
      is_admin: true,
    },
    {
      contact_key: 'alice',
      name: '李雷',
      emp_no: 'E0001',
      department: '销售一部',
      title: 'P5',
      phone: '13800000001',
      email: 'alice@example.com',
      team: 'sales',
      team_role: 'owner',
    },
    { contact_key: 'bob', name: 'Bob', emp_no: 'E0002', email: 'not-an-email' },
  ],
};

describeEachEngine('console sections: directory, grants, notify, schedules, proxy', (db) => {
  let rig: ConsoleRig;
  let scheduler: Scheduler;
  let cookie = '';
  const log = createLogger({ level: 'silent' });
  const write = { 'x-skillgate-admin': '1' };

  beforeAll(async () => {
    await migrate(db());
    const services = {
      db: db(),
      registry: await discoverSkills([{ dir: FIXTURES, source: 'shared' }]),
      settings: { dataDir: mkdtempSync(join(tmpdir(), 'sg-hc2-')), walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log,
    } as SkillServices;
    scheduler = new Scheduler({ db: db(), log, mode: 'writer' });
    await scheduler.start();
    const deps = {
      services: withCall(services),
      sections: [directorySection, grantsSection, notifySection, schedulesSection, proxySection],
      scheduler,
    } as Partial<AdminConsoleDeps>;
    rig = await startConsoleRig(db(), { deps });
  });
  afterAll(async () => {
    await rig?.close();
    await scheduler?.stop();
  });

  it('every section refuses a request without a credential (401 from the console mount)', async () => {
    for (const path of ['directory/contacts', 'directory/departments', 'grants/tables', 'notify/targets', 'schedules/', 'proxy/skills']) {
      const res = await rig.call(path, { auth: null });
      expect(res.status, path).toBe(401);
    }
    const post = await rig.call('proxy/run', { method: 'POST', auth: null, body: { skill: 'whoami', for: 'alice', input: { note: 'x' } } });
    expect(post.status).toBe(401);
  });

  it('directory: a JSON import reports the refused row; contacts are searched and paged with phone and email; the department tree', async () => {
    const imported = await rig.call('directory/import', { method: 'POST', body: { format: 'json', data: JSON.stringify(DIRECTORY) } });
    expect(imported.status).toBe(200);
    const report = imported.json.report;
    expect(report.contacts.inserted).toBe(2);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ column: 'email' });
    expect(report.errors[0].message).toEqual(expect.any(String));

    const bad = await rig.call('directory/import', { method: 'POST', body: { format: 'json', data: '{not json' } });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('bad_file');

    const found = await rig.call('directory/contacts?q=LI');
    expect(found.json.total).toBe(1);
    expect(found.json.contacts[0]).toMatchObject({
      contact_key: 'alice',
      name: '李雷',
      phone: '13800000001',
      email: 'alice@example.com',
      team: 'sales',
      team_role: 'owner',
    });
    const page2 = await rig.call('directory/contacts?limit=1&offset=1');
    expect(page2.json).toMatchObject({ total: 2, offset: 1, limit: 1 });
    expect(page2.json.contacts.map((c: { contact_key: string }) => c.contact_key)).toEqual(['boss']);
    expect((await rig.call('directory/contacts?role=nope')).status).toBe(400);

    const tree = await rig.call('directory/departments');
    const paths = tree.json.departments.map((d: { path: string }) => d.path);
    expect(paths).toEqual(['/总部/', '/总部/销售中心/', '/总部/销售中心/销售一部/']);
    expect(tree.json.departments.find((d: { path: string }) => d.path === '/总部/销售中心/销售一部/').contacts).toBe(1);
  });

  it('grants: grant with actions and row scope own, refused without an existing owner field, listed, revoked', async () => {
    const created = await createTableAction(makeEnv(db(), { orgId: 'demo' }), {
      table_name: '工单',
      fields: [
        { title: '负责人工号', uidt: '文本' },
        { title: '描述', uidt: '长文本' },
      ],
    });
    expect(created.success).toBe(true);
    const refused = await rig.call('grants/grant', {
      method: 'POST',
      body: { table: '工单', role: 'ops', row_scope: 'own', owner_field: '不存在' },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toContain('不存在');
    const ok = await rig.call('grants/grant', {
      method: 'POST',
      body: { table: '工单', role: 'ops', actions: ['query', 'insert'], row_scope: 'own', owner_field: '负责人工号' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.grant).toMatchObject({ roleId: 'ops', actions: ['query', 'insert'], rowScope: 'own', ownerField: '负责人工号' });
    const listed = await rig.call('grants/tables');
    expect(listed.json.org).toBe('demo');
    const t = listed.json.tables.find((x: { title: string }) => x.title === '工单');
    expect(t.fields).toEqual(['负责人工号', '描述']);
    expect(t.grants).toEqual([expect.objectContaining({ roleId: 'ops', rowScope: 'own' })]);
    expect((await rig.call('grants/revoke', { method: 'POST', body: { table: '工单', role: 'ops' } })).status).toBe(200);
    expect((await rig.call('grants/tables')).json.tables.find((x: { title: string }) => x.title === '工单').grants).toEqual([]);
    expect((await rig.call('grants/revoke', { method: 'POST', body: { table: '工单', role: 'ops' } })).status).toBe(404);
  });

  it('notify targets: Apprise URLs are shown masked after saving, never in full; remove', async () => {
    const secretSpec = 'tgram://123456:SECRETBOTTOKEN/987 mailto://bot:hunter2pw@mail.example';
    const saved = await rig.call('notify/targets', { method: 'POST', body: { name: 'ops', spec: secretSpec } });
    expect(saved.status).toBe(200);
    expect(saved.json).toEqual({ name: 'ops', target: 'tgram://*** mailto://***' });
    await rig.call('notify/targets', { method: 'POST', body: { name: 'team', spec: 'team_cfg:devops' } });
    const list = await rig.call('notify/targets');
    expect(list.json.targets).toEqual([
      { name: 'ops', target: 'tgram://*** mailto://***' },
      { name: 'team', target: 'config key team_cfg tag devops' },
    ]);
    expect(JSON.stringify(list.json)).not.toMatch(/SECRETBOTTOKEN|hunter2pw/);
    expect((await rig.call('notify/targets', { method: 'POST', body: { name: 'x y', spec: 'json://a' } })).status).toBe(400);
    expect((await rig.call('notify/targets/ops', { method: 'DELETE' })).status).toBe(200);
    expect((await rig.call('notify/targets/ops', { method: 'DELETE' })).status).toBe(404);
  });

  it('schedules: add (a notify URL destination shown masked), refuse a bad cron and an unknown skill, list, remove', async () => {
    const added = await rig.call('schedules/', {
      method: 'POST',
      body: {
        name: 'daily-whoami',
        cron: '0 9 * * *',
        timezone: 'Asia/Shanghai',
        kind: 'skill',
        target: 'whoami',
        input: { note: 'n', api_token: 'tok' },
        deliver_to: 'notify:tgram://SECRETBOTTOKEN/1',
      },
    });
    expect(added.status).toBe(200);
    expect(added.json.schedule).toMatchObject({
      name: 'daily-whoami',
      cron: '0 9 * * *',
      timezone: 'Asia/Shanghai',
      kind: 'skill',
      target: 'whoami',
      deliver_to: 'notify:tgram://***',
      role_id: 'default',
      last_run_at: null,
    });
    expect(added.json.schedule.input).toEqual({ note: 'n', api_token: '***' });
    expect(added.json.schedule).toMatchObject({ missed: 'once', occurrences: [] });
    expect((await scheduler.list()).map((s) => s.name)).toContain('daily-whoami');
    const badMissed = await rig.call('schedules/', {
      method: 'POST',
      body: { name: 'bad', cron: '0 9 * * *', kind: 'skill', target: 'whoami', missed: 'twice' },
    });
    expect(badMissed.status).toBe(400);
    const badCron = await rig.call('schedules/', {
      method: 'POST',
      body: { name: 'bad', cron: 'every day', kind: 'skill', target: 'whoami' },
    });
    expect(badCron.status).toBe(400);
    const unknown = await rig.call('schedules/', {
      method: 'POST',
      body: { name: 'bad', cron: '0 9 * * *', kind: 'skill', target: 'nope' },
    });
    expect(unknown.status).toBe(400);
    await db().query(
      `INSERT INTO skillgate.schedule_occurrences (schedule, planned_at, status, catch_up, finished_at) VALUES
        ('daily-whoami', '2026-05-01T01:00:00Z', 'missed', false, now()), ('daily-whoami', '2026-05-02T01:00:00Z', 'done', true, now())`,
    );
    const list = await rig.call('schedules/');
    expect(list.json.schedules.map((s: { name: string }) => s.name)).toEqual(['daily-whoami']);
    expect(
      list.json.schedules[0].occurrences.map((o: { planned_at: string; status: string; catch_up: boolean }) => [
        o.planned_at,
        o.status,
        o.catch_up,
      ]),
    ).toEqual([
      ['2026-05-02T01:00:00.000Z', 'done', true],
      ['2026-05-01T01:00:00.000Z', 'missed', false],
    ]);
    expect(JSON.stringify(list.json)).not.toContain('SECRETBOTTOKEN');
    expect((await rig.call('schedules/daily-whoami', { method: 'DELETE' })).status).toBe(200);
    expect((await rig.call('schedules/')).json.schedules).toEqual([]);
    expect((await rig.call('schedules/daily-whoami', { method: 'DELETE' })).status).toBe(404);
  });

  describe('proxy fill', () => {
    beforeAll(async () => {
      const token = await issueWebToken(db(), 'demo', 'boss');
      const signin = await rig.call('signin', { method: 'POST', auth: null, body: { token }, headers: write });
      expect(signin.status).toBe(200);
      cookie = (signin.headers.get('set-cookie') ?? '').split(';')[0]!;
    });

    it('lists the role tools (secret parameters removed) and the contacts to run for', async () => {
      const skills = await rig.call('proxy/skills?role=ops', { auth: { cookie } });
      expect(skills.json.tools.map((t: { name: string }) => t.name).sort()).toEqual(['whoami', 'whoami_sub']);
      const contacts = await rig.call('proxy/contacts?q=alice', { auth: { cookie } });
      expect(contacts.json.contacts).toEqual([{ contact_key: 'alice', name: '李雷', emp_no: 'E0001', department: '销售一部' }]);
    });

    it('R-ADM-01/02/03: an admin contact fills in for alice — actor_is_admin true, the 8 identity keys cleared in process and in a subprocess, name/phone/email kept; display_md sanitized; audited', async () => {
      const run = await rig.call('proxy/run', {
        method: 'POST',
        auth: { cookie },
        headers: write,
        body: { role: 'default', skill: 'whoami', for: 'alice', input: { note: 'hi' } },
      });
      expect(run.status).toBe(200);
      const seen = run.json.envelope.seen;
      for (const k of CLEARED) expect(seen[k], k).toBe('');
      expect(seen.actor_tags).toEqual([]);
      expect(seen).toMatchObject({ actor_is_admin: true, actor_name: '王总', actor_phone: '13800000009', actor_email: 'boss@example.com' });
      expect(seen).toMatchObject({
        user_id: 'alice',
        team_id: 'sales',
        team_role: 'owner',
        is_admin: true,
        channel: 'web_admin',
        chat_mode: true,
      });
      expect(run.json.filled_by).toEqual({ kind: 'contact', name: '王总' });
      expect(run.json.display_html).toContain('<strong>hi</strong>');
      expect(run.json.display_html).not.toMatch(/<script|<img/);
      expect(run.json.display_html).toContain('&lt;script&gt;');

      const sub = await rig.call('proxy/run', {
        method: 'POST',
        auth: { cookie },
        headers: write,
        body: { skill: 'whoami_sub', for: 'alice', input: {} },
      });
      expect(sub.status).toBe(200);
      for (const k of CLEARED) expect(sub.json.envelope.seen[k], k).toBe('');
      expect(sub.json.envelope.seen).toMatchObject({ actor_is_admin: true, actor_name: '王总', actor_tags: [] });

      const { rows } = await db().query<{ skill: string; actor_emp_no: string; actor_name: string; line: string }>(
        `SELECT skill, actor_emp_no, actor_name, line FROM skillgate.audit_log WHERE channel = 'web_admin' ORDER BY skill`,
      );
      expect(rows).toEqual([
        { skill: 'whoami', actor_emp_no: '', actor_name: '王总', line: 'chat' },
        { skill: 'whoami_sub', actor_emp_no: '', actor_name: '王总', line: 'chat' },
      ]);
    });

    it('R-ADM-01: signed in with the admin token the filler is the built-in operator; unknown contact and a skill outside the role are refused', async () => {
      const run = await rig.call('proxy/run', { method: 'POST', body: { skill: 'whoami', for: 'boss', input: { note: 'x' } } });
      expect(run.status).toBe(200);
      expect(run.json.filled_by).toEqual({ kind: 'token', name: 'operator' });
      expect(run.json.envelope.seen).toMatchObject({
        actor_is_admin: true,
        actor_name: 'operator',
        actor_emp_no: '',
        actor_title: '',
        actor_key: '',
        user_id: 'boss',
      });
      const nobody = await rig.call('proxy/run', { method: 'POST', body: { skill: 'whoami', for: 'nobody', input: { note: 'x' } } });
      expect(nobody.status).toBe(404);
      const noSkill = await rig.call('proxy/run', { method: 'POST', body: { skill: 'help', for: 'alice', input: {} } });
      expect(noSkill.status).toBe(400);
      expect(noSkill.json.code).toBe('unknown_skill');
    });
  });
});
