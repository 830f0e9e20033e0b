import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { executeSkill } from '../../src/executor/index.ts';
import { eventually, execOptions, loadFixture, makeCtx, pidAlive, tempWorkspace } from './exec-helpers.ts';

type Returned = { kind: 'returned'; value: Record<string, unknown> };

function returned(outcome: unknown): Record<string, unknown> {
  expect(outcome).toMatchObject({ kind: 'returned' });
  return (outcome as Returned).value;
}

const savedEnv = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

describe('subprocess skills (R-SUB-01..07, R-FORM-06, A-05)', () => {
  it('R-SUB-01, R-SUB-02, R-FORM-07: a shell child gets SKILL_INPUT and SKILL_CONTEXT; the context has no db, db_factory, call_skill or _ keys', async () => {
    const ws = await tempWorkspace();
    const skill = await loadFixture('sh_echo');
    const ctx = makeCtx(ws, {
      db: { live: true },
      db_factory: async () => null,
      call_skill: async () => ({}),
      _meta: { trace: 'x' },
      _internal: 1,
    });
    const v = returned(await executeSkill(skill, { city: 'Paris', days: 3 }, ctx, execOptions()));
    expect(v.input).toEqual({ city: 'Paris', days: 3 });
    const sent = v.context as Record<string, unknown>;
    expect(sent.workspace_dir).toBe(ws);
    expect(sent.actor_emp_no).toBe('E001');
    for (const k of ['db', 'db_factory', 'call_skill', 'abort_signal', '_meta', '_internal']) expect(sent).not.toHaveProperty(k);
    // A-05 argv, cwd = the skill folder.
    expect(v.args).toEqual(['--city', 'Paris', '--days', '3', '']);
    expect(v.argc).toBe(4);
    expect(v.pwd).toBe(skill.dir);
  });

  it('R-SUB-03 (2), R-SUB-04, R-SUBCMD-04: a Python CLI logging to stderr with JSON on its last stdout line; _subcommand is argv[0]', async () => {
    const ws = await tempWorkspace();
    const skill = await loadFixture('py_cli');
    expect(skill.execType).toBe('PYTHON');
    const opts = execOptions();
    const v = returned(await executeSkill(skill, { _subcommand: 'greet', name: 'ada', loud: true, tag: ['a', 'b'] }, makeCtx(ws), opts));
    expect(v).toEqual({
      greeting: 'HELLO ADA',
      command: 'greet',
      argv0: 'greet',
      tags: ['a', 'b'],
      input: { _subcommand: 'greet', name: 'ada', loud: true, tag: ['a', 'b'] },
      ctx_channel: 'cli',
    });
    // stderr went to the log, never into the result.
    expect(opts.logText()).toContain('still loading');
    expect(JSON.stringify(v)).not.toContain('loading');
  });

  it('R-SUB-07, R-CFG-09: a secret reaches the child as an env var, never its argv, never a log line; gateway secrets are not inherited', async () => {
    const ws = await tempWorkspace();
    const secret = 'tok-9f8e7d6c5b4a';
    process.env.SKILLGATE_ADMIN_TOKEN = 'admin-should-not-leak';
    process.env.DATABASE_URL = 'postgres://u:pw@h/db';
    process.env.TELEGRAM_BOT_TOKEN = 'tg-should-not-leak';
    process.env.LLM_API_KEY = 'llm-should-not-leak';
    process.env.SG_TEST_KEEP = 'kept';
    const skill = await loadFixture('node_cli');
    expect(skill.secretParams).toEqual(['api_token']);
    const opts = execOptions({ secretEnv: { API_TOKEN: secret } });
    const v = returned(await executeSkill(skill, { symbol: 'AAPL', api_token: secret, limit: 5 }, makeCtx(ws), opts));
    expect(v.argv).toEqual(['--symbol', 'AAPL', '--limit', '5']);
    expect((v.cmdline as string[]).join(' ')).not.toContain(secret);
    expect(v.env).toEqual({
      API_TOKEN: secret,
      SKILLGATE_ADMIN_TOKEN: null,
      DATABASE_URL: null,
      TELEGRAM_BOT_TOKEN: null,
      LLM_API_KEY: null,
      HAS_PATH: true,
      LANG_KEPT: 'kept',
    });
    // The value is still in SKILL_INPUT for the skill to read (R-SUB-01).
    expect((v.input as Record<string, unknown>).api_token).toBe(secret);
    const log = opts.logText();
    expect(log).toContain('node_cli: starting');
    expect(log).not.toContain(secret);
  });

  it('R-SUB-05: a non-zero exit is a failure naming the skill, the code and the last stderr line', async () => {
    const ws = await tempWorkspace();
    const outcome = await executeSkill(await loadFixture('exit3'), {}, makeCtx(ws), execOptions());
    expect(outcome).toMatchObject({
      kind: 'failed',
      error: 'skill "exit3" exited with code 3: fatal: disk on fire',
      details: { exit_code: 3 },
    });
  });

  it('R-SUB-06, R-WALL-01: on timeout the WHOLE process tree is killed (the grandchild too)', async () => {
    const ws = await tempWorkspace();
    const pidfile = join(ws, 'grandchild.pid');
    const outcome = await executeSkill(await loadFixture('sleeper'), { pidfile }, makeCtx(ws), execOptions({ subprocessTimeoutSec: 1 }));
    expect(outcome).toMatchObject({ kind: 'failed', error: 'skill "sleeper" timed out after 1 s', error_type: 'transient' });
    const pid = Number((await readFile(pidfile, 'utf8')).trim());
    expect(pid).toBeGreaterThan(0);
    expect(await eventually(async () => !(await pidAlive(pid)), 3000)).toBe(true);
  });

  it('R-WALL-05: a caller abort kills the subprocess and fails the call', async () => {
    const ws = await tempWorkspace();
    const pidfile = join(ws, 'gc.pid');
    const ac = new AbortController();
    const pending = executeSkill(await loadFixture('sleeper'), { pidfile }, makeCtx(ws), execOptions({ abortSignal: ac.signal }));
    expect(
      await eventually(() =>
        readFile(pidfile, 'utf8').then(
          (t) => t.trim() !== '',
          () => false,
        ),
      ),
    ).toBe(true);
    ac.abort('user pressed stop');
    const outcome = await pending;
    expect(outcome).toMatchObject({ kind: 'failed', error: 'skill "sleeper" was stopped (user pressed stop)' });
    const pid = Number((await readFile(pidfile, 'utf8')).trim());
    expect(await eventually(async () => !(await pidAlive(pid)), 3000)).toBe(true);
  });

  it('D-06: the subprocess timeout never exceeds the wall', async () => {
    const ws = await tempWorkspace();
    const pidfile = join(ws, 'gc.pid');
    const outcome = await executeSkill(
      await loadFixture('sleeper'),
      { pidfile },
      makeCtx(ws),
      execOptions({ subprocessTimeoutSec: 60, wallSec: 1 }),
    );
    expect(outcome).toMatchObject({ kind: 'failed', error: 'skill "sleeper" timed out after 1 s' });
  });

  it('R-SUB-03: whole-stdout JSON, plain text fallback, and a media-path line (A-06)', async () => {
    const ws = await tempWorkspace();
    const opts = execOptions();
    expect(returned(await executeSkill(await loadFixture('inline_pretty'), {}, makeCtx(ws), opts))).toEqual({ a: 1, b: [1, 2] });
    expect(returned(await executeSkill(await loadFixture('inline_plain'), {}, makeCtx(ws), opts))).toEqual({
      output: 'hello\nplain world',
    });
    const media = await loadFixture('media_out');
    expect(returned(await executeSkill(media, { dir: ws, name: 'chart.png' }, makeCtx(ws), opts))).toEqual({
      local_path: join(ws, 'chart.png'),
      media: 'image',
    });
    expect(returned(await executeSkill(media, { dir: ws, name: 'talk.mp3', relative: true }, makeCtx(ws), opts))).toEqual({
      local_path: join(ws, 'talk.mp3'),
      media: 'audio',
    });
  });

  it('R-FORM-05: INLINE_SHELL runs /bin/sh -c with the arguments as $1…; NODE runs a CLI-shaped handler.mjs; GO runs an author-built executable', async () => {
    const ws = await tempWorkspace();
    const opts = execOptions();
    expect(returned(await executeSkill(await loadFixture('inline_sh'), { city: 'Oslo' }, makeCtx(ws), opts))).toEqual({
      first: '--city',
      count: 2,
      zero: 'inline_sh',
    });
    const cli = await loadFixture('cli_main_js');
    expect(cli.execType).toBe('NODE');
    expect(returned(await executeSkill(cli, { x: 'y' }, makeCtx(ws), opts))).toEqual({ ranAs: 'cli', argv: ['--x', 'y'] });
    expect(returned(await executeSkill(await loadFixture('go_prebuilt'), { n: 1 }, makeCtx(ws), opts))).toEqual({
      ran: 'prebuilt',
      args: '--n 1',
    });
  });

  it('a missing interpreter is a configuration failure naming it', async () => {
    const ws = await tempWorkspace();
    process.env.PATH = join(ws, 'empty-bin');
    const outcome = await executeSkill(await loadFixture('ruby_skill'), {}, makeCtx(ws), execOptions());
    expect(outcome).toMatchObject({ kind: 'failed', error: 'skill "ruby_skill": ruby not found', error_type: 'config' });
  });

  it('R-SUB-04: stderr noise never becomes the result even when stdout is empty', async () => {
    const ws = await tempWorkspace();
    const dir = join(ws, 'noise');
    const script = join(ws, 'noise.sh');
    await writeFile(script, 'echo "only logs" >&2\n');
    const skill = { ...(await loadFixture('sh_echo')), name: 'noise', exec: { type: 'SHELL' as const, config: script } };
    const opts = execOptions();
    expect(await executeSkill(skill, {}, makeCtx(dir), opts)).toEqual({ kind: 'returned', value: { output: '' } });
    expect(opts.logText()).toContain('only logs');
  });
});
