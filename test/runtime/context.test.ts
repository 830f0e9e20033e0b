import { describe, expect, it } from 'vitest';
import {
  ADMIN_CLEARED_KEYS,
  buildRuntimeContext,
  callSkillChildContext,
  cfg,
  currentDepartment,
  departmentPath,
  deptPathContains,
  emptyFixedContext,
  isFixedOrPlatformKey,
  pseudoOrgId,
  stripIdentityFromInput,
  type ContextDefaults,
} from '../../src/runtime/context.ts';
import { FIXED_CTX_FIELDS, toSubprocessContext, type CallSkill } from '../../src/runtime/types.ts';

const DEFAULTS: ContextDefaults = {
  role_id: 'default',
  org_id: 'demo',
  session_id: 'sess-1',
  workspace_dir: '/data/workspaces/default/sess-1',
  channel: 'web',
  chat_mode: true,
  allow_sql: true,
  team_role: 'member',
  is_admin: false,
};

/** 2026-03-04 05:06:07.5 UTC */
const FIXED_DATE = new Date(Date.UTC(2026, 2, 4, 5, 6, 7, 500));
const clock = () => FIXED_DATE;

const STRING_KEYS = [
  'raw_input',
  'actor_name',
  'actor_emp_no',
  'actor_department',
  'actor_department_path',
  'actor_position',
  'actor_title',
  'actor_phone',
  'actor_email',
  'actor_key',
  'channel',
  'triggered_at_str',
  'actor_id',
];

const PROFILE = {
  raw_input: '帮我报销',
  actor_name: '张三',
  actor_emp_no: 'E001',
  actor_department: '销售一部',
  actor_department_path: '/总部/销售中心/销售一部/',
  actor_position: '经理',
  actor_title: 'P7',
  actor_phone: '13800000000',
  actor_email: 'z@example.com',
  actor_tags: ['vip'],
  actor_key: 'ck_1',
  actor_id: '42',
};

describe('runtime_context fixed section (R-CTX)', () => {
  it('R-CTX-02, R-CTX-03: an anonymous context has all 17 fixed keys with the typed empty values', () => {
    const ctx = buildRuntimeContext({ given: {}, defaults: { ...DEFAULTS, channel: '' }, clock: null });
    for (const k of FIXED_CTX_FIELDS) expect(Object.hasOwn(ctx, k), k).toBe(true);
    for (const k of STRING_KEYS) {
      expect(typeof ctx[k], k).toBe('string');
      expect(ctx[k], k).toBe('');
    }
    expect(Array.isArray(ctx.attachments)).toBe(true);
    expect(ctx.attachments).toEqual([]);
    expect(Array.isArray(ctx.actor_tags)).toBe(true);
    expect(ctx.actor_tags).toEqual([]);
    expect(typeof ctx.triggered_at).toBe('number');
    expect(ctx.triggered_at).toBe(0);
    expect(typeof ctx.actor_is_admin).toBe('boolean');
    expect(ctx.actor_is_admin).toBe(false);
    expect(Object.keys(emptyFixedContext()).sort()).toEqual([...FIXED_CTX_FIELDS].sort());
  });

  it('R-CTX-10: with no time given the clock decides; triggered_at is float seconds, _str is UTC minutes', () => {
    const ctx = buildRuntimeContext({ given: {}, defaults: DEFAULTS, clock });
    expect(ctx.triggered_at).toBe(FIXED_DATE.getTime() / 1000);
    expect(ctx.triggered_at).toBe(1772600767.5);
    expect(ctx.triggered_at_str).toBe('2026-03-04 05:06');
  });

  it('R-CTX-10: a given time wins over the clock, milliseconds are recognised, and _str is derived from it', () => {
    const secs = buildRuntimeContext({ given: { triggered_at: 1700000000, triggered_at_str: 'junk' }, defaults: DEFAULTS, clock });
    expect(secs.triggered_at).toBe(1700000000);
    expect(secs.triggered_at_str).toBe('2023-11-14 22:13');
    const ms = buildRuntimeContext({ given: { triggered_at: '1700000000000' }, defaults: DEFAULTS, clock });
    expect(ms.triggered_at).toBe(1700000000);
    const strOnly = buildRuntimeContext({ given: { triggered_at_str: '2024-01-02 03:04' }, defaults: DEFAULTS, clock });
    expect(strOnly.triggered_at).toBe(Date.UTC(2024, 0, 2, 3, 4) / 1000);
    expect(strOnly.triggered_at_str).toBe('2024-01-02 03:04');
  });

  it('R-CTX-03: wrong-typed values are coerced or replaced by the empty value', () => {
    const ctx = buildRuntimeContext({
      given: {
        raw_input: null,
        actor_emp_no: 1001,
        actor_name: { first: 'x' },
        actor_tags: 'a, b，c',
        attachments: 'not a list',
        actor_is_admin: 'yes',
        triggered_at: 'tomorrow',
      },
      defaults: DEFAULTS,
      clock: null,
    });
    expect(ctx.raw_input).toBe('');
    expect(ctx.actor_emp_no).toBe('1001');
    expect(ctx.actor_name).toBe('');
    expect(ctx.actor_tags).toEqual(['a', 'b', 'c']);
    expect(ctx.attachments).toEqual([]);
    expect(ctx.actor_is_admin).toBe(false);
    expect(ctx.triggered_at).toBe(0);
    expect(ctx.triggered_at_str).toBe('');
    const t = buildRuntimeContext({ given: { actor_is_admin: 'TRUE', chat_mode: 'false', allow_sql: 0 }, defaults: DEFAULTS });
    expect(t.actor_is_admin).toBe(true);
    expect(t.chat_mode).toBe(false);
    expect(t.allow_sql).toBe(false);
  });

  it('R-CTX-06: attachments are normalised to {type, att_type, filename, local_path, url} with att_type === type', () => {
    const ctx = buildRuntimeContext({
      given: {
        attachments: [
          { type: 'photo', local_path: '/ws/img_1.png', extra: 1 },
          { att_type: 'file', filename: '报销单.pdf', url: 'https://x.test/a/%E6%8A%A5.pdf' },
          { url: 'https://x.test/v/clip.mp4' },
          42,
          {},
        ],
      },
      defaults: DEFAULTS,
    });
    expect(ctx.attachments).toEqual([
      { type: 'image', att_type: 'image', filename: 'img_1.png', local_path: '/ws/img_1.png', url: '' },
      { type: 'file', att_type: 'file', filename: '报销单.pdf', local_path: '', url: 'https://x.test/a/%E6%8A%A5.pdf' },
      { type: 'video', att_type: 'video', filename: 'clip.mp4', local_path: '', url: 'https://x.test/v/clip.mp4' },
    ]);
    for (const a of ctx.attachments) expect(a.att_type).toBe(a.type);
  });

  it('R-CTX-11: emp_no is never created, even when given', () => {
    const ctx = buildRuntimeContext({ given: { emp_no: 'X9', actor_emp_no: 'E1' }, defaults: DEFAULTS });
    expect(Object.hasOwn(ctx, 'emp_no')).toBe(false);
    expect(ctx.actor_emp_no).toBe('E1');
  });
});

