/**
 * The failure budget under the real turn (R-OUT-05..08, A-22): each stop
 * rule, scripted on the model side, asserted on what ran and on what the user got.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { canonicalJson, FailureBudget } from '../../src/turn/planners/model.ts';
import { callTools, FakeLlm, lastToolResult, say, toolResults } from './fake-llm.ts';
import { plannerHarness, textOf, type PlannerHarness } from './harness.ts';

const llm = new FakeLlm();
beforeAll(async () => {
  await llm.start();
});
afterAll(async () => {
  await llm.close();
});

describeEachEngine('failure budget', (db) => {
  // one harness (skills discovered once) for the tests on a rich channel of this engine
  let shared: Promise<PlannerHarness> | undefined;
  const rich = (): Promise<PlannerHarness> => (shared ??= plannerHarness(db(), llm));

  it('R-OUT-06: a skill failing twice in a row is blocked for the rest of the turn; the third call does not run', async () => {
    const h = await rich();
    llm.script(
      { reply: callTools(['pl_fail', { n: 1 }]) },
      {
        check: (req) => expect(lastToolResult(req).error).toContain('upstream refused request 1'),
        reply: callTools(['pl_fail', { n: 2 }]),
      },
      { reply: callTools(['pl_fail', { n: 3 }]) },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r.success).toBe(false);
          expect(String(r.error)).toContain('blocked for the rest of this turn');
          expect(String(r.error)).not.toContain('request 3');
        },
        reply: say('pl_fail 现在不可用。'),
      },
    );
    const out = await h.turn({ raw_input: '试试 pl_fail' });
    llm.assertDone();
    expect(h.results.at(-1)!.invocations.map((i) => i.args)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(textOf(out)).toContain('pl_fail 现在不可用。');
  });

  it('R-OUT-05: non_retriable blocks the skill at once', async () => {
    const h = await rich();
    llm.script(
      { reply: callTools(['pl_fatal', {}]) },
      { check: (req) => expect(lastToolResult(req).error).toContain('vendor module'), reply: callTools(['pl_fatal', { again: true }]) },
      { check: (req) => expect(String(lastToolResult(req).error)).toContain('non_retriable'), reply: say('供应商模块未安装。') },
    );
    const out = await h.turn({ raw_input: '用 pl_fatal' });
    llm.assertDone();
    expect(h.results.at(-1)!.invocations).toHaveLength(1);
    expect(textOf(out)).toContain('供应商模块未安装。');
  });

  it('R-OUT-07, A-22: four failures in the turn (across skills) end it with a wrap-up answer and a summary', async () => {
    const h = await rich();
    llm.script(
      { reply: callTools(['pl_fail', { n: 1 }], ['pl_fatal', {}]) },
      { check: (req) => expect(toolResults(req)).toHaveLength(2), reply: callTools(['pl_fail', { n: 2 }]) },
      { reply: callTools(['echo_input', { n: 'not a number' }], ['pl_lookup', { item: 'never run' }]) },
      {
        check: (req) => {
          expect(req.tool_choice).toBe('none');
          expect(String(req.messages.at(-1)!.content)).toContain('Too many tool calls failed');
          expect(String(lastToolResult({ ...req, messages: req.messages.slice(0, -1) }).error)).toContain('not run');
        },
        reply: say('抱歉，这次没能完成。'),
      },
    );
    const out = await h.turn({ raw_input: '做点什么' });
    llm.assertDone();
    const body = textOf(out);
    expect(body).toContain('抱歉，这次没能完成。');
    expect(body).toContain('本轮已有 4 次调用失败');
    expect(body).toContain('pl_fail');
    // the call after the fourth failure was never run
    expect(h.results.at(-1)!.invocations.map((i) => i.tool)).toEqual(['pl_fail', 'pl_fatal', 'pl_fail', 'echo_input']);
  });

  it('R-OUT-08: the same (tool, arguments) a third time is a loop: not run, the turn ends (English turn)', async () => {
    const h = await rich();
    llm.script(
      { reply: callTools(['pl_lookup', { item: 'pump' }]) },
      { reply: callTools(['pl_lookup', { item: 'pump' }]) },
      { reply: callTools(['pl_lookup', { item: 'pump' }]) },
      {
        check: (req) => {
          expect(req.tool_choice).toBe('none');
          expect(String(req.messages.at(-1)!.content)).toContain('repeated three times');
        },
        reply: say('A pump costs 42.'),
      },
    );
    const out = await h.turn({ raw_input: 'price of a pump?', lang: 'en' });
    llm.assertDone();
    expect(h.results.at(-1)!.invocations).toHaveLength(2);
    const body = textOf(out);
    expect(body).toContain('A pump costs 42.');
    expect(body).toContain('The same operation was repeated three times');
  });

  it('the wrap-up call failing still leaves the user the platform summary (never silence)', async () => {
    const h = await rich();
    const down = { reply: { status: 500, body: { error: { message: 'boom' } } } };
    llm.script(
      { reply: callTools(['pl_lookup', { item: 'x' }]) },
      { reply: callTools(['pl_lookup', { item: 'x' }]) },
      { reply: callTools(['pl_lookup', { item: 'x' }]) },
      down,
      down,
      down,
    );
    const out = await h.turn({ raw_input: '查 x' });
    llm.assertDone();
    expect(textOf(out)).toContain('同一个操作被重复了三次');
  });
});

describe('FailureBudget (unit)', () => {
  it('a success resets the consecutive count of that skill only (R-OUT-06)', () => {
    const b = new FailureBudget();
    b.failed('a', false);
    b.succeeded('a');
    b.failed('a', false);
    expect(b.admit('a', 'a', { x: 1 })).toBeNull();
    b.failed('b', false);
    expect(b.admit('a', 'a', { x: 2 })).toBeNull();
    b.failed('a', false);
    expect(b.admit('a', 'a', { x: 3 })).toBe('banned');
    expect(b.stopped).toBe('failures');
  });

  it('argument order does not hide a loop (R-OUT-08)', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: [1, { f: 1, e: 2 }] } })).toBe('{"a":{"c":[1,{"e":2,"f":1}],"d":2},"b":1}');
    const b = new FailureBudget();
    expect(b.admit('s', 's', { a: 1, b: 2 })).toBeNull();
    expect(b.admit('s', 's', { b: 2, a: 1 })).toBeNull();
    expect(b.admit('s', 's', { a: 1, b: 2 })).toBe('loop');
  });
});
