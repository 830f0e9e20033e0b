import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveWalls, skillWallSec } from '../../src/config/walls.ts';
import {
  bindArgs,
  buildArgv,
  childEnv,
  declaredParamCount,
  isGatewaySecretVar,
  mediaKindOf,
  parseSubprocessStdout,
  subprocessTimeoutFor,
  wallMs,
} from '../../src/executor/index.ts';
import { commandFor } from '../../src/executor/subprocess.ts';
import { secretScrubber } from '../../src/executor/child-env.ts';
import type { SkillRecord } from '../../src/registry/types.ts';
import { loadFixture, makeCtx, tempWorkspace } from './exec-helpers.ts';

describe('argv from input (A-05, R-SUBCMD-04)', () => {
  it('A-05: --key value per top-level field; true is a bare flag, false/null omitted, arrays repeated, objects JSON', () => {
    const argv = buildArgv({ name: 'Ada', n: 3, loud: true, quiet: false, none: null, tag: ['a', 'b'], opts: { x: 1 } });
    expect(argv).toEqual(['--name', 'Ada', '--n', '3', '--loud', '--tag', 'a', '--tag', 'b', '--opts', '{"x":1}']);
  });

  it('R-SUBCMD-04: _subcommand goes to argv[0] and is not repeated as a flag', () => {
    expect(buildArgv({ name: 'x', _subcommand: 'greet' })).toEqual(['greet', '--name', 'x']);
  });

  it('R-SUB-07: secret parameters and values revealing a secret never reach argv', () => {
    const argv = buildArgv(
      { symbol: 'AAPL', api_token: 'tok-123456', note: 'key is tok-123456 ok', other: 'fine' },
      { omitKeys: ['api_token'], secretValues: ['tok-123456'] },
    );
    expect(argv).toEqual(['--symbol', 'AAPL', '--other', 'fine']);
  });
});

describe('stdout parsing order (R-SUB-03, A-06)', () => {
  it('R-SUB-03 (1): the whole stdout as JSON, even across lines', () => {
    expect(parseSubprocessStdout('{\n "a": 1\n}\n')).toEqual({ a: 1 });
  });

  it('R-SUB-03 (2): otherwise the last non-empty line as JSON', () => {
    expect(parseSubprocessStdout('loading\nprogress 50%\n{"ok":true}\n\n')).toEqual({ ok: true });
  });

  it('R-SUB-03 (3), A-06: a last line naming an existing media file (absolute or workspace-relative)', async () => {
    const ws = await tempWorkspace();
    await mkdir(join(ws, 'out'));
    await writeFile(join(ws, 'out', 'chart.png'), 'x');
    await writeFile(join(ws, 'clip.mp4'), 'x');
    expect(parseSubprocessStdout(`done\n${join(ws, 'out', 'chart.png')}\n`, { workspaceDir: ws })).toEqual({
      local_path: join(ws, 'out', 'chart.png'),
      media: 'image',
    });
    expect(parseSubprocessStdout('clip.mp4', { workspaceDir: ws })).toEqual({ local_path: join(ws, 'clip.mp4'), media: 'video' });
    // Missing file, escaping path, unknown extension: fall through to (4).
    expect(parseSubprocessStdout('missing.png', { workspaceDir: ws })).toEqual({ output: 'missing.png' });
    expect(parseSubprocessStdout('../etc/passwd.txt', { workspaceDir: ws })).toEqual({ output: '../etc/passwd.txt' });
    expect(mediaKindOf('a.MP3')).toBe('audio');
    expect(mediaKindOf('a.pdf')).toBe('file');
    expect(mediaKindOf('a.exe')).toBeNull();
  });

  it('R-SUB-03 (4): anything else is {output: raw stdout}', () => {
    expect(parseSubprocessStdout('hello\nworld')).toEqual({ output: 'hello\nworld' });
    expect(parseSubprocessStdout('')).toEqual({ output: '' });
  });
});