describe('runtime_context platform section (R-PCTX, R-ORG-01)', () => {
  it('R-PCTX-01, R-PCTX-02, R-ORG-01, A-50: defaults fill the platform keys; given values override, org_id raw and possibly empty, team_role owner/admin/member, skill_config.sandbox nested', () => {
    const ctx = buildRuntimeContext({ given: {}, defaults: DEFAULTS });
    expect(ctx).toMatchObject({
      org_id: 'demo',
      role_id: 'default',
      session_id: 'sess-1',
      user_id: '',
      team_id: '',
      team_role: 'member',
      is_admin: false,
      chat_mode: true,
      allow_sql: true,
      workspace_dir: '/data/workspaces/default/sess-1',
      channel: 'web',
      skill_config: {},
      channel_registry: null,
      request: null,
      db: null,
      db_factory: null,
      abort_signal: null,
    });
    expect(Object.hasOwn(ctx, 'call_skill')).toBe(false);
    const over = buildRuntimeContext({
      given: {
        org_id: '',
        role_id: 'r2',
        team_role: 'Owner',
        is_admin: true,
        channel: 'telegram',
        skill_config: { sandbox: { image: 'py' } },
      },
      defaults: DEFAULTS,
    });
    expect(over.org_id).toBe('');
    expect(over.role_id).toBe('r2');
    expect(over.team_role).toBe('owner');
    expect(over.is_admin).toBe(true);
    expect(over.channel).toBe('telegram');
    expect(over.skill_config).toEqual({ sandbox: { image: 'py' } });
    expect(buildRuntimeContext({ given: { team_role: 'boss' }, defaults: DEFAULTS }).team_role).toBe('member');
    expect(buildRuntimeContext({ given: { org_id: '  o1 ' }, defaults: DEFAULTS }).org_id).toBe('  o1 ');
  });

  it('R-PCTX-12 / R-SUB-02: _ keys are kept in process; toSubprocessContext drops _meta, db, db_factory, call_skill', () => {
    const call_skill: CallSkill = async () => ({});
    const ctx = buildRuntimeContext({
      given: { _meta: { trace: 't' }, _x: 1 },
      defaults: DEFAULTS,
      config: { skill: 'weather', values: { city: 'Paris' } },
      inProcess: { db: { query: async () => ({ rows: [], rowCount: 0 }) }, db_factory: async (fn) => fn(undefined as never), call_skill },
    });
    expect(ctx._meta).toEqual({ trace: 't' });
    expect(ctx.call_skill).toBe(call_skill);
    const sub = toSubprocessContext(ctx);
    for (const k of ['_meta', '_x', 'db', 'db_factory', 'call_skill', 'abort_signal', 'channel_registry', 'request']) {
      expect(Object.hasOwn(sub, k), k).toBe(false);
    }
    for (const k of FIXED_CTX_FIELDS) expect(Object.hasOwn(sub, k), k).toBe(true);
    expect(sub.city).toBe('Paris');
    expect(JSON.parse(JSON.stringify(sub))).toEqual(sub);
  });
});

