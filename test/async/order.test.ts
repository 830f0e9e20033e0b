/**
 * R-ASYNC-02/03 order: a background run that ends before its turn has replied (here a
 * planner that keeps talking until the run is over) still reaches the chat after the
 * turn's acknowledgement.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OutboundMessage } from '../../src/channel/types.ts';
import type { Planner } from '../../src/turn/planner.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { closeGate, makeAsyncHarness, observed, type AsyncHarness } from './helpers.ts';

const textOf = (m: OutboundMessage): string => [m.text ?? '', m.display_md ?? ''].join('\n');

describeEachEngine('async result order', (db, engine) => {
  let h: AsyncHarness;
  const tag = `o-${engine}-${Date.now()}`;
  let jobRan = false;
  const planner: Planner = {
    name: 'slow-talker',
    async handle(turn) {
      const envelope = await turn.invoke('slow_report', { tag });
      // Keep the turn open until the background run has finished (and tried to push).
      await expect.poll(() => observed(tag), { timeout: 20_000, interval: 50 }).toBeDefined();
      await new Promise((r) => setTimeout(r, 300));
      jobRan = true;
      return { text: '', invocations: [{ tool: 'slow_report', args: { tag }, envelope }] };
    },
  };
  beforeAll(async () => {
    h = await makeAsyncHarness(db(), { planner });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('the acknowledgement is delivered before the result even when the run ends first', async () => {
    closeGate()();
    await h.turn('telegram', `做一份报表 ${tag}`);
    expect(jobRan).toBe(true);
    const isResult = (m: OutboundMessage): boolean => textOf(m).includes(`报表 ${tag}`) && textOf(m).includes('合计 42');
    await expect.poll(() => h.telegram.sent.find((s) => isResult(s.message)), { timeout: 20_000, interval: 100 }).toBeDefined();
    const ackAt = h.telegram.sent.findIndex((s) => textOf(s.message).includes('已在后台开始执行'));
    const resultAt = h.telegram.sent.findIndex((s) => isResult(s.message));
    expect(ackAt).toBeGreaterThanOrEqual(0);
    expect(resultAt).toBeGreaterThan(ackAt);
  });
});
