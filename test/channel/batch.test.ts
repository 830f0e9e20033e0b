/**
 * Group commit without waiting (src/channel/batch.ts): writes submitted in one event-loop turn go
 * together at its end, writes submitted while a flush is in flight share the next flush, results
 * come back per item in order, and a failed flush fails exactly its own items.
 */
import { expect, it } from 'vitest';
import { createBatcher } from '../../src/channel/batch.ts';

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

it('flushes what one event-loop turn submitted together, and everything queued during a flush together next', async () => {
  const flushes: number[][] = [];
  let release!: () => void;
  let gate = new Promise<void>((r) => (release = r));
  const b = createBatcher<number, string>(async (items) => {
    flushes.push(items);
    await gate;
    return items.map((i) => `r${i}`);
  });
  const first = [b.submit(1), b.submit(2)];
  expect(flushes).toEqual([]);
  await nextTurn();
  expect(flushes).toEqual([[1, 2]]);
  const more = [b.submit(3), b.submit(4), b.submit(5)];
  await nextTurn();
  expect(flushes).toEqual([[1, 2]]);
  const r1 = release;
  gate = Promise.resolve();
  r1();
  expect(await Promise.all(first)).toEqual(['r1', 'r2']);
  expect(await Promise.all(more)).toEqual(['r3', 'r4', 'r5']);
  expect(flushes).toEqual([
    [1, 2],
    [3, 4, 5],
  ]);
});

it('a failing flush rejects its own items only, and the next batch still goes', async () => {
  let n = 0;
  const b = createBatcher<number, number>(async (items) => {
    n++;
    if (n === 1) throw new Error('database down');
    return items.map((i) => i * 10);
  });
  const a = expect(b.submit(1)).rejects.toThrow('database down');
  await nextTurn();
  const c = b.submit(2);
  await a;
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
  const first = b.submit(1);
  await nextTurn();
  const all = [first, ...[2, 3, 4, 5, 6].map((i) => b.submit(i))];
  release();
  expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(sizes).toEqual([1, 2, 2, 1]);
});

it('keysOf: a batch holds one item per key; a later item of a key waits for a next batch, in order', async () => {
  const batches: string[][] = [];
  const b = createBatcher<string, string>(
    async (items) => {
      batches.push(items);
      return items;
    },
    { keysOf: (item) => [item.split(':')[0]!] },
  );
  const all = ['a:1', 'a:2', 'b:1', 'a:3', 'c:1', 'b:2'].map((i) => b.submit(i));
  expect(await Promise.all(all)).toEqual(['a:1', 'a:2', 'b:1', 'a:3', 'c:1', 'b:2']);
  expect(batches).toEqual([['a:1', 'b:1', 'c:1'], ['a:2', 'b:2'], ['a:3']]);
});

it('gather: false sends at once while fewer than inFlight batches are on their way; the rest go together after', async () => {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const b = createBatcher<number, number>(
    async (items) => {
      batches.push(items);
      await new Promise<void>((r) => gates.push(r));
      return items;
    },
    { gather: false, inFlight: 2 },
  );
  const all = [b.submit(1), b.submit(2), b.submit(3), b.submit(4)];
  expect(batches).toEqual([[1], [2]]); // on their way before the event loop turned
  gates.shift()!();
  await nextTurn();
  expect(batches).toEqual([[1], [2], [3, 4]]);
  while (gates.length) gates.shift()!();
  await nextTurn();
  while (gates.length) gates.shift()!();
  expect(await Promise.all(all)).toEqual([1, 2, 3, 4]);
});

it('keysOf with several batches on their way: an item waits while a batch holding its key is on its way; other keys go', async () => {
  const events: string[] = [];
  const gates = new Map<string, () => void>();
  const b = createBatcher<string, string>(
    async (items) => {
      const name = items.join('+');
      events.push(`start ${name}`);
      await new Promise<void>((r) => gates.set(name, r));
      events.push(`end ${name}`);
      return items;
    },
    { gather: false, inFlight: 2, keysOf: (item) => [item.split(':')[0]!] },
  );
  const all = ['a:1', 'a:2', 'b:1'].map((i) => b.submit(i));
  // a:2 waits for a:1's batch although a second batch may go: b:1 takes that place.
  expect(events).toEqual(['start a:1', 'start b:1']);
  gates.get('b:1')!();
  await nextTurn();
  expect(events).toEqual(['start a:1', 'start b:1', 'end b:1']);
  gates.get('a:1')!();
  await nextTurn();
  expect(events).toEqual(['start a:1', 'start b:1', 'end b:1', 'end a:1', 'start a:2']);
  gates.get('a:2')!();
  expect(await Promise.all(all)).toEqual(['a:1', 'a:2', 'b:1']);
});
