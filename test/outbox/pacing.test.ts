/**
 * Flood control (src/outbox/pacing.ts): the account pacer on a virtual clock (sleeping moves
 * it), the documented per-chat paces, operator ceilings. Pure; no wall-clock timing.
 */
import { describe, expect, it } from 'vitest';
import { AccountPacer, CHANNEL_POLICIES, chatPaceOf, operatorCeilings } from '../../src/outbox/index.ts';

/** A clock whose sleep returns at once after moving time on; records each sleep. */
function virtualClock(t = 0) {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    set: (v: number) => (t = v),
    async sleep(ms: number) {
      sleeps.push(ms);
      t += ms;
    },
  };
}

describe('flood control: account pacer', () => {
  it('sends without waiting when neither a ceiling nor a 429 says otherwise', async () => {
    const clock = virtualClock();
    const p = new AccountPacer([]);
    for (let i = 0; i < 100; i++) await p.acquire(clock);
    expect(clock.sleeps).toEqual([]);
    expect(p.rateAt(0)).toBeNull();
  });

  it('an operator ceiling spaces sends after its burst (5/s, burst 1 → every 200 ms)', async () => {
    const clock = virtualClock();
    const p = new AccountPacer([{ perSecond: 5, burst: 1 }]);
    const at: number[] = [];
    for (let i = 0; i < 4; i++) {
      await p.acquire(clock);
      at.push(clock.now());
    }
    expect(at).toEqual([0, 200, 400, 600]);
  });

  it('a 429 pauses the account until retry_after, halves the rate that was being sent, then recovers and drops the limit', async () => {
    const clock = virtualClock(10_000);
    const p = new AccountPacer([]);
    for (let i = 0; i < 10; i++) await p.acquire(clock); // 10 sends within the last second
    const state = p.rateLimited(10_000, 5000);
    expect(state).toEqual({ notBeforeMs: 15_000, rate: { perSecond: 5, sinceMs: 10_000 } });
    await p.acquire(clock);
    expect(clock.now()).toBe(15_000); // waited out the pause, once
    expect(p.rateAt(10_000)).toBe(5);
    expect(p.rateAt(20_000)).toBeCloseTo(5 * 1.1 ** 10, 6);
    expect(p.rateAt(70_000)).toBeNull(); // 60 s without a 429: no adaptive limit
    // a second 429 halves from the rate in force
    const again = p.rateLimited(20_000, null);
    expect(again.rate!.perSecond).toBeCloseTo((5 * 1.1 ** 10) / 2, 6);
    expect(again.notBeforeMs).toBe(21_000); // no retry_after: 1 s
  });

  it('a pause that arrives while a sender waits extends its wait', async () => {
    let t = 0;
    const p = new AccountPacer([{ perSecond: 1, burst: 1 }]);
    const clock = {
      now: () => t,
      async sleep(ms: number) {
        if (t === 0) p.rateLimited(0, 3000); // the 429 of another send comes in meanwhile
        t += ms;
      },
    };
    await p.acquire(clock); // t=0, free
    await p.acquire(clock); // would be 1000, but the pause says 3000
    expect(t).toBe(3000);
  });

  it("adopts another replica's newer rate, and keeps the later pause", () => {
    const p = new AccountPacer([]);
    p.adopt({ notBeforeMs: 9000, rate: { perSecond: 4, sinceMs: 8000 } });
    expect(p.pausedUntilMs).toBe(9000);
    expect(p.rateAt(8000)).toBe(4);
    p.adopt({ notBeforeMs: 1000, rate: { perSecond: 40, sinceMs: 1000 } }); // older: ignored
    expect(p.pausedUntilMs).toBe(9000);
    expect(p.rateAt(8000)).toBe(4);
  });
});

describe('flood control: documented paces and operator ceilings', () => {
  it('paces Telegram private chats at ~1/s and groups at 20/min; web is not paced', () => {
    // answers to the person are not held in a private chat (docs/operations-delivery.md)
    expect(chatPaceOf({ channel: 'telegram', chat_type: 'direct' }, CHANNEL_POLICIES)).toEqual({
      intervalMs: 1000,
      burst: 3,
      answersFree: true,
    });
    expect(chatPaceOf({ channel: 'telegram', chat_type: 'group' }, CHANNEL_POLICIES)).toEqual({ intervalMs: 3000, burst: 3 });
    expect(chatPaceOf({ channel: 'telegram' }, CHANNEL_POLICIES)).toEqual({ intervalMs: 1000, burst: 3, answersFree: true });
    expect(chatPaceOf({ channel: 'web', chat_type: 'direct' }, CHANNEL_POLICIES)).toBeUndefined();
    expect(chatPaceOf({ channel: 'discord', chat_type: 'group' }, CHANNEL_POLICIES)).toBeUndefined();
    expect(CHANNEL_POLICIES.telegram!.account).toBeUndefined(); // adaptive only: no fixed guess
  });

  it('reads max_sends_per_s per account (env block = default, config accounts), off otherwise', () => {
    const ceilingOf = operatorCeilings({ TELEGRAM_MAX_SENDS_PER_S: '12', FEISHU_MAX_SENDS_PER_S: 'x' }, [
      { channel: 'telegram', id: 'ops', max_sends_per_s: 3 },
      { channel: 'discord', id: 'bot2' },
    ]);
    expect(ceilingOf('telegram', 'default')).toEqual({ perSecond: 12 });
    expect(ceilingOf('telegram', 'ops')).toEqual({ perSecond: 3 });
    expect(ceilingOf('feishu', 'default')).toBeUndefined();
    expect(ceilingOf('discord', 'bot2')).toBeUndefined();
  });
});
