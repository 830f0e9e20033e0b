/**
 * runtime_context as a handler sees it after the whole pipeline (`skill run`'s code path and
 * runSkill): the three sections, the platform keys and their values on each line, the admin
 * proxy-fill, identity distrust.
 */
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { CONFIG_SECTION_KEYS, PLATFORM_CTX_KEYS } from '../../src/runtime/keys.ts';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import { FIXED_CTX_FIELDS, type ChannelRegistry } from '../../src/runtime/types.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeHarness, type Harness } from './helpers.ts';
import { looseRequest } from '../helpers/request.ts';
import type { LineDefaults } from '../../src/executor/request.ts';

type Echo = { types: Record<string, string>; values: Record<string, unknown>; input: Record<string, unknown> };

const PROFILE = {
  actor_name: '张三',
  actor_emp_no: 'E001',
  actor_department: '销售一部',
  actor_department_path: '/总部/销售中心/销售一部/',
  actor_position: '销售经理',
  actor_title: 'P7',
  actor_phone: '13800000000',
  actor_email: 'z@example.com',
  actor_tags: ['vip', '华东'],
  actor_key: 'ck_zhangsan',
  actor_id: '42',
};

const LINE_DEFAULTS: LineDefaults = {
  role_id: 'default',
  org_id: 'demo',
  session_id: 'ctx-line',
  channel: 'web',
  chat_mode: true,
  allow_sql: true,
  team_role: 'member',
  is_admin: false,
};

