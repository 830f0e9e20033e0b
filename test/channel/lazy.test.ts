import { describe, expect, it } from 'vitest';
import { Lazy } from '../../src/channel/lazy.ts';

describe('Lazy: the bot identity shared by Telegram and Discord (asked once, retried after a failure)', () => {
  it('loads once and keeps the value', async () => {
    let calls = 0;
    const l = new Lazy(async () => ++calls);
    expect(await l.get()).toBe(1);
    expect(await l.get()).toBe(1);
    expect(calls).toBe(1);
  });

  it('loads again after a failure', async () => {
    let calls = 0;
    const l = new Lazy(async () => {
      calls++;
      if (calls === 1) throw new Error('down');
      return 'ok';
    });
    await expect(l.get()).rejects.toThrow('down');
    expect(await l.get()).toBe('ok');
    expect(calls).toBe(2);
  });

  it('a known or set value is used without loading; a failing load does not undo a set', async () => {
    let calls = 0;
    expect(await new Lazy(async () => ++calls, 7).get()).toBe(7);
    let fail!: (e: Error) => void;
    const l = new Lazy<number>(() => new Promise((_, rej) => (fail = rej)));
    const first = l.get();
    l.set(9);
    fail(new Error('late'));
    await expect(first).rejects.toThrow('late');
    expect(await l.get()).toBe(9);
    expect(calls).toBe(0);
  });
});