describe('admin proxy-fill (R-ADM-01..03, A-52)', () => {
  it('R-ADM-01, R-ADM-02: actor_is_admin clears exactly the 8 identity keys and keeps name, phone, email', () => {
    const ctx = buildRuntimeContext({ given: { ...PROFILE, actor_is_admin: true }, defaults: DEFAULTS });
    for (const k of ADMIN_CLEARED_KEYS) expect(ctx[k], k).toEqual(k === 'actor_tags' ? [] : '');
    expect(ADMIN_CLEARED_KEYS).toHaveLength(8);
    expect(ctx.actor_name).toBe('张三');
    expect(ctx.actor_phone).toBe('13800000000');
    expect(ctx.actor_email).toBe('z@example.com');
    expect(ctx.raw_input).toBe('帮我报销');
  });

  it('A-52: is_admin (admin session) alone clears nothing', () => {
    const ctx = buildRuntimeContext({ given: { ...PROFILE, is_admin: true }, defaults: DEFAULTS });
    expect(ctx.is_admin).toBe(true);
    expect(ctx.actor_title).toBe('P7');
    expect(ctx.actor_department_path).toBe('/总部/销售中心/销售一部/');
  });

  it('R-ADM-03: the cleared values reach SKILL_CONTEXT and call_skill children', () => {
    const ctx = buildRuntimeContext({ given: { ...PROFILE, actor_is_admin: true }, defaults: DEFAULTS });
    expect(toSubprocessContext(ctx).actor_emp_no).toBe('');
    // A hand-made parent that was never cleared is cleared again in the child.
    const child = callSkillChildContext({ ...PROFILE, actor_is_admin: true }, undefined);
    expect(child.actor_title).toBe('');
    expect(child.actor_emp_no).toBe('');
    expect(child.actor_name).toBe('张三');
  });
});

describe('config section (R-CFG-02, A-45)', () => {
  it('R-CFG-02: each stored value appears in the four places', () => {
    const ctx = buildRuntimeContext({
      given: {},
      defaults: DEFAULTS,
      config: { skill: 'weather', values: { api_token: 'T1', city: 'Paris' } },
    });
    expect((ctx.skill_configs.weather as Record<string, string>).api_token).toBe('T1');
    expect(ctx.skill_configs.api_token).toBe('T1');
    expect(ctx.skill_args.api_token).toBe('T1');
    expect(ctx.api_token).toBe('T1');
    expect(ctx.city).toBe('Paris');
  });

  it('A-45: a parameter named like a platform or fixed key never replaces it at top level', () => {
    const ctx = buildRuntimeContext({
      given: { channel: 'web' },
      defaults: DEFAULTS,
      config: { skill: 's', values: { org_id: 'evil', channel: 'x', emp_no: 'E9', _meta: 'm', ok_param: 'v' } },
    });
    expect(ctx.org_id).toBe('demo');
    expect(ctx.channel).toBe('web');
    expect(Object.hasOwn(ctx, 'emp_no')).toBe(false);
    expect(Object.hasOwn(ctx, '_meta')).toBe(false);
    expect(ctx.ok_param).toBe('v');
    expect(ctx.skill_args.org_id).toBe('evil'); // still visible where it cannot collide
    expect(isFixedOrPlatformKey('org_id')).toBe(true);
    expect(isFixedOrPlatformKey('raw_input')).toBe(true);
    expect(isFixedOrPlatformKey('skill_configs')).toBe(true);
    expect(isFixedOrPlatformKey('_anything')).toBe(true);
    expect(isFixedOrPlatformKey('api_token')).toBe(false);
  });

  it('parameters never come from the given context', () => {
    const ctx = buildRuntimeContext({
      given: { skill_configs: { weather: { api_token: 'forged' } }, skill_args: { a: 1 }, api_token: 'forged', random_key: 1 },
      defaults: DEFAULTS,
    });
    expect(ctx.skill_configs).toEqual({});
    expect(ctx.skill_args).toEqual({});
    expect(Object.hasOwn(ctx, 'api_token')).toBe(false);
    expect(Object.hasOwn(ctx, 'random_key')).toBe(false);
  });
});

