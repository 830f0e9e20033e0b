/**
 * `importDirectory` (docs/configuration.md): CSV and JSON, Chinese text, department chains,
 * re-import updates, refused rows named by row and column while the others are imported.
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { beforeAll, expect, it } from 'vitest';
import {
  DirectoryFormatError,
  findContact,
  importDirectory,
  listContacts,
  resolveActor,
  seedDemoDirectory,
} from '../../src/identity/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { fixture, importJson } from './helpers.ts';

describeEachEngine('identity: directory import', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('CSV: Chinese names, department paths created, tags split on 、 and ;, several ids per cell; a bad email is refused by row and column', async () => {
    const r = await importDirectory(db(), {
      orgId: 'csvorg',
      roleId: 'default',
      data: fixture('contacts.csv'),
      format: 'csv',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    expect(r.orgId).toBe('csvorg');
    expect(r.contacts).toEqual({ inserted: 3, updated: 0 });
    // /总部/, /总部/销售中心/, /总部/销售中心/销售一部/
    expect(r.departments).toEqual({ inserted: 3 });
    expect(r.errors).toEqual([{ row: 4, column: 'email', message: '第 4 行 email 无效：carol@example', section: 'contacts' }]);

    const alice = await findContact(db(), 'csvorg', 'alice');
    expect(alice).toMatchObject({
      name: '王小明',
      empNo: 'E0001',
      department: '销售一部',
      position: '销售代表',
      title: 'P5',
      phone: '138-0000-0001',
      tags: ['新人', '华东', '重点'],
      team: 'sales',
      teamRole: 'owner',
      isAdmin: false,
      channelIds: { telegram: ['1001'], feishu: ['on_alice', 'ou_alice'] },
    });
    expect(await findContact(db(), 'csvorg', 'carol')).toBeNull();
    expect((await findContact(db(), 'csvorg', 'dave'))?.teamRole).toBe('member');
    const bob = await resolveActor(db(), { orgId: 'csvorg', roleId: 'default', channel: 'telegram', platformId: '1002', nickname: '' });
    expect(bob.fields.actor_department_path).toBe('/总部/销售中心/');
    expect(bob.teamRole).toBe('admin');
    const { rows } = await db().query<{ id: string }>(`SELECT id FROM skillgate.teams WHERE org_id = 'csvorg'`);
    expect(rows.map((x) => x.id)).toEqual(['sales']);
  });

  it('CSV re-import updates by contact_key: changed fields written, absent columns kept, ids replaced per channel', async () => {
    const csv = ['contact_key,name,department,telegram', 'alice,王小明（新）,/总部/销售中心/销售二部/,2001', 'zoe,佐伊,,'].join('\n');
    const r = await importDirectory(db(), {
      orgId: 'csvorg',
      roleId: 'default',
      data: csv,
      format: 'csv',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    expect(r).toMatchObject({ contacts: { inserted: 1, updated: 1 }, departments: { inserted: 1 }, errors: [] });
    const alice = await findContact(db(), 'csvorg', 'alice');
    expect(alice).toMatchObject({ name: '王小明（新）', department: '销售二部', empNo: 'E0001', email: 'alice@example.com' });
    expect(alice!.channelIds).toEqual({ telegram: ['2001'], feishu: ['on_alice', 'ou_alice'] });
    const byOld = await resolveActor(db(), { orgId: 'csvorg', roleId: 'default', channel: 'telegram', platformId: '1001', nickname: 'x' });
    expect(byOld.known).toBe(false);
    const byNew = await resolveActor(db(), { orgId: 'csvorg', roleId: 'default', channel: 'telegram', platformId: '2001', nickname: 'x' });
    expect(byNew.fields.actor_department_path).toBe('/总部/销售中心/销售二部/');
    expect((await listContacts(db(), 'csvorg')).map((c) => c.contactKey)).toEqual(['alice', 'bob', 'dave', 'zoe']);
  });

  it('an id held by another contact, a repeated key and a bad team_role are refused with row and column; the other rows are imported', async () => {
    const csv = [
      'contact_key,name,telegram,team_role',
      'mallory,M,1002,',
      'nina,N,3001,',
      'nina,N2,3002,',
      'oscar,O,,boss',
      'paul,P,3003,',
    ].join('\n');
    const r = await importDirectory(db(), {
      orgId: 'csvorg',
      roleId: 'default',
      data: csv,
      format: 'csv',
      channels: BUILD_DIRECTORY_CHANNELS,
      lang: 'en',
    });
    expect(r.contacts).toEqual({ inserted: 2, updated: 0 });
    expect(r.errors.map((e) => [e.row, e.column])).toEqual([
      [2, 'telegram'],
      [4, 'contact_key'],
      [5, 'team_role'],
    ]);
    expect(r.errors[0]!.message).toBe('Row 2: telegram id 1002 already belongs to contact bob');
    expect(r.errors[1]!.message).toBe('Row 4: contact_key repeats nina (already in row 3)');
    expect(r.errors[2]!.message).toBe('Row 5: team_role is invalid: boss');
    expect(await findContact(db(), 'csvorg', 'mallory')).toBeNull();
    expect((await findContact(db(), 'csvorg', 'nina'))?.name).toBe('N');
    expect(await findContact(db(), 'csvorg', 'paul')).not.toBeNull();
  });

  it('JSON: departments with disabled, bare department name resolved, several Feishu ids, nested channels, is_admin; bad item refused', async () => {
    const r = await importDirectory(db(), {
      orgId: 'jsonorg',
      roleId: 'default',
      data: fixture('directory.json'),
      format: 'json',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    expect(r.contacts).toEqual({ inserted: 2, updated: 0 });
    expect(r.departments).toEqual({ inserted: 4 });
    expect(r.errors).toEqual([{ row: 2, column: 'team_role', message: '第 2 项 team_role 无效：boss', section: 'contacts' }]);
    const erin = await resolveActor(db(), {
      orgId: 'jsonorg',
      roleId: 'default',
      channel: 'feishu',
      platformId: 'ou_new',
      platformIds: { open_id: 'ou_new', user_id: 'erin_uid' },
      nickname: '',
    });
    expect(erin).toMatchObject({ known: true, contactKey: 'erin', isAdmin: true });
    expect(erin.fields).toMatchObject({
      actor_name: '赵敏',
      actor_department: '平台组',
      actor_department_path: '/总部/研发中心/平台组/',
      actor_tags: ['后端', '值班'],
    });
    const { rows } = await db().query<{ path: string; disabled: boolean }>(
      `SELECT path, disabled FROM skillgate.departments WHERE org_id = 'jsonorg' ORDER BY path`,
    );
    expect(rows).toEqual([
      { path: '/总部/', disabled: false },
      { path: '/总部/研发中心/', disabled: true },
      { path: '/总部/研发中心/平台组/', disabled: false },
      { path: '/总部/财务部/', disabled: false },
    ]);
    expect((await findContact(db(), 'jsonorg', 'grace'))?.channelIds).toEqual({ discord: ['55501'] });
  });

  it('JSON: a bare array of contacts; an ambiguous or unknown department name is imported with a warning; re-import counts updates', async () => {
    await importJson(db(), 'amb', { departments: [{ path: '/甲/运维/' }, { path: '/乙/运维/' }] });
    const doc = [
      { contact_key: 'u1', name: '一', department: '运维' },
      { contact_key: 'u2', name: '二', department: '不存在部' },
    ];
    const r = await importDirectory(db(), {
      orgId: 'amb',
      roleId: 'default',
      data: JSON.stringify(doc),
      format: 'json',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    expect(r).toMatchObject({ contacts: { inserted: 2, updated: 0 }, errors: [] });
    expect(r.warnings.map((w) => [w.row, w.column])).toEqual([
      [1, 'department'],
      [2, 'department'],
    ]);
    // several departments named 运维: the first by path in code point order (乙 U+4E59 < 甲 U+7532)
    expect(r.warnings[0]!.message).toBe('第 1 项 department「运维」有多个同名部门，已取 /乙/运维/');
    expect(r.warnings[1]!.message).toBe('第 2 项 department「不存在部」不在组织树中，部门路径将为 /不存在部/');
    const u1 = await resolveActor(db(), { orgId: 'amb', roleId: 'default', channel: 'web', platformId: 'u1', nickname: '' });
    expect(u1.fields.actor_department_path).toBe('/乙/运维/');
    const again = await importDirectory(db(), {
      orgId: 'amb',
      roleId: 'default',
      data: JSON.stringify(doc),
      format: 'json',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    expect(again.contacts).toEqual({ inserted: 0, updated: 2 });
  });

  it('a file that is not a directory is refused as a whole and writes nothing', async () => {
    await expect(
      importDirectory(db(), {
        orgId: 'bad',
        roleId: 'default',
        data: '{"contacts": [',
        format: 'json',
        channels: BUILD_DIRECTORY_CHANNELS,
      }),
    ).rejects.toBeInstanceOf(DirectoryFormatError);
    await expect(
      importDirectory(db(), { orgId: 'bad', roleId: 'default', data: 'a,b\n1,2\n', format: 'csv', channels: BUILD_DIRECTORY_CHANNELS }),
    ).rejects.toBeInstanceOf(DirectoryFormatError);
    await expect(
      importDirectory(db(), {
        orgId: 'bad',
        roleId: 'default',
        data: '{"contacts": {"a": 1}}',
        format: 'json',
        channels: BUILD_DIRECTORY_CHANNELS,
      }),
    ).rejects.toBeInstanceOf(DirectoryFormatError);
    expect(await listContacts(db(), 'bad')).toEqual([]);
  });

  it('a contact key with ":" (the <channel>:<id> form) or spaces is refused', async () => {
    const r = await importJson(db(), 'keys', [{ contact_key: 'telegram:1' }, { contact_key: 'a b' }, { contact_key: '' }, 'x']);
    expect(r.errors.map((e) => [e.row, e.column])).toEqual([
      [1, 'contact_key'],
      [2, 'contact_key'],
      [3, 'contact_key'],
      [4, 'contact_key'],
    ]);
    expect(r.errors[2]!.message).toBe('第 3 项 contact_key 不能为空');
  });

  it('demo seed: two owner contacts with web ids and department paths; idempotent and keeps edits', async () => {
    expect(await seedDemoDirectory(db(), 'demo')).toBe(2);
    await db().query(`UPDATE skillgate.contacts SET title = 'P9' WHERE org_id = 'demo' AND contact_key = 'demo_worker'`);
    expect(await seedDemoDirectory(db(), 'demo')).toBe(0);
    const all = await listContacts(db(), 'demo');
    expect(all.map((c) => [c.contactKey, c.teamRole, c.channelIds])).toEqual([
      ['demo_reporter', 'owner', { web: ['demo_reporter'] }],
      ['demo_worker', 'owner', { web: ['demo_worker'] }],
    ]);
    const worker = await resolveActor(db(), { orgId: 'demo', roleId: 'default', channel: 'web', platformId: 'demo_worker', nickname: '' });
    expect(worker.fields).toMatchObject({
      actor_name: '李四',
      actor_emp_no: 'E2001',
      actor_title: 'P9',
      actor_department_path: '/总部/工程部/维修班/',
    });
    const reporter = await resolveActor(db(), {
      orgId: 'demo',
      roleId: 'default',
      channel: 'web',
      platformId: 'demo_reporter',
      nickname: '',
    });
    expect(reporter.fields).toMatchObject({ actor_name: '张三', actor_emp_no: 'E1001', actor_department_path: '/总部/行政部/' });
    const { rows } = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.departments WHERE org_id = 'demo'`);
    expect(rows[0]!.n).toBe(4);
  });
});
