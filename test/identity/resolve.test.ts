/**
 * Who sent a message: actor_* fields from the directory, the nickname fallback, several
 * Feishu ids, the pseudo org, access policies and the admin proxy-fill.
 */
import { beforeAll, expect, it } from 'vitest';
import type { RoleConfig } from '../../src/config/file.ts';
import { actorFieldsFor, checkAccess, directoryOrgId, findContact, listContacts, resolveActor } from '../../src/identity/index.ts';
import { buildRuntimeContext } from '../../src/runtime/context.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { importJson } from './helpers.ts';

const ORG = 'acme';
const role = (access: RoleConfig['access'], allow: string[] = [], org_id = ORG): RoleConfig => ({
  id: 'default',
  org_id,
  skills: ['*'],
  access,
  allow,
});

describeEachEngine('identity: resolve actor', (db) => {
  const resolve = (
    channel: string,
    platformId: string,
    extra: { platformIds?: Record<string, string>; nickname?: string; orgId?: string; roleId?: string } = {},
  ) =>
    resolveActor(db(), {
      orgId: extra.orgId ?? ORG,
      roleId: extra.roleId ?? 'default',
      channel,
      platformId,
      platformIds: extra.platformIds,
      nickname: extra.nickname ?? 'TG Nick',
    });

  beforeAll(async () => {
    await migrate(db());
    const r = await importJson(db(), ORG, {
      contacts: [
        {
          contact_key: 'alice',
          name: '王小明',
          emp_no: 'E0001',
          department: '/总部/销售中心/销售一部/',
          position: '销售代表',
          title: 'P5',
          phone: '13800000001',
          email: 'alice@example.com',
          tags: '新人、华东',
          team: 'sales',
          team_role: 'owner',
          telegram: '1001',
          feishu: ['ou_alice', 'on_alice', 'uid_alice'],
        },
        { contact_key: 'noname', emp_no: 'E0009', telegram: '1009' },
        {
          contact_key: 'boss',
          name: '管理员',
          title: 'M9',
          department: '/总部/',
          phone: '010-8888',
          email: 'boss@example.com',
          is_admin: true,
          team_role: 'admin',
        },
      ],
    });
    expect(r.errors).toEqual([]);
  });

  it('R-CTX-08: a known Telegram sender maps the profile to the actor_* keys', async () => {
    const a = await resolve('telegram', '1001');
    const c = await findContact(db(), ORG, 'alice');
    expect(a).toMatchObject({ known: true, contactKey: 'alice', teamRole: 'owner', isAdmin: false, teamId: 'sales' });
    expect(a.fields).toEqual({
      actor_id: c!.id,
      actor_name: '王小明',
      actor_emp_no: 'E0001',
      actor_department: '销售一部',
      actor_department_path: '/总部/销售中心/销售一部/',
      actor_position: '销售代表',
      actor_title: 'P5',
      actor_phone: '13800000001',
      actor_email: 'alice@example.com',
      actor_tags: ['新人', '华东'],
      actor_key: 'alice',
    });
    expect(a.fields.actor_id).toMatch(/^\d+$/);
  });

  it('R-CTX-07: an unknown sender gets the nickname as actor_name and nothing else', async () => {
    const a = await resolve('telegram', '424242', { nickname: 'Zoe 🐱' });
    expect(a).toMatchObject({ known: false, contactKey: 'telegram:424242', teamRole: 'member', isAdmin: false });
    expect(a.fields).toEqual({
      actor_id: '',
      actor_name: 'Zoe 🐱',
      actor_emp_no: '',
      actor_department: '',
      actor_department_path: '',
      actor_position: '',
      actor_title: '',
      actor_phone: '',
      actor_email: '',
      actor_tags: [],
      actor_key: '',
    });
  });

  it('R-CTX-07: a contact without a profile name falls back to the channel nickname', async () => {
    const a = await resolve('telegram', '1009', { nickname: 'nick9' });
    expect(a.known).toBe(true);
    expect(a.fields.actor_name).toBe('nick9');
    expect(a.fields.actor_emp_no).toBe('E0009');
  });

  it('Feishu: any of open_id / union_id / user_id matches the contact; an id of another channel does not', async () => {
    for (const ids of [
      { open_id: 'ou_other', union_id: 'on_alice' },
      { open_id: 'ou_x', user_id: 'uid_alice' },
    ] as Record<string, string>[]) {
      const a = await resolve('feishu', ids.open_id!, { platformIds: ids });
      expect(a.known).toBe(true);
      expect(a.contactKey).toBe('alice');
    }
    expect((await resolve('feishu', 'ou_alice')).contactKey).toBe('alice');
    expect((await resolve('discord', '1001')).known).toBe(false);
  });

  it('web: the platform id is the contact key; another org sees nobody', async () => {
    expect((await resolve('web', 'alice')).contactKey).toBe('alice');
    expect((await resolve('web', 'alice', { orgId: 'other' })).known).toBe(false);
  });

  it('R-ORG-02, R-ORG-03: an empty org keys directory rows by r_<role>', async () => {
    expect(directoryOrgId('', 'sales')).toBe('r_sales');
    expect(directoryOrgId('  ', 'sales')).toBe('r_sales');
    expect(directoryOrgId(' acme ', 'sales')).toBe('acme');
    const r = await importJson(db(), '', { contacts: [{ contact_key: 'solo', name: '独', telegram: '777' }] }, 'sales');
    expect(r.orgId).toBe('r_sales');
    const { rows } = await db().query<{ org_id: string }>(`SELECT org_id FROM skillgate.contacts WHERE contact_key = 'solo'`);
    expect(rows.map((x) => x.org_id)).toEqual(['r_sales']);
    expect((await resolve('telegram', '777', { orgId: '', roleId: 'sales' })).contactKey).toBe('solo');
    expect((await resolve('telegram', '777', { orgId: '', roleId: 'other' })).known).toBe(false);
    expect((await listContacts(db(), 'r_sales')).map((c) => c.contactKey)).toEqual(['solo']);
  });

  it('access open: everyone; directory: known contacts only, an unknown sender gets the polite refusal (zh-CN / en)', async () => {
    const stranger = await resolve('telegram', '999');
    const alice = await resolve('telegram', '1001');
    expect(checkAccess(role('open'), stranger, 'telegram', '999', 'zh-CN')).toEqual({ allowed: true });
    expect(checkAccess(role('directory'), alice, 'telegram', '1001', 'zh-CN')).toEqual({ allowed: true });
    expect(checkAccess(role('directory'), stranger, 'telegram', '999', 'zh-CN')).toEqual({
      allowed: false,
      message: '抱歉，您不在本组织的通讯录中，暂时无法使用此助手。请联系管理员添加。',
    });
    const en = checkAccess(role('directory'), stranger, 'telegram', '999', 'en');
    expect(en.allowed).toBe(false);
    if (!en.allowed) expect(en.message).toMatch(/not in this organization's directory/);
  });

  it('access allowlist: by contact key and by <channel>:<id>; others refused', async () => {
    const alice = await resolve('telegram', '1001');
    const stranger = await resolve('telegram', '999');
    const feishuStranger = await resolve('feishu', 'ou_z', { platformIds: { open_id: 'ou_z', union_id: 'on_z' } });
    const allow = role('allowlist', ['alice', 'telegram:999', 'feishu:on_z']);
    expect(checkAccess(allow, alice, 'telegram', '1001', 'zh-CN').allowed).toBe(true);
    expect(checkAccess(allow, stranger, 'telegram', '999', 'zh-CN').allowed).toBe(true);
    expect(checkAccess(allow, feishuStranger, 'feishu', 'ou_z', 'zh-CN').allowed).toBe(true);
    const other = await resolve('telegram', '998');
    const refused = checkAccess(allow, other, 'telegram', '998', 'zh-CN');
    expect(refused.allowed).toBe(false);
    // the same id on another channel is not on the list
    expect(checkAccess(role('allowlist', ['discord:999']), stranger, 'telegram', '999', 'zh-CN').allowed).toBe(false);
    expect(checkAccess(role('allowlist', ['noname']), alice, 'telegram', '1001', 'zh-CN').allowed).toBe(false);
  });

  it('R-ADM-01, R-ADM-02, R-DEPT-08: proxy-fill only for an admin contact acting on web_admin; 8 keys cleared, name/phone/email kept', async () => {
    const boss = await resolve('web_admin', 'boss');
    expect(boss).toMatchObject({ known: true, isAdmin: true });
    const filled = actorFieldsFor(boss, { channel: 'web_admin', actingAsAdmin: true });
    expect(filled).toMatchObject({
      actor_is_admin: true,
      actor_title: '',
      actor_department: '',
      actor_department_path: '',
      actor_position: '',
      actor_tags: [],
      actor_key: '',
      actor_id: '',
      actor_emp_no: '',
      actor_name: '管理员',
      actor_phone: '010-8888',
      actor_email: 'boss@example.com',
      team_role: 'admin',
      user_id: 'boss',
    });
    // the resolved actor itself is untouched
    expect(boss.fields.actor_title).toBe('M9');

    // the same admin on the web chat, or not acting as admin: no proxy-fill
    const web = actorFieldsFor(await resolve('web', 'boss'), { channel: 'web', actingAsAdmin: true });
    expect(web).toMatchObject({ actor_is_admin: false, actor_title: 'M9', actor_department_path: '/总部/', actor_key: 'boss' });
    expect(actorFieldsFor(boss, { channel: 'web_admin', actingAsAdmin: false })).toMatchObject({
      actor_is_admin: false,
      actor_title: 'M9',
    });
    // a contact without is_admin cannot proxy-fill even on web_admin
    const alice = await resolve('web_admin', 'alice');
    expect(actorFieldsFor(alice, { channel: 'web_admin', actingAsAdmin: true })).toMatchObject({
      actor_is_admin: false,
      actor_emp_no: 'E0001',
    });

    // the runtime context builder keeps it so
    const ctx = buildRuntimeContext({
      given: filled,
      defaults: {
        role_id: 'default',
        org_id: ORG,
        session_id: 's',
        workspace_dir: '/tmp',
        channel: 'web_admin',
        chat_mode: true,
        allow_sql: true,
        team_role: 'member',
        is_admin: false,
      },
      clock: null,
    });
    expect(ctx).toMatchObject({ actor_is_admin: true, actor_title: '', actor_name: '管理员', team_role: 'admin', user_id: 'boss' });
  });

  it('actorFieldsFor: user_id is the contact key, or the platform id for an unknown sender', async () => {
    expect(actorFieldsFor(await resolve('telegram', '1001'), { channel: 'telegram', actingAsAdmin: false })).toMatchObject({
      user_id: 'alice',
      team_id: 'sales',
      team_role: 'owner',
    });
    const u = actorFieldsFor(await resolve('telegram', '555', { nickname: 'n' }), { channel: 'telegram', actingAsAdmin: false });
    expect(u).toMatchObject({ user_id: '555', actor_name: 'n', actor_key: '', actor_is_admin: false, team_role: 'member', team_id: '' });
  });
});