describe('child environment (R-SUB-01, R-SUB-02, R-SUB-07)', () => {
  it('R-SUB-02: SKILL_CONTEXT drops db, db_factory, call_skill, abort_signal and _ keys; gateway secrets are not inherited', async () => {
    const ctx = makeCtx('/tmp/ws', { db: { live: true }, db_factory: () => null, call_skill: async () => ({}), _meta: { x: 1 } });
    const env = childEnv(
      {
        PATH: '/bin',
        HOME: '/root',
        SKILLGATE_ADMIN_TOKEN: 'adm',
        DATABASE_URL: 'postgres://u:p@h/db',
        TELEGRAM_BOT_TOKEN: 't',
        MY_APP_SECRET: 's',
        LLM_API_KEY: 'k',
      },
      { input: { a: 1 }, ctx, secretEnv: { API_TOKEN: 'sek' } },
    );
    const sent = JSON.parse(env.SKILL_CONTEXT!);
    for (const k of ['db', 'db_factory', 'call_skill', 'abort_signal', '_meta', 'channel_registry', 'request'])
      expect(sent).not.toHaveProperty(k);
    expect(sent.workspace_dir).toBe('/tmp/ws');
    expect(JSON.parse(env.SKILL_INPUT!)).toEqual({ a: 1 });
    expect(env.API_TOKEN).toBe('sek');
    expect(env.PATH).toBe('/bin');
    expect(env.HOME).toBe('/root');
    for (const k of ['SKILLGATE_ADMIN_TOKEN', 'DATABASE_URL', 'TELEGRAM_BOT_TOKEN', 'MY_APP_SECRET', 'LLM_API_KEY'])
      expect(env).not.toHaveProperty(k);
    expect(isGatewaySecretVar('FEISHU_APP_ID')).toBe(true);
    expect(isGatewaySecretVar('LANG')).toBe(false);
  });

  it('R-SUB-07: the scrubber removes secret values from text', () => {
    const scrub = secretScrubber(['tok-abcdef', 'xy']);
    expect(scrub('using tok-abcdef now')).toBe('using [redacted] now');
    expect(scrub('xy')).toBe('[redacted]');
    expect(scrub('xyz')).toBe('xyz');
  });
});

describe('the one binder (D-15, R-ENTRY-02, R-ENTRY-03)', () => {
  it('D-15: declared parameters are counted including defaulted ones; fn.length alone would say 1', () => {
    const f = async function execute(input: unknown, ctx: unknown = {}) {
      return [input, ctx];
    };
    expect(f.length).toBe(1);
    expect(declaredParamCount(f)).toBe(2);
    expect(declaredParamCount((a: unknown, b = 2) => [a, b])).toBe(2);
    expect(declaredParamCount(() => 0)).toBe(0);
    const obj = {
      async execute(input: unknown, { a }: { a?: number } = {}) {
        return [input, a];
      },
    };
    expect(declaredParamCount(obj.execute)).toBe(2);
    expect(declaredParamCount((...rest: unknown[]) => rest)).toBe(Infinity);
    expect(declaredParamCount(Math.max)).toBe(Math.max.length);
  });

  it('R-ENTRY-02: 0 → f(), 1 → f(input), 2+ → f(input, ctx)', () => {
    expect(bindArgs(0, 'i', 'c')).toEqual([]);
    expect(bindArgs(1, 'i', 'c')).toEqual(['i']);
    expect(bindArgs(2, 'i', 'c')).toEqual(['i', 'c']);
    expect(bindArgs(Infinity, 'i', 'c')).toEqual(['i', 'c']);
  });
});

describe('walls and timeouts (R-SUB-06, R-WALL-02, D-06, D-16)', () => {
  const record = (fm: { wallSec?: number; timeoutSec?: number }) => ({ frontmatter: fm }) as unknown as SkillRecord;

  it('R-SUB-06, D-06: subprocess timeout is the declared wall_sec/timeout_sec, else 60 s, never above the wall', () => {
    expect(subprocessTimeoutFor(record({}), 600)).toBe(60);
    expect(subprocessTimeoutFor(record({ timeoutSec: 30 }), 600)).toBe(30);
    expect(subprocessTimeoutFor(record({ wallSec: 900 }), 600)).toBe(600);
    expect(subprocessTimeoutFor(record({}), 20)).toBe(20);
  });

  it('R-WALL-02: a declared wall above the hard cap is capped at 1800 s', () => {
    expect(skillWallSec(resolveWalls({}), { wallSec: 5000 })).toBe(1800);
  });

  it('D-16: a call without a usable wall still gets the 1800 s hard cap', () => {
    expect(wallMs(Infinity)).toBe(1_800_000);
    expect(wallMs(0)).toBe(1_800_000);
    expect(wallMs(2)).toBe(2000);
  });
});

describe('command lines per exec type (R-FORM-05)', () => {
  it('R-FORM-05: RUBY runs ruby <config>, GO runs go run <file.go> or the author-built executable directly', async () => {
    const ruby = await loadFixture('ruby_skill');
    expect(await commandFor(ruby, ['--a', '1'])).toEqual({ file: 'ruby', args: [join(ruby.dir, 'main.rb'), '--a', '1'] });
    const go = await loadFixture('go_prebuilt');
    expect(await commandFor(go, [])).toEqual({ file: join(go.dir, 'bin', 'report'), args: [] });
    const goSrc = { ...go, exec: { type: 'GO' as const, config: join(go.dir, 'main.go') } };
    expect(await commandFor(goSrc, ['x'])).toEqual({ file: 'go', args: ['run', join(go.dir, 'main.go'), 'x'] });
    const inline = await loadFixture('inline_sh');
    expect((await commandFor(inline, ['--a', 'b']))?.args.slice(0, 1)).toEqual(['-c']);
    expect((await commandFor(inline, ['--a', 'b']))?.args.slice(2)).toEqual(['inline_sh', '--a', 'b']);
  });
});
