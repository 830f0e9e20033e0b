import { channelDeclarations } from '../../adapters/index.ts';
import { envChannels } from '../../src/channel/declaration.ts';
import { describe, expect, it } from 'vitest';
import { loadSettings, decodeSecretKey } from '../../src/config/settings.ts';
import { resolveWalls, skillWallSec } from '../../src/config/walls.ts';
import { parseConfigFile, roleTimeZone } from '../../src/config/file.ts';
import { ConfigError } from '../../src/config/errors.ts';

const cwd = '/srv/sg';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('settings from the environment', () => {
  it('defaults: embedded data dir ./data, port 8787, org demo, role default, web only', () => {
    const s = loadSettings({}, cwd);
    expect(s.databaseUrl).toBeUndefined();
    expect(s.dataDir).toBe('/srv/sg/data');
    expect(s.port).toBe(8787);
    expect(s.orgId).toBe('demo');
    expect(s.roleId).toBe('default');
    expect(s.skillRoots).toHaveLength(2);
    expect(s.skillRoots.map((r) => r.source)).toEqual(['builtin', 'builtin']);
    expect(s.skillRoots[0]!.dir).toMatch(/skills\/?$/);
    expect(s.skillRoots[1]!.dir).toMatch(/skills\/examples\/?$/);
  });

  it('SKILLGATE_SKILL_DIRS adds roots after the built-in ones, in order, empty entries ignored', () => {
    const s = loadSettings({ SKILLGATE_SKILL_DIRS: 'a::/abs/b:' }, cwd);
    expect(s.skillRoots.map((r) => r.dir).slice(2)).toEqual(['/srv/sg/a', '/abs/b']);
  });

  it('a channel is on only when all its declared variables are present', () => {
    expect(envChannels({}, channelDeclarations)).toEqual(['web']);
    expect(envChannels({ TELEGRAM_BOT_TOKEN: 't', FEISHU_APP_ID: 'cli_x' }, channelDeclarations)).toEqual(['web', 'telegram']);
  });

  it('errors name the variable: PORT, DATABASE_URL, SKILLGATE_SECRET_KEY, TOOL_WALL_SEC', () => {
    expect(errorOf(() => loadSettings({ PORT: '70000' }, cwd)).key).toBe('PORT');
    expect(errorOf(() => loadSettings({ DATABASE_URL: 'mysql://x' }, cwd)).key).toBe('DATABASE_URL');
    expect(errorOf(() => loadSettings({ DATABASE_URL: 'postgres://x/y' }, cwd)).key).toBe('SKILLGATE_SECRET_KEY');
    expect(errorOf(() => loadSettings({ SKILLGATE_SECRET_KEY: 'c2hvcnQ=' }, cwd)).key).toBe('SKILLGATE_SECRET_KEY');
    expect(errorOf(() => loadSettings({ TOOL_WALL_SEC: '-5' }, cwd)).key).toBe('TOOL_WALL_SEC');
  });

  it('a valid 32-byte base64 key is decoded', () => {
    const key = Buffer.alloc(32, 9);
    expect(decodeSecretKey(key.toString('base64')).equals(key)).toBe(true);
  });
});

describe('D-06: one wall-clock module', () => {
  it('defaults: TOOL_WALL_SEC 1800, skill 600, cap 1800, chain max(30, tool-30), step = chain, 3 steps, subprocess 60', () => {
    expect(resolveWalls({})).toEqual({
      toolWallSec: 1800,
      skillWallDefaultSec: 600,
      skillWallHardcapSec: 1800,
      chainWallSec: 1770,
      chainStepWallSec: 1770,
      maxConcurrentChainSteps: 3,
      subprocessDefaultSec: 60,
    });
  });

  it('CHAIN_WALL_SEC follows TOOL_WALL_SEC and never drops below 30', () => {
    expect(resolveWalls({ TOOL_WALL_SEC: '40' }).chainWallSec).toBe(30);
    expect(resolveWalls({ TOOL_WALL_SEC: '300' }).chainWallSec).toBe(270);
    expect(resolveWalls({ TOOL_WALL_SEC: '300', CHAIN_STEP_WALL_SEC: '20' }).chainStepWallSec).toBe(20);
  });

  it('R-WALL: declared wall_sec/timeout_sec widen the default up to the hard cap', () => {
    const w = resolveWalls({});
    expect(skillWallSec(w, {})).toBe(600);
    expect(skillWallSec(w, { wallSec: 900 })).toBe(900);
    expect(skillWallSec(w, { timeoutSec: 5000 })).toBe(1800);
    expect(skillWallSec(w, { wallSec: 100, timeoutSec: 200 })).toBe(200);
  });

  it('SKILL_WALL_DEFAULT above SKILL_WALL_HARDCAP is refused', () => {
    expect(errorOf(() => resolveWalls({ SKILL_WALL_DEFAULT: '2000' })).key).toBe('SKILL_WALL_DEFAULT');
  });
});

