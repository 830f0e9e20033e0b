/**
 * The typed skill-call request at its loose boundaries (src/executor/request.ts): the
 * `--context` parser's precedence, the runtime context it leads to (the same as the context
 * builder gives for the loose map itself), and an async job row of the old shape read into
 * the same parts as a new one.
 */
import { describe, expect, it } from 'vitest';
import { jobCallOf, jobDataOf, type StoredJobData } from '../../src/async/job.ts';
import { callFromContext, contextInputOf, sessionIdOf, type LineDefaults, type RunSkillRequest } from '../../src/executor/request.ts';
import { buildRuntimeContext } from '../../src/runtime/context.ts';

const DEFAULTS: LineDefaults = {
  role_id: 'default',
  org_id: 'demo',
  session_id: 'cli-session',
  workspace_dir: '/data/workspaces/default/cli-session',
  channel: 'cli',
  chat_mode: true,
  allow_sql: true,
  team_role: 'member',
  is_admin: false,
};

const PROFILE = {
  actor_name: '张三',
  actor_emp_no: 'E001',
  actor_department: '销售一部',
  actor_department_path: '/总部/销售一部/',
  actor_position: '经理',
  actor_title: 'P7',
  actor_phone: '13800000000',
  actor_email: 'z@example.com',
  actor_tags: 'vip, 华东',
  actor_key: 'ck_zhangsan',
  actor_id: 42,
};

const clock = () => new Date('2026-03-01T08:30:00Z');

/** The context of a `--context` map through the typed request, as the executor builds it. */
function typedContext(given: Record<string, unknown>): Record<string, unknown> {
  const p = callFromContext(given, DEFAULTS);
  const workspaceDir = 'open' in p.session ? (p.session.open.workspaceDir ?? '') : p.session.opened.workspaceDir;
  const input = contextInputOf(p, { sessionId: sessionIdOf(p.session), workspaceDir, attachments: p.origin.attachments ?? [] });
  return buildRuntimeContext({ ...input, clock });
}

describe('the --context boundary', () => {
  it('a key of --context wins over the line default; org_id is kept raw, even ""', () => {
    const p = callFromContext({ role_id: 'ops', org_id: '', channel: 'feishu', session_id: 'named', user_id: 'u1' }, DEFAULTS);
    expect(p.origin).toMatchObject({ roleId: 'ops', orgId: '', channel: 'feishu' });
    expect(p.session).toEqual({ open: { id: 'named', workspaceDir: DEFAULTS.workspace_dir, ownerKey: 'feishu:u1' } });
    expect(p.actor.userId).toBe('u1');
    const none = callFromContext({}, DEFAULTS);
    expect(none.origin).toMatchObject({ roleId: 'default', orgId: 'demo', channel: 'cli', chatMode: true, allowSql: true, isAdmin: false });
    expect(none.session).toEqual({ open: { id: 'cli-session', workspaceDir: DEFAULTS.workspace_dir, ownerKey: 'cli:anonymous' } });
  });

  it('values are coerced once, as the context coerces them; team_role is told only by a non-empty string', () => {
    const p = callFromContext({ ...PROFILE, chat_mode: 'false', allow_sql: 0, is_admin: 'TRUE', team_role: 'Owner' }, DEFAULTS);
    expect(p.actor.fields).toMatchObject({ actor_tags: ['vip', '华东'], actor_id: '42', actor_is_admin: false });
    expect(p.origin).toMatchObject({ chatMode: false, allowSql: false, isAdmin: true, teamRole: 'owner' });
    expect(callFromContext({ team_role: '' }, DEFAULTS).origin.teamRole).toBeUndefined();
    expect(callFromContext({ team_role: 'superuser' }, DEFAULTS).origin.teamRole).toBe('member');
  });

  it('only `_` keys pass as extras; parameters and unknown keys are dropped', () => {
    const p = callFromContext({ _meta: { trace: 't' }, emp_no: 'X', unit: 'celsius', skill_configs: { a: 1 } }, DEFAULTS);
    expect(p.extras).toEqual({ _meta: { trace: 't' } });
    expect(Object.isFrozen(p.extras)).toBe(true);
  });

  it('the admin proxy-fill is applied at the boundary (R-ADM-01/02)', () => {
    const p = callFromContext({ ...PROFILE, actor_is_admin: true }, DEFAULTS);
    expect(p.actor.fields).toMatchObject({
      actor_name: '张三',
      actor_phone: '13800000000',
      actor_key: '',
      actor_title: '',
      actor_tags: [],
    });
  });

  const samples: Record<string, Record<string, unknown>> = {
    empty: {},
    profile: { ...PROFILE, raw_input: '  帮我查\n天气 ', channel: 'telegram', user_id: 7, team_id: 't1', team_role: 'admin' },
    switches: { chat_mode: 'false', allow_sql: false, is_admin: 1, team_role: 42 },
    'org raw': { org_id: ' acme ', role_id: 'ops', session_id: 'named' },
    'trigger time (ms)': { triggered_at: 1_767_000_000_123 },
    'trigger time (text)': { triggered_at: 'soon', triggered_at_str: '2026-01-02 03:04' },
    attachments: { attachments: ['https://x.test/a.png', { filename: ' b.pdf ', local_path: '/tmp/b.pdf', type: 'document' }, 7] },
    sandbox: { skill_config: { sandbox: { image: 'python:3.12' } }, _meta: { a: 1 }, _time_zone: 'Asia/Tokyo' },
    'proxy fill': { ...PROFILE, actor_is_admin: 'true', workspace_dir: '/w/x' },
  };
  for (const [name, given] of Object.entries(samples)) {
    it(`R-PCTX, R-CTX: the context through the typed request equals the context of the loose map (${name})`, () => {
      const loose = buildRuntimeContext({ given, defaults: { ...DEFAULTS, workspace_dir: DEFAULTS.workspace_dir! }, clock });
      expect(typedContext(given)).toEqual(loose);
      expect(Object.keys(typedContext(given))).toEqual(Object.keys(loose));
    });
  }
});