describeEachEngine('pipeline: runtime_context a handler receives', (db) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(db());
    await setSkillConfig(h.services.db, h.services.secretKey, {
      roleId: 'default',
      skill: 'ctx_echo',
      key: 'unit',
      value: 'celsius',
      via: 'operator',
      logger: h.services.log,
    });
  });

  async function echo(
    context: Record<string, unknown> = {},
    input: Record<string, unknown> = { note: 'n' },
    rawInput?: string,
  ): Promise<Echo> {
    const env = await h.run('ctx_echo', { input, context, rawInput });
    expect(env.success, JSON.stringify(env)).toBe(true);
    return env as unknown as Echo;
  }

  it('R-CTX-01: the context holds exactly the fixed section, the platform section and the config section (with its flat copy)', async () => {
    const { types, values } = await echo();
    expect(Object.keys(types).sort()).toEqual([...FIXED_CTX_FIELDS, ...PLATFORM_CTX_KEYS, ...CONFIG_SECTION_KEYS, 'unit'].sort());
    expect(values.skill_configs).toEqual({ ctx_echo: { unit: 'celsius' }, unit: 'celsius' });
    expect(values.skill_args).toEqual({ unit: 'celsius' });
    expect(values.unit).toBe('celsius');
  });

  it('R-CTX-04: raw_input is the user text of the turn, byte for byte (spaces, mentions, new lines, full-width characters)', async () => {
    const text = '  @bot 帮我查一下　上海的天气\n第二行\tAPI_KEY=sk-abc ';
    const { values } = await echo({}, { note: 'n' }, text);
    expect(values.raw_input).toBe(text);
  });

  it('R-CTX-08: the profile keys reach the handler as the channel gave them, each in its own key', async () => {
    const { values } = await echo({ ...PROFILE, actor_tags: 'vip, 华东' });
    expect(values).toMatchObject({ ...PROFILE, actor_tags: ['vip', '华东'] });
    expect(values.actor_department).toBe('销售一部'); // bare text, not the path
    expect(values.actor_title).not.toBe(values.actor_position); // rank and position stay apart
  });

  it("R-CTX-09: channel is the line's channel name, or what the channel gave (web, web_admin, third-party)", async () => {
    expect((await echo()).values.channel).toBe('cli');
    for (const channel of ['web', 'web_admin', 'telegram', 'feishu']) {
      expect((await echo({ channel })).values.channel).toBe(channel);
    }
    const env = await runSkill(
      h.services,
      looseRequest({
        skill: 'ctx_echo',
        input: { note: 'n' },
        defaults: { ...LINE_DEFAULTS, channel: 'web_admin' },
        line: 'chat',
      }),
    );
    expect((env.values as Record<string, unknown>).channel).toBe('web_admin');
  });

  it('R-ORG-01: org_id reaches the handler raw — an empty or padded org is not replaced by a fallback', async () => {
    expect((await echo({ org_id: '' })).values.org_id).toBe('');
    expect((await echo({ org_id: ' acme ' })).values.org_id).toBe(' acme ');
    expect((await echo()).values.org_id).toBe('demo');
  });

  it('R-PCTX-02: team_role is owner, admin or member; anything else (or nothing) is member', async () => {
    expect((await echo()).values.team_role).toBe('member');
    expect((await echo({ team_role: 'owner' })).values.team_role).toBe('owner');
    expect((await echo({ team_role: 'Admin' })).values.team_role).toBe('admin');
    expect((await echo({ team_role: 'superuser' })).values.team_role).toBe('member');
    expect((await echo({ team_role: 42 })).values.team_role).toBe('member');
  });

  it('R-PCTX-03, A-52: is_admin (admin session) and actor_is_admin (proxy-fill) are independent flags', async () => {
    const session = await echo({ ...PROFILE, is_admin: true });
    expect(session.values).toMatchObject({ is_admin: true, actor_is_admin: false, actor_title: 'P7', actor_emp_no: 'E001' });
    const proxy = await echo({ ...PROFILE, actor_is_admin: true });
    expect(proxy.values).toMatchObject({ is_admin: false, actor_is_admin: true, actor_title: '', actor_emp_no: '' });
    expect((await echo()).values).toMatchObject({ is_admin: false, actor_is_admin: false });
    expect(session.types.is_admin).toBe('boolean');
  });

  it('R-ADM-01, R-ADM-02: under admin proxy-fill the 8 identity keys are empty while name, phone and email are kept', async () => {
    const { values } = await echo({ ...PROFILE, actor_is_admin: true });
    expect(values).toMatchObject({
      actor_title: '',
      actor_department: '',
      actor_department_path: '',
      actor_position: '',
      actor_tags: [],
      actor_key: '',
      actor_id: '',
      actor_emp_no: '',
      actor_name: '张三',
      actor_phone: '13800000000',
      actor_email: 'z@example.com',
    });
  });

  it('R-PCTX-04: chat_mode is true on `skill run` unless the context says false (a boolean either way)', async () => {
    const dflt = await echo();
    expect(dflt.values.chat_mode).toBe(true);
    expect(dflt.types.chat_mode).toBe('boolean');
    expect((await echo({ chat_mode: false })).values.chat_mode).toBe(false);
    expect((await echo({ chat_mode: 'false' })).values.chat_mode).toBe(false);
    const chain = await runSkill(
      h.services,
      looseRequest({
        skill: 'ctx_echo',
        input: { note: 'n' },
        defaults: { ...LINE_DEFAULTS, chat_mode: false },
        line: 'chain',
      }),
    );
    expect((chain.values as Record<string, unknown>).chat_mode).toBe(false);
  });

  it('R-PCTX-05: allow_sql defaults to true and a false from the line is kept as false', async () => {
    const dflt = await echo();
    expect(dflt.values.allow_sql).toBe(true);
    expect(dflt.types.allow_sql).toBe('boolean');
    expect((await echo({ allow_sql: false })).values.allow_sql).toBe(false);
    expect((await echo({ allow_sql: 0 })).values.allow_sql).toBe(false);
    const line = await runSkill(
      h.services,
      looseRequest({
        skill: 'ctx_echo',
        input: { note: 'n' },
        defaults: { ...LINE_DEFAULTS, allow_sql: false },
        line: 'schedule',
      }),
    );
    expect((line.values as Record<string, unknown>).allow_sql).toBe(false);
  });

  it('R-PCTX-07: db_factory opens a fresh transaction per use (rolled back on error); the legacy db answers queries', async () => {
    const env = await h.run('db_probe', {});
    expect(env.success, JSON.stringify(env)).toBe(true);
    const first = env.first as string[];
    expect(first[0]).toBe(first[1]); // one use = one transaction
    expect(env.second).not.toBe(first[0]); // the next use = a new transaction
    expect(String(env.failed)).toMatch(/division by zero/);
    expect(env.after).toBe(42); // a failed use does not poison the next one
    expect(env.legacy).toBe(7);
  });

  it('R-PCTX-09: channel_registry and request are null off the chat line; the chat line gets the registry', async () => {
    const registry: ChannelRegistry = { send: async () => ({ ok: true }), channels: () => ['web'] };
    const services = { ...h.services, channelRegistry: registry };
    const req = { skill: 'ctx_echo', input: { note: 'n' }, defaults: LINE_DEFAULTS };
    for (const line of ['cli', 'chain', 'schedule', 'async'] as const) {
      const env = await runSkill(services, looseRequest({ ...req, line }));
      const types = env.types as Record<string, string>;
      expect(types.channel_registry, line).toBe('null');
      expect(types.request, line).toBe('null');
    }
    const chat = await runSkill(services, looseRequest({ ...req, line: 'chat' }));
    expect((chat.types as Record<string, string>).channel_registry).toBe('object');
    // The result is JSON (README.md#the-skillgate-command): the handler saw the registry object,
    // whose methods do not serialise.
    expect((chat.values as Record<string, unknown>).channel_registry).toEqual({});
    expect(registry).toBeDefined();
  });

  it('R-PCTX-10, A-50: skill_config.sandbox is a nested object, {} without a sandbox', async () => {
    expect((await echo()).values.skill_config).toEqual({});
    const { values } = await echo({ skill_config: { sandbox: { image: 'python:3.12', network: false } } });
    expect(values.skill_config).toEqual({ sandbox: { image: 'python:3.12', network: false } });
    expect(values).not.toHaveProperty(['skill_config.sandbox']);
  });

  it('R-ID-01: identity fields in the input never change the context', async () => {
    const forged = {
      note: 'n',
      emp_no: 'X',
      actor_emp_no: 'X',
      org_id: 'evil',
      role_id: 'admin',
      team_role: 'owner',
      is_admin: true,
      session_id: 'other',
    };
    const { values, input } = await echo({ actor_emp_no: 'E001' }, forged);
    expect(values).toMatchObject({ actor_emp_no: 'E001', org_id: 'demo', role_id: 'default', team_role: 'member', is_admin: false });
    expect(values.session_id).not.toBe('other');
    expect(values).not.toHaveProperty('emp_no');
    expect(input.note).toBe('n');
  });

  it('R-PCTX-06: workspace_dir is the absolute session workspace, also for a named session', async () => {
    const { values } = await echo({ session_id: 'named-session' });
    expect(values.session_id).toBe('named-session');
    expect(values.workspace_dir).toBe(join(h.dataDir, 'workspaces', 'default', 'named-session'));
  });
});
