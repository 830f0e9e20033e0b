import { describe, expect, it } from 'vitest';
import { executeSkill } from '../../src/executor/index.ts';
import type { CallSkill } from '../../src/runtime/types.ts';
import { execOptions, loadFixture, makeCtx, tempWorkspace } from './exec-helpers.ts';

describe('Python bridge (A-04, D-15, R-PCTX-11)', () => {
  it('D-15, R-ENTRY-03: async def execute(input_data, runtime_context=None) still receives the context; db/db_factory are None', async () => {
    const ws = await tempWorkspace();
    const skill = await loadFixture('py_echo');
    expect(skill.execType).toBe('PYTHON_BRIDGE');
    const calls: Array<[string, unknown, unknown]> = [];
    const callSkill: CallSkill = async (name, input, options) => {
      calls.push([name, input, options]);
      return { ok: true, doubled: Number((input as { x: number }).x) * 2 };
    };
    const ctx = makeCtx(ws, { _meta: { secret: 1 }, db: { live: true }, call_skill: async () => ({}) });
    const opts = execOptions({ callSkill, secretEnv: { API_TOKEN: 'tok-py-123456' } });
    const outcome = await executeSkill(skill, { symbol: 'AAPL' }, ctx, opts);
    expect(outcome.kind).toBe('returned');
    const v = (outcome as { value: Record<string, unknown> }).value;
    expect(v.has_context).toBe(true);
    expect(v.input).toEqual({ symbol: 'AAPL' });
    expect(v.channel).toBe('cli');
    expect(v.db_is_none).toBe(true);
    expect(v.db_factory_is_none).toBe(true);
    expect(v.keys).toEqual(expect.arrayContaining(['workspace_dir', 'raw_input', 'call_skill', 'db', 'db_factory', 'actor_emp_no']));
    expect(v.keys).not.toContain('_meta');
    expect(v.cwd).toBe(skill.dir);
    // R-SUB-07 for the bridge: secrets as env; gateway secrets not inherited.
    expect(v.api_token_env).toBe('tok-py-123456');
    expect(v.gateway_secret_env).toBeNull();
    // call_skill round trip through the gateway.
    expect(v.called).toEqual({ ok: true, doubled: 2 });
    expect(calls).toEqual([['other', { x: 1 }, {}]]);
  });

  it('R-CALL-10: without a callSkill service the bridge answers a failure object, never raises', async () => {
    const ws = await tempWorkspace();
    const outcome = await executeSkill(await loadFixture('py_echo'), {}, makeCtx(ws), execOptions());
    expect(outcome.kind).toBe('returned');
    expect((outcome as { value: Record<string, unknown> }).value.called).toEqual({
      ok: false,
      error: 'call_skill unavailable',
      skill: 'other',
    });
  });

  it("A-04: the handler's own prints (sys.stdout and fd 1) do not corrupt the protocol; non-JSON values become strings", async () => {
    const ws = await tempWorkspace();
    const opts = execOptions();
    const outcome = await executeSkill(await loadFixture('py_prints'), { n: 7 }, makeCtx(ws), opts);
    expect(outcome).toEqual({ kind: 'returned', value: { ok: true, n: 7, when: '2024-01-02' } });
    const log = opts.logText();
    expect(log).toContain('debug: starting');
    expect(log).toContain('raw fd 1 write');
  });

  it('R-ENTRY-01, R-ENTRY-02: entry lookup order and one-parameter binding (run before main; sync; non-dict returned as is)', async () => {
    const ws = await tempWorkspace();
    const outcome = await executeSkill(await loadFixture('py_sync'), { word: 'x' }, makeCtx(ws), execOptions());
    expect(outcome).toEqual({ kind: 'returned', value: 'plain x' });
  });

  it('R-OUT-09: a raising Python handler is a failure with the exception type and message', async () => {
    const ws = await tempWorkspace();
    const opts = execOptions();
    const outcome = await executeSkill(await loadFixture('py_raises'), { symbol: 'QQ' }, makeCtx(ws), opts);
    expect(outcome.kind).toBe('failed');
    expect((outcome as { error: string }).error).toBe('skill "py_raises" failed: ValueError: bad symbol QQ');
    expect(opts.logText()).toContain('Traceback');
  });

  it('R-ENTRY-07, A-04: a handler raising SystemExit is reported as CLI-shaped, not as a result', async () => {
    const ws = await tempWorkspace();
    const outcome = await executeSkill(await loadFixture('py_sysexit'), {}, makeCtx(ws), execOptions());
    expect(outcome).toMatchObject({ kind: 'failed', error_type: 'config', non_retriable: true });
    expect((outcome as { error: string }).error).toMatch(
      /^skill "py_sysexit": the handler raised SystemExit\(2\); the handler looks like a command-line script/,
    );
  });

  it('R-WALL-01: the bridge process is killed at the wall', async () => {
    const ws = await tempWorkspace();
    const skill = await loadFixture('py_echo');
    // call_skill never answers: the handler waits until the wall kills the bridge.
    const callSkill: CallSkill = () => new Promise(() => undefined);
    const outcome = await executeSkill(skill, {}, makeCtx(ws), execOptions({ callSkill, wallSec: 1 }));
    expect(outcome).toMatchObject({ kind: 'failed', error: 'skill "py_echo" timed out after 1 s', error_type: 'transient' });
  });
});
