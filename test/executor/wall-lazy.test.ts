/**
 * The wall's signal and `stopped` are made at their first read (src/executor/wall.ts); read
 * late, they must look exactly as if made at the start (R-WALL-05, D-06).
 */
import { describe, expect, it } from 'vitest';
import { entryContext } from '../../src/executor/in-process.ts';
import { startWall } from '../../src/executor/wall.ts';
import type { RuntimeContext } from '../../src/runtime/types.ts';

describe('a wall read late (R-WALL-05)', () => {
  it('R-WALL-05: a signal first read after the wall timed out is aborted, with the timeout as its reason', async () => {
    const wall = startWall(0.01);
    await new Promise((r) => setTimeout(r, 40));
    expect(wall.cause()).toEqual({ kind: 'timeout', afterSec: 0 });
    expect(wall.signal.aborted).toBe(true);
    expect((wall.signal.reason as Error).message).toBe('timed out after 0 s');
    expect(await wall.stopped).toEqual({ kind: 'timeout', afterSec: 0 });
    wall.dispose();
  });

  it('R-WALL-05: a caller abort reaches a signal read before it (listener) and one read after it (same reason)', async () => {
    const caller = new AbortController();
    const wall = startWall(60, [caller.signal]);
    const early = wall.signal;
    const seen: unknown[] = [];
    early.addEventListener('abort', () => seen.push(early.reason));
    caller.abort('user pressed stop');
    expect(seen).toEqual(['user pressed stop']);
    expect(wall.signal).toBe(early);
    expect(await wall.stopped).toEqual({ kind: 'aborted', reason: 'user pressed stop' });
    wall.dispose();

    const already = startWall(60, [caller.signal]);
    expect(already.signal.aborted).toBe(true);
    expect(already.signal.reason).toBe('user pressed stop');
    already.dispose();
  });

  it('R-WALL-05: onStop is called once with the cause; a disposed wall never fires', async () => {
    const causes: unknown[] = [];
    const caller = new AbortController();
    const wall = startWall(0.01, [caller.signal], (c) => causes.push(c));
    caller.abort('first');
    await new Promise((r) => setTimeout(r, 40));
    expect(causes).toEqual([{ kind: 'aborted', reason: 'first' }]);
    wall.dispose();
    const quiet = startWall(0.01, [], (c) => causes.push(c));
    quiet.dispose();
    await new Promise((r) => setTimeout(r, 40));
    expect(causes).toHaveLength(1);
    expect(quiet.cause()).toBeNull();
  });
});

describe('the entry context (R-WALL-05, R-FORM-09)', () => {
  const ctx = { role_id: 'r', abort_signal: null, db: {}, db_factory: {} } as unknown as RuntimeContext;

  it('R-FORM-09: a sync entry gets db and db_factory null; a background run gets abort_signal null', () => {
    const out = entryContext(ctx, false, null);
    expect(out).toMatchObject({ abort_signal: null, db: null, db_factory: null });
    expect(ctx.db).toEqual({});
  });
});