describe('the async job row', () => {
  const target = { channel: 'telegram', chat_id: 'c1' } as never;
  it('a row of the old shape (given + defaults) is read into the parts a new row of the same call holds', () => {
    const given = { ...PROFILE, user_id: 'ck_zhangsan', team_role: 'owner', raw_input: '跑一下', channel: 'telegram', _meta: { m: 1 } };
    const defaults: LineDefaults = { ...DEFAULTS, channel: 'telegram', session_id: 's-1', user_id: 'ck_zhangsan' };
    delete defaults.workspace_dir;
    const old: StoredJobData = {
      v: 1,
      skill: 'bg',
      tool: 'bg',
      input: { a: 1 },
      given,
      defaults,
      lang: 'zh-CN',
      origin: { target, reply_to: null, event_id: 'e1' },
    };
    const fromOld = jobCallOf(old);
    const req: RunSkillRequest = { skill: 'bg', input: { a: 1 }, line: 'chat', ...fromOld };
    const fromNew = jobCallOf(jobDataOf(req, 'bg', { target, event_id: 'e1' }));
    expect(fromNew).toEqual(fromOld);
    expect(fromOld.actor.contactKey).toBe('ck_zhangsan');
    expect(fromOld.origin).toMatchObject({ roleId: 'default', channel: 'telegram', rawInput: '跑一下', teamRole: 'owner' });
    expect(sessionIdOf(fromOld.session)).toBe('s-1');
  });

  it('a new row keeps an opened session as its id and workspace', () => {
    const p = callFromContext({}, DEFAULTS);
    const req: RunSkillRequest = { skill: 'bg', input: {}, line: 'chat', ...p, session: { opened: { id: 's-2', workspaceDir: '/w/s-2' } } };
    const row = jobDataOf(req, 'bg', { target, event_id: 'e2' });
    expect(row.call.session).toEqual({ open: { id: 's-2', workspaceDir: '/w/s-2' } });
    expect(jobCallOf(JSON.parse(JSON.stringify(row)) as StoredJobData).session).toEqual(row.call.session);
  });
});
