/**
 * The outbox's wake-up times (src/outbox/wake-times.ts): every time asked for wakes the loop,
 * earliest first, also one asked for while an earlier one is pending; a repeated time wakes once.
 */
import { expect, it } from 'vitest';
import { WakeTimes } from '../../src/outbox/wake-times.ts';

it('three times asked for in any order wake three times, earliest first; a repeat is kept once; clear forgets them', async () => {
  const t = 1_000_000; // a clock that does not move: each firing takes only the time it was armed for
  const woke: number[] = [];
  const times = new WakeTimes({ now: () => t }, () => woke.push(times.size));
  times.add(t + 4);
  times.add(t + 8); // later than the pending one: kept, not dropped
  times.add(t + 2); // earlier: armed first
  times.add(t + 8);
  expect(times.size).toBe(3);
  await new Promise((r) => setTimeout(r, 100));
  expect(woke).toEqual([2, 1, 0]); // three wake-ups, each leaving the times after it
  times.add(t + 50);
  times.clear();
  await new Promise((r) => setTimeout(r, 100));
  expect(woke).toHaveLength(3);
});

it('a firing takes every time that has come by then', async () => {
  let now = 0;
  const woke: number[] = [];
  const times = new WakeTimes({ now: () => now }, () => woke.push(times.size));
  times.add(1);
  times.add(2);
  times.add(3);
  times.add(500);
  now = 10; // the first timer fires after times 2 and 3 have come too
  await new Promise((r) => setTimeout(r, 60));
  expect(woke).toEqual([1]);
  times.clear();
});
