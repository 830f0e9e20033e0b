import { cp, mkdtemp, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executeSkill } from '../../src/executor/index.ts';
import { loadSkill } from '../../src/registry/load-skill.ts';
import { EXEC_FIXTURES, eventually, execOptions, loadFixture, makeCtx, tempWorkspace } from './exec-helpers.ts';

async function run(name: string, input: Record<string, unknown> = {}, ctxOver: Record<string, unknown> = {}, optsOver = {}) {
  const ws = await tempWorkspace();
  const skill = await loadFixture(name);
  const opts = execOptions(optsOver);
  const outcome = await executeSkill(skill, input, makeCtx(ws, ctxOver), opts);
  return { outcome, ws, opts };
}

function value(outcome: { kind: string }): Record<string, unknown> {
  expect(outcome).toMatchObject({ kind: 'returned' });
  return (outcome as unknown as { value: Record<string, unknown> }).value;
}

describe('in-process handlers (R-FORM-05, R-FORM-06, R-ENTRY-01..05)', () => {
  it('R-FORM-06: a .ts handler loaded through tsx gets input and ctx as function arguments', async () => {
    const { outcome } = await run('ts_echo', { symbol: 'AAPL' }, { call_skill: async () => ({ ok: true }) });
    const v = value(outcome);
    expect(v.lang).toBe('ts');
    expect(v.input).toEqual({ symbol: 'AAPL' });
    expect(v.args).toBe(2);
    const types = v.types as Record<string, string>;
    expect(types.workspace_dir).toBe('string');
    expect(types.call_skill).toBe('function');
    expect(types.abort_signal).toBe('AbortSignal');
  });

  it('R-FORM-05: .js and .mjs handlers run in process too', async () => {
    const js = value((await run('js_echo', { a: 1 })).outcome);
    expect(js).toMatchObject({ lang: 'js', input: { a: 1 }, args: 2 });
    expect(js.keys).toContain('raw_input');
    const mjs = value((await run('mjs_echo', { b: 2 })).outcome);
    expect(mjs).toEqual({ lang: 'mjs', input: { b: 2 }, hasCtx: true });
  });

  it('R-ENTRY-02: arity 0 → f(), 1 → f(input), 2 → f(input, ctx)', async () => {
    expect(value((await run('arity0', { x: 1 })).outcome)).toEqual({ args: 0 });
    expect(value((await run('arity1', { x: 1 })).outcome)).toEqual({ args: 1, input: { x: 1 } });
    expect(value((await run('arity2', { x: 1 })).outcome)).toEqual({ args: 2, input: { x: 1 }, channel: 'cli' });
  });

  it('R-ENTRY-03, D-15: execute(input, ctx = {}) still receives the context', async () => {
    const { outcome, ws } = await run('default_ctx', { x: 1 });
    expect(value(outcome)).toEqual({ args: 2, workspace_dir: ws, channel: 'cli' });
  });

  it('R-ENTRY-01: a module exporting run and main has run called', async () => {
    expect(value((await run('run_and_main', { q: 1 })).outcome)).toEqual({ called: 'run', input: { q: 1 } });
  });

  it('R-FORM-09, R-ENTRY-05: a sync entry sees ctx.db and ctx.db_factory as null', async () => {
    const fakeDb = { tag: 'live-session' };
    const { outcome } = await run('sync_handler', {}, { db: fakeDb, db_factory: async () => null, call_skill: async () => ({}) });
    expect(value(outcome)).toEqual({ dbIsNull: true, dbFactoryIsNull: true, callSkill: 'function', abortSignal: true });
  });

  it('R-FORM-07, R-PCTX-11: an async entry receives db, db_factory and call_skill as given', async () => {
    const calls: unknown[] = [];
    const { outcome } = await run(
      'async_db',
      {},
      {
        db: { tag: 'live-session' },
        db_factory: async () => null,
        call_skill: async (name: string, input: unknown) => {
          calls.push([name, input]);
          return { ok: true, echoed: input };
        },
      },
    );
    expect(value(outcome)).toEqual({ dbTag: 'live-session', dbFactory: 'function', called: { ok: true, echoed: { x: 1 } } });
    expect(calls).toEqual([['other', { x: 1 }]]);
  });

  it('R-ENTRY-04: a non-object return value is handed back as is (the envelope wraps it)', async () => {
    expect((await run('returns_string')).outcome).toEqual({ kind: 'returned', value: 'hi' });
  });

  it('R-OUT-09: a throwing handler is a failure carrying its message and the skill name', async () => {
    const { outcome } = await run('throws', { symbol: 'ZZZ' });
    expect(outcome.kind).toBe('failed');
    const err = (outcome as { error: string }).error;
    expect(err).toContain('symbol ZZZ is not listed');
    expect(err).toContain('"throws"');
  });

  it('R-OUT-09: a handler whose imports fail at run time is a configuration failure naming the file', async () => {
    const { outcome } = await run('import_fails');
    expect(outcome).toMatchObject({ kind: 'failed', error_type: 'config' });
    expect((outcome as { error: string }).error).toMatch(/^skill "import_fails": cannot load handler\.ts: .*missing-helper/);
  });

  it('A-04, R-ENTRY-07: process.exit inside a handler fails the call as CLI-shaped and does not stop the process', async () => {
    const { outcome } = await run('exits', {});
    expect(outcome).toMatchObject({ kind: 'failed', error_type: 'config', non_retriable: true });
    expect((outcome as { error: string }).error).toMatch(/process\.exit\(3\).*command-line script/);
    // Still alive, and process.exit outside handler calls is the original again in effect:
    // the next call of the same handler with valid input works.
    expect(value((await run('exits', { name: 'Ada' })).outcome)).toEqual({ hello: 'Ada' });
  });

  it('R-WALL-01, R-WALL-05: on timeout the call fails and the handler sees abort_signal fire', async () => {
    const { outcome, ws } = await run('slow_abort', { marker: 'timeout.txt' }, {}, { wallSec: 0.3 });
    expect(outcome).toMatchObject({ kind: 'failed', error_type: 'transient' });
    expect((outcome as { error: string }).error).toMatch(/skill "slow_abort" timed out after 0\.3 s/);
    expect(
      await eventually(() =>
        stat(join(ws, 'timeout.txt')).then(
          () => true,
          () => false,
        ),
      ),
    ).toBe(true);
  });

  it('R-WALL-05: the caller abort (user stop) fires the handler signal; its answer of what it did so far is kept', async () => {
    const ac = new AbortController();
    const ws = await tempWorkspace();
    const skill = await loadFixture('slow_abort');
    const pending = executeSkill(skill, { marker: 'stop.txt' }, makeCtx(ws), execOptions({ abortSignal: ac.signal }));
    ac.abort('user pressed stop');
    const outcome = await pending;
    expect(outcome).toEqual({ kind: 'returned', value: { stopped: true } });
    expect(await readFile(join(ws, 'stop.txt'), 'utf8')).toBe('stopped');
  });

  it('R-WALL-05: a handler that ignores the stop fails the call as stopped, without waiting for it', async () => {
    const ac = new AbortController();
    const ws = await tempWorkspace();
    const skill = await loadFixture('ignores_abort');
    const pending = executeSkill(skill, {}, makeCtx(ws), execOptions({ abortSignal: ac.signal }));
    ac.abort('user pressed stop');
    const outcome = await pending;
    expect(outcome).toMatchObject({ kind: 'failed', details: { aborted: true } });
    expect((outcome as { error: string }).error).toBe('skill "ignores_abort" was stopped (user pressed stop)');
  });

  it('each call sees the current handler file (edited between calls)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'skillgate-edit-'));
    const dir = join(root, 'arity1');
    await cp(join(EXEC_FIXTURES, 'arity1'), dir, { recursive: true });
    const skill = await loadSkill(dir, { dir: root, source: 'shared' });
    const opts = execOptions();
    const ctx = makeCtx(root);
    expect(value(await executeSkill(skill, { v: 1 }, ctx, opts))).toEqual({ args: 1, input: { v: 1 } });
    const file = join(dir, 'handler.ts');
    await writeFile(file, 'export function execute(input: { v: number }) { return { edited: true, v: input.v }; }\n');
    const later = new Date(Date.now() + 5000);
    await utimes(file, later, later);
    expect(value(await executeSkill(skill, { v: 2 }, ctx, opts))).toEqual({ edited: true, v: 2 });
  });
});