describe('cfg lookup (R-CFG-04)', () => {
  const base = { skill_configs: {}, skill_args: {} } as Record<string, unknown>;
  it('R-CFG-04: a blank level-1 value falls through to level 2, and so on down to the environment', () => {
    const ctx = { ...base, skill_configs: { weather: { token: '  ' }, token: 'L2' }, skill_args: { token: 'L3' }, token: 'L4' };
    expect(cfg(ctx, 'token', 'weather', {})).toBe('L2');
    expect(cfg({ ...ctx, skill_configs: { weather: { token: 'L1' }, token: 'L2' } }, 'token', 'weather', {})).toBe('L1');
    expect(cfg({ ...base, skill_args: { token: '' }, token: 'L4' }, 'token', 'weather', {})).toBe('L4');
    expect(cfg({ ...base, skill_args: { token: 'L3' }, token: 'L4' }, 'token', 'weather', {})).toBe('L3');
    expect(cfg({ ...base, token: null }, 'token', 'weather', { token: 'ENV' })).toBe('ENV');
    expect(cfg(base, 'token', 'weather', { token: '   ' })).toBe('');
    expect(cfg(base, 'token', 'weather', {})).toBe('');
    expect(cfg({ ...base, n: 5 }, 'n', 'weather', {})).toBe('5');
    expect(cfg(base, 'constructor', 'weather', {})).toBe('');
  });

  it('R-CFG-04: works on a built context', () => {
    const ctx = buildRuntimeContext({ given: {}, defaults: DEFAULTS, config: { skill: 'weather', values: { city: 'Paris' } } });
    expect(cfg(ctx, 'city', 'weather', {})).toBe('Paris');
    expect(cfg(ctx, 'city', 'other', {})).toBe('Paris'); // flat copies
  });
});

describe('org and department helpers (R-ORG-03, R-DEPT)', () => {
  it('R-ORG-03: trimmed org_id, else r_<role_id> (whitespace-only org counts as empty)', () => {
    expect(pseudoOrgId({ org_id: ' acme ', role_id: 'r1' })).toBe('acme');
    expect(pseudoOrgId({ org_id: '   ', role_id: 'r1' })).toBe('r_r1');
    expect(pseudoOrgId({ org_id: '', role_id: 'r1' })).toBe('r_r1');
    expect(pseudoOrgId({})).toBe('r_');
  });

  it('R-DEPT-01, R-DEPT-02, R-DEPT-04: /Top/…/Self/ with the own department last; no segments → ""', () => {
    expect(departmentPath(['总部', '销售中心', '销售一部'])).toBe('/总部/销售中心/销售一部/');
    expect(currentDepartment('/总部/销售中心/销售一部/')).toBe('销售一部');
    expect(departmentPath([])).toBe('');
    expect(departmentPath(['  '])).toBe('');
    expect(currentDepartment('')).toBe('');
    expect(departmentPath(['A/B'])).toBe('/A／B/');
  });

  it('R-DEPT-07: more than 20 levels are truncated from the top, keeping the own department', () => {
    const segs = Array.from({ length: 25 }, (_, i) => `d${i}`);
    const p = departmentPath(segs);
    const parts = p.split('/').filter(Boolean);
    expect(parts).toHaveLength(20);
    expect(parts[0]).toBe('d5');
    expect(parts[19]).toBe('d24');
  });

  it('R-DEPT-09: deptPathContains matches whole segments only', () => {
    const p = '/总部/销售中心部/销售一部/';
    expect(deptPathContains(p, '/销售中心/')).toBe(false);
    expect(deptPathContains(p, '销售中心')).toBe(false);
    expect(deptPathContains(p, '销售中心部')).toBe(true);
    expect(deptPathContains(p, '/销售中心部/销售一部/')).toBe(true);
    expect(deptPathContains(p, '')).toBe(false);
    expect(deptPathContains('', '总部')).toBe(false);
  });
});

