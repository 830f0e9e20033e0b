/**
 * The chain runner through the real skill pipeline (R-CHAIN-*), on every engine.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { seedDemoDirectory } from '../../src/identity/index.ts';
import type { ChainServices } from '../../src/chain/skill.ts';
import { chainServices, probeKey, probeState, run, slowState } from './helpers.ts';

describeEachEngine('chain runner', (db) => {
  let services: ChainServices;
  const svc = async () => (services ??= await chainServices(db()));

  it('R-CHAIN-27/28/31/32: {x}, $ctx.x, $steps.a, $steps.a.b.0.name; whole tokens keep their type, embedded ones interpolate', async () => {
    const s = await svc();
    const r = await run(
      s,
      {
        steps: [
          { skill_name: 'lookup_out', alias: 'q', params: {} },
          {
            skill_name: 'echo',
            alias: '回显',
            params: {
              city: '{city}',
              city2: '$ctx.city',
              n: '{n}',
              whole: '$steps.q',
              rows: '$steps.q.data',
              first: '$steps.q.data.0.name',
              total: '$steps.q.total',
              text: 'n={$steps.q.total}; rows={$steps.q.data}; c={city}',
              nested: { deep: ['$steps.q.data.1.qty'] },
            },
          },
        ],
      },
      { input: { city: '上海', n: 7 } },
    );
    expect(r.ok).toBe(true);
    expect(r.failed).toEqual([]);
    expect(r.error).toBe('');
    const got = (r.steps.回显 as { input: Record<string, unknown> }).input;
    expect(got.city).toBe('上海');
    expect(got.city2).toBe('上海');
    expect(got.n).toBe(7);
    expect(got.whole).toMatchObject({
      data: [
        { name: '甲', qty: 2 },
        { name: '乙', qty: 5 },
      ],
      total: 2,
    });
    expect(got.rows).toEqual([
      { name: '甲', qty: 2 },
      { name: '乙', qty: 5 },
    ]);
    expect(got.first).toBe('甲');
    expect(got.total).toBe(2);
    expect(got.text).toBe('n=2; rows=[{"name":"甲","qty":2},{"name":"乙","qty":5}]; c=上海');
    expect(got.nested).toEqual({ deep: [5] });
    expect(r.last).toBe(r.steps.回显);
    expect(typeof r.duration_ms).toBe('number');
  });

  it('R-CHAIN-29/30/33: $prev.x, ?? defaults of every kind, and a missing reference drops the parameter', async () => {
    const s = await svc();
    const r = await run(s, {
      steps: [
        { skill_name: 'lookup_out', alias: 'a' },
        {
          skill_name: 'echo',
          alias: 'b',
          params: {
            prev_total: '$prev.total',
            d_num: '$steps.a.nope ?? 0',
            d_true: '$steps.a.nope ?? true',
            d_null: '{missing_input ?? null}',
            d_str: '$steps.a.nope ?? "无"',
            d_in_text: 'x={$steps.a.nope ?? "y"}',
            gone: '$steps.a.nope',
            gone_text: 'value {$steps.a.nope} here',
            gone_input: '{missing_input}',
            kept: 'plain',
          },
        },
      ],
    });
    expect(r.ok).toBe(true);
    const b = r.steps.b as { input: Record<string, unknown>; keys: string[] };
    expect(b.input).toEqual({ prev_total: 2, d_num: 0, d_true: true, d_null: null, d_str: '无', d_in_text: 'x=y', kept: 'plain' });
    expect(b.keys).not.toContain('gone');
    expect(JSON.stringify(b)).not.toContain('MISSING');
  });

  it('R-CHAIN-11: on_fail abort (default) stops the chain, cancels siblings of the layer and runs no later layer', async () => {
    const s = await svc();
    const key = probeKey();
    const r = await run(s, {
      steps: [
        { skill_name: 'slow', alias: 'sibling', params: { run_id: key } },
        { skill_name: 'fail', alias: 'bad', params: { reason: 'abort-me' } },
        { skill_name: 'probe', alias: 'later', params: { run_id: key, tag: 'later', value: '$steps.bad' } },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.failed).toEqual(['bad']);
    expect(r.error).toContain('boom: abort-me');
    expect(r.steps).toEqual({});
    expect(probeState(key).events).toEqual([]);
    await expect.poll(() => slowState(key)).toContain('saw_abort');
  });

  it('R-CHAIN-12: on_fail skip leaves no entry, the downstream parameter is not passed, ok is false', async () => {
    const s = await svc();
    const r = await run(s, {
      steps: [
        { skill_name: 'fail', alias: 'a', on_fail: 'skip' },
        { skill_name: 'echo', alias: 'b', params: { from_a: '$steps.a.value', other: 1 } },
      ],
    });
    expect(r.failed).toEqual(['a']);
    expect(r.ok).toBe(false);
    expect(Object.keys(r.steps)).toEqual(['b']);
    expect((r.steps.b as { input: unknown }).input).toEqual({ other: 1 });
    expect(r.last).toBe(r.steps.b);
  });

  it('R-CHAIN-13/14: on_fail continue stores default_value (JSON string parsed; scalars wrapped)', async () => {
    const s = await svc();
    const r = await run(s, {
      steps: [
        { skill_name: 'fail', alias: 'a', on_fail: 'continue', default_value: '{"value": 42}' },
        { skill_name: 'fail', alias: 'b', on_fail: 'continue', default_value: 'x' },
        { skill_name: 'fail', alias: 'c', on_fail: 'continue', default_value: [1] },
        { skill_name: 'echo', alias: 'd', params: { a: '$steps.a.value', b: '$steps.b.value', c: '$steps.c.0' } },
      ],
    });
    expect(r.failed.sort()).toEqual(['a', 'b', 'c']);
    expect(r.ok).toBe(false);
    expect(r.steps.a).toEqual({ value: 42 });
    expect(r.steps.b).toMatchObject({ success: false, value: 'x' });
    expect((r.steps.b as { error: string }).error).toContain('boom');
    expect((r.steps.d as { input: unknown }).input).toEqual({ a: 42, b: 'x', c: 1 });
  });

  it('R-CHAIN-15: an empty skill_name is a step failure handled by on_fail', async () => {
    const s = await svc();
    const r = await run(s, {
      steps: [
        { skill_name: '', alias: 'a', on_fail: 'continue', default_value: { v: 1 } },
        { skill_name: 'echo', alias: 'b' },
      ],
    });
    expect(r.failed).toEqual(['a']);
    expect(r.steps.a).toEqual({ v: 1 });
    expect(r.steps.b).toBeDefined();
  });

  it('R-CHAIN-36: six independent steps — the highest number observed running at once is exactly 3', async () => {
    const s = await svc();
    const key = probeKey();
    const steps = Array.from({ length: 6 }, (_, i) => ({
      skill_name: 'probe',
      alias: `p${i}`,
      params: { run_id: key, tag: `p${i}`, hold_until: 3 },
    }));
    const r = await run(s, { steps });
    expect(r.ok).toBe(true);
    expect(Object.keys(r.steps).sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    expect(probeState(key).max).toBe(3);
  });

  it('R-CHAIN-35: a dependent step starts only after the step it references finished', async () => {
    const s = await svc();
    const key = probeKey();
    const r = await run(s, {
      steps: [
        { skill_name: 'probe', alias: 'b', params: { run_id: key, tag: 'b', value: '$steps.a.tag' } },
        { skill_name: 'probe', alias: 'a', params: { run_id: key, tag: 'a' } },
      ],
    });
    expect(r.ok).toBe(true);
    expect(probeState(key).events).toEqual(['start:a', 'finish:a', 'start:b', 'finish:b']);
    expect((r.steps.b as { value: unknown }).value).toBe('a');
  });

  it('R-CHAIN-37: a cycle degrades to sequential order without throwing', async () => {
    const s = await svc();
    const key = probeKey();
    const r = await run(s, {
      steps: [
        { skill_name: 'probe', alias: 'x', params: { run_id: key, tag: 'x', value: '$steps.y.tag' } },
        { skill_name: 'probe', alias: 'y', params: { run_id: key, tag: 'y', value: '$steps.x.tag' } },
        { skill_name: 'probe', alias: 'z', params: { run_id: key, tag: 'z', value: '$steps.nobody' } },
      ],
    });
    expect(r.ok).toBe(true);
    expect(probeState(key).events).toEqual(['start:x', 'finish:x', 'start:y', 'finish:y', 'start:z', 'finish:z']);
    expect((r.steps.x as { value: unknown }).value).toBeNull();
    expect((r.steps.y as { value: unknown }).value).toBe('x');
  });

  it('R-CHAIN-02: the chain wall clock cuts a running step; ok false and the error names the wall', async () => {
    const s = await svc();
    const key = probeKey();
    const r = await run(s, { steps: [{ skill_name: 'slow', alias: 's', params: { run_id: key } }] }, { chainWallSec: 0.3 });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/CHAIN_WALL_SEC/);
    await expect.poll(() => slowState(key)).toContain('saw_abort');
  });

  it('R-CHAIN-05: a step past its own wall fails and follows on_fail', async () => {
    const s = await svc();
    const key = probeKey();
    const r = await run(
      s,
      {
        steps: [
          { skill_name: 'slow', alias: 's', params: { run_id: key }, on_fail: 'skip' },
          { skill_name: 'echo', alias: 'e' },
        ],
      },
      { chainWallSec: 60, stepWallSec: 0.3 },
    );
    expect(r.failed).toEqual(['s']);
    expect(r.error).toContain('单步墙钟');
    expect(r.steps.e).toBeDefined();
  });

  it('R-CHAIN-10: duplicate aliases are renamed q, q_2 by the runner; a missing alias becomes step{N}', async () => {
    const s = await svc();
    const r = await run(s, { steps: [{ skill_name: 'echo', alias: 'q' }, { skill_name: 'echo', alias: 'q' }, { skill_name: 'echo' }] });
    expect(Object.keys(r.steps).sort()).toEqual(['q', 'q_2', 'step3']);
  });

  it('R-CHAIN-38/39/40/44, D-05: steps get the caller identity and fixed context, chat_mode false, one session; inputs never override identity', async () => {
    const s = await svc();
    const r = await run(
      s,
      {
        steps: [
          { skill_name: 'echo', alias: 'a', params: { who: '{org_id}', x: '{x}' } },
          { skill_name: 'echo', alias: 'b' },
        ],
      },
      { input: { org_id: 'evil', x: 1 }, given: { raw_input: '跑一下链', actor_name: '张三', team_role: 'owner' } },
    );
    const a = r.steps.a as { input: Record<string, unknown>; ctx: Record<string, unknown> };
    const b = r.steps.b as { ctx: Record<string, unknown> };
    expect(a.input).toEqual({ who: 'demo', x: 1 });
    expect(a.ctx).toMatchObject({
      org_id: 'demo',
      chat_mode: false,
      raw_input: '跑一下链',
      actor_name: '张三',
      team_role: 'owner',
      channel: 'cli',
    });
    expect(b.ctx.session_id).toBe(a.ctx.session_id);
    expect(b.ctx.workspace_dir).toBe(a.ctx.workspace_dir);
  });

  it('R-CHAIN-41, D-08: team_role is inherited from the caller, else resolved from user_id in the directory, else member', async () => {
    const s = await svc();
    await seedDemoDirectory(db(), 'demo');
    const doc = { steps: [{ skill_name: 'echo', alias: 'e' }] };
    const role = async (given: Record<string, unknown>) =>
      ((await run(s, doc, { given })).steps.e as { ctx: { team_role: unknown } }).ctx.team_role;
    expect(await role({ team_role: 'admin', user_id: 'demo_worker' })).toBe('admin');
    expect(await role({ user_id: 'demo_worker' })).toBe('owner');
    expect(await role({ user_id: 'nobody_here' })).toBe('member');
  });

  it('R-CHAIN-45: a step failing with ok:false counts as failed; a step returning {} counts as success', async () => {
    const s = await svc();
    const r = await run(s, {
      steps: [
        { skill_name: 'unknown_skill_x', alias: 'u', on_fail: 'skip' },
        { skill_name: 'echo', alias: 'e' },
      ],
    });
    expect(r.failed).toEqual(['u']);
    expect(r.error).toContain('unknown_skill_x');
  });
});
