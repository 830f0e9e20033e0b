/**
 * Group commit without waiting (src/store/batch.ts): the first write goes alone and at once,
 * writes submitted meanwhile share the next flush, results come back per item in order, and a
 * failed flush fails exactly its own items.
 */
import { expect, it } from 'vitest';
import { createBatcher } from '../../src/store/batch.ts';

it('flushes the first item at once and everything queued meanwhile together', async () => {
  const flushes: number[][] = [];
  let release!: () => void;
  let gate = new Promise<void>((r) => (release = r));
  const b = createBatcher<number, string>(async (items) => {
    flushes.push(items);
    await gate;
    return items.map((i) => `r${i}`);
  });
  const first = b.submit(1);
  const more = [b.submit(2), b.submit(3), b.submit(4)];
  expect(flushes).toEqual([[1]]);
  const r1 = release;
  gate = Promise.resolve();
  r1();
  expect(await first).toBe('r1');
  expect(await Promise.all(more)).toEqual(['r2', 'r3', 'r4']);
  expect(flushes).toEqual([[1], [2, 3, 4]]);
});

it('a failing flush rejects its own items only, and the next batch still goes', async () => {
  let n = 0;
  const b = createBatcher<number, number>(async (items) => {
    n++;
    if (n === 1) throw new Error('database down');
    return items.map((i) => i * 10);
  });
  const a = b.submit(1);
  const c = b.submit(2);
  await expect(a).rejects.toThrow('database down');
  expect(await c).toBe(20);
});

it('caps a batch at max items', async () => {
  const sizes: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const b = createBatcher<number, number>(async (items) => {
    sizes.push(items.length);
    if (sizes.length === 1) await gate;
    return items;
  }, 2);
  const all = [1, 2, 3, 4, 5].map((i) => b.submit(i));
  release();
  expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5]);
  expect(sizes).toEqual([1, 2, 2]);
});