describe('identity distrust (R-ID-01)', () => {
  it('R-ID-01: stripIdentityFromInput removes forgeable identity fields without touching the input', () => {
    const input = { emp_no: 'X', org_id: 'Y', actor_title: 'CEO', team_role: 'owner', query: 'q', data: { emp_no: 'nested' } };
    const { input: clean, removed } = stripIdentityFromInput(input);
    expect(clean).toEqual({ query: 'q', data: { emp_no: 'nested' } });
    expect(removed).toEqual(['emp_no', 'org_id', 'actor_title', 'team_role']);
    expect(input.emp_no).toBe('X');
  });
});

describe('call_skill child context (R-CALL-05..08, A-21)', () => {
  const parentCall: CallSkill = async () => ({ parent: true });
  const childCall: CallSkill = async () => ({ child: true });
  const parent = buildRuntimeContext({
    given: {
      ...PROFILE,
      channel: 'telegram',
      user_id: 'u1',
      team_id: 't1',
      team_role: 'admin',
      allow_sql: false,
      emp_no: 'E001',
      attachments: [{ type: 'image', local_path: '/ws/a.png' }],
      _meta: { secret_trace: 1 },
    },
    defaults: DEFAULTS,
    config: { skill: 'caller', values: { caller_token: 'CALLER-SECRET', shared: 'from-caller' } },
    inProcess: { call_skill: parentCall, db: { query: async () => ({ rows: [], rowCount: 0 }) } },
    clock,
  });
  const freshDb = { query: async () => ({ rows: [], rowCount: 0 }) };
  const child = callSkillChildContext(
    parent,
    { skill: 'callee', values: { callee_key: 'CK', shared: 'from-callee' } },
    { db: freshDb, call_skill: childCall },
  );

  it('R-CALL-06 / A-21: the child holds exactly the whitelist, empty non-whitelisted fixed keys, its own config and fresh objects', () => {
    expect(Object.keys(child).sort()).toEqual(
      [
        // _CALL_PASS_BASE
        'role_id',
        'session_id',
        'user_id',
        'team_id',
        'org_id',
        'team_role',
        'is_admin',
        'channel',
        'chat_mode',
        'workspace_dir',
        'channel_registry',
        'db_factory',
        'abort_signal',
        'allow_sql',
        // ACTOR_KEYS + EXTRA_KEYS
        'actor_name',
        'actor_emp_no',
        'actor_department',
        'actor_department_path',
        'actor_position',
        'actor_title',
        'actor_phone',
        'actor_email',
        'actor_tags',
        'actor_key',
        'actor_id',
        'actor_is_admin',
        // fixed keys present, empty
        'raw_input',
        'attachments',
        'triggered_at',
        'triggered_at_str',
        // the callee's own config (R-CALL-05) and fresh in-process objects
        'skill_configs',
        'skill_args',
        'callee_key',
        'shared',
        'db',
        'call_skill',
        'request',
        'skill_config',
      ].sort(),
    );
    expect(child.raw_input).toBe('');
    expect(child.attachments).toEqual([]);
    expect(child.triggered_at).toBe(0);
    expect(child.triggered_at_str).toBe('');
    expect(child.actor_emp_no).toBe('E001');
    expect(child.actor_department_path).toBe('/总部/销售中心/销售一部/');
    expect(child.channel).toBe('telegram');
    expect(child.team_role).toBe('admin');
    expect(child.user_id).toBe('u1');
    expect(child.db).toBe(freshDb);
    expect(child.call_skill).toBe(childCall);
    expect(child.request).toBeNull();
  });

  it('R-CALL-05, R-CALL-07: no emp_no, no caller config, no _ keys; the callee sees its own parameters', () => {
    expect(Object.hasOwn(child, 'emp_no')).toBe(false);
    expect(Object.hasOwn(child, 'caller_token')).toBe(false);
    expect(Object.hasOwn(child, '_meta')).toBe(false);
    expect(JSON.stringify(toSubprocessContext(child))).not.toContain('CALLER-SECRET');
    expect(child.skill_configs).toEqual({ callee: { callee_key: 'CK', shared: 'from-callee' }, callee_key: 'CK', shared: 'from-callee' });
    expect(child.shared).toBe('from-callee');
  });

  it('R-CALL-08: allow_sql false in the caller stays false; a missing value never reopens to true', () => {
    expect(parent.allow_sql).toBe(false);
    expect(child.allow_sql).toBe(false);
    const { allow_sql: _drop, ...noSql } = parent;
    expect(callSkillChildContext(noSql, undefined).allow_sql).toBe(false);
    expect(callSkillChildContext({ ...parent, allow_sql: true }, undefined).allow_sql).toBe(true);
  });
});