describe('skillgate.config.yaml', () => {
  const defaults = { orgId: 'demo', roleId: 'default' };

  it('an empty file yields the default role, open, every skill', () => {
    expect(parseConfigFile('', defaults)).toEqual({
      roles: [{ id: 'default', org_id: 'demo', skills: ['*'], access: 'open', allow: [] }],
      accounts: [],
    });
  });

  it('roles and accounts with $VAR substitution and defaults', () => {
    const cfg = parseConfigFile(
      `roles:
  - id: ops
    org_id: acme
    skills: [notify]
    access: allowlist
    allow: ["telegram:42"]
accounts:
  - {channel: telegram, id: ops_bot, role: ops, token: $TG_OPS_TOKEN}
  - {channel: feishu, id: main, app_id: cli_1}
`,
      defaults,
      { TG_OPS_TOKEN: 'secret-value' },
    );
    expect(cfg.roles.map((r) => r.id)).toEqual(['default', 'ops']);
    expect(cfg.roles[1]).toEqual({ id: 'ops', org_id: 'acme', skills: ['notify'], access: 'allowlist', allow: ['telegram:42'] });
    expect(cfg.accounts[0]).toEqual({ channel: 'telegram', id: 'ops_bot', role: 'ops', token: 'secret-value' });
    expect(cfg.accounts[1]!.role).toBe('default');
  });

  it('a role may name the time zone its people read times in; the others keep the organisation zone', () => {
    const cfg = parseConfigFile('roles:\n  - {id: ops, timezone: Asia/Shanghai}\n  - {id: eu}\n', defaults);
    expect(cfg.roles.find((r) => r.id === 'ops')!.timezone).toBe('Asia/Shanghai');
    expect(cfg.roles.find((r) => r.id === 'eu')).not.toHaveProperty('timezone');
    expect(roleTimeZone(cfg, 'ops', { SKILLGATE_TIMEZONE: 'Europe/London' })).toBe('Asia/Shanghai');
    expect(roleTimeZone(cfg, 'eu', { SKILLGATE_TIMEZONE: 'Europe/London' })).toBe('Europe/London');
    expect(roleTimeZone(cfg, 'nobody', { SKILLGATE_TIMEZONE: 'America/New_York' })).toBe('America/New_York');
    const bad = errorOf(() => parseConfigFile('roles:\n  - {id: ops, timezone: Mars/Olympus}\n', defaults));
    expect(bad.key).toBe('roles[0].timezone');
    expect(bad.message).toContain('Mars/Olympus');
  });

  it('errors name the key: bad access, unknown key, unknown role, unset $VAR, bad YAML', () => {
    expect(errorOf(() => parseConfigFile('roles:\n  - {id: a, access: public}\n', defaults)).key).toBe('roles[0].access');
    expect(errorOf(() => parseConfigFile('roles:\n  - {id: a, colour: red}\n', defaults)).key).toBe('roles[0].colour');
    expect(errorOf(() => parseConfigFile('accounts:\n  - {channel: telegram, id: x, role: nope}\n', defaults)).key).toBe(
      'accounts[0].role',
    );
    expect(errorOf(() => parseConfigFile('accounts:\n  - {channel: telegram, id: x, token: $UNSET_VAR_X}\n', defaults, {})).key).toBe(
      'accounts[0].token',
    );
    expect(errorOf(() => parseConfigFile('roles: [\n', defaults)).message).toMatch(/not valid YAML/);
    expect(errorOf(() => parseConfigFile('roles:\n  - {id: a}\n  - {id: a}\n', defaults)).key).toBe('roles[1].id');
  });
});
