/**
 * `Db.copyFrom` (src/store/db.ts), the embedded engine's COPY, with rows written by
 * src/store/copy-text.ts: every value comes back as written, a failed COPY stores nothing and
 * leaves the Db usable, and the COPY is a statement of its own — never part of another caller's
 * open transaction. A server Db has none (callers take their INSERT path there).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.ts';
import { copyRows, copyValue } from '../../src/store/copy-text.ts';
import { ENGINES, openTestDb } from '../helpers/db.ts';

const COPY = 'COPY public.t_copy (id, s, flag, n, at, keys) FROM STDIN';

describe.runIf(ENGINES.includes('server'))('store: Db.copyFrom [server]', () => {
  it('is absent on a server Db', async () => {
    const server = await openTestDb('server');
    try {
      expect(server.copyFrom).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('store: Db.copyFrom [embedded]', () => {
  let embedded: Db | undefined;
  const db = (): Db => embedded!;
  afterAll(async () => {
    await embedded?.close();
  });
  beforeAll(async () => {
    embedded = await openTestDb('embedded');
    await db().query(
      'CREATE TABLE IF NOT EXISTS public.t_copy (id int PRIMARY KEY, s text, flag boolean, n integer, at timestamptz, keys text[])',
    );
  });
  beforeEach(async () => {
    await db().query('DELETE FROM public.t_copy');
  });

  it('stores every value as written: escapes, NULLs, booleans, numbers, dates, text arrays', async () => {
    const at = new Date('2026-06-30T12:00:00.123Z');
    const odd = 'tab\there\nnew\\line\r"q" \\N 张三';
    const keys = ['', 'NULL', 'a"b', 'c\\d', '{x,y}', 'tab\tkey', ' sp ', 'new\nline'];
    const n = await db().copyFrom!(
      COPY,
      copyRows([
        [1, odd, true, 7, at, keys],
        [2, '', false, -1, at.toISOString(), []],
        [3, null, undefined, null, null, null],
      ]),
    );
    expect(n).toBe(3);
    const { rows } = await db().query<Record<string, unknown>>('SELECT id, s, flag, n, at, keys FROM public.t_copy ORDER BY id');
    expect(rows).toEqual([
      { id: 1, s: odd, flag: true, n: 7, at, keys },
      { id: 2, s: '', flag: false, n: -1, at, keys: [] },
      { id: 3, s: null, flag: null, n: null, at: null, keys: null },
    ]);
  });

  it('a failed COPY stores none of its rows and the Db stays usable', async () => {
    await db().copyFrom!(COPY, copyRows([[1, 'first', true, 1, null, []]]));
    await expect(
      db().copyFrom!(
        COPY,
        copyRows([
          [2, 'new', true, 1, null, []],
          [1, 'dup', true, 1, null, []],
        ]),
      ),
    ).rejects.toMatchObject({
      code: '23505',
    });
    const { rows } = await db().query<{ id: number }>('SELECT id FROM public.t_copy ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([1]);
    expect(await db().copyFrom!(COPY, copyRows([[2, 'again', false, 2, null, ['k']]]))).toBe(1);
  });

  it('is never part of a transaction open meanwhile: that one rolls back, the copied rows stay', async () => {
    let entered!: () => void;
    const inTx = new Promise<void>((r) => (entered = r));
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const txDone = db()
      .transaction(async (tx) => {
        await tx.query("INSERT INTO public.t_copy (id, s) VALUES (100, 'tx')");
        entered();
        await gate;
        throw new Error('undo');
      })
      .catch((err: Error) => err.message);
    await inTx;
    const copied = db().copyFrom!(COPY, copyRows([[1, 'c', true, 1, null, []]]));
    await new Promise((r) => setTimeout(r, 20));
    finish();
    expect(await txDone).toBe('undo');
    expect(await copied).toBe(1);
    const { rows } = await db().query<{ id: number }>('SELECT id FROM public.t_copy ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([1]);
  });

  it('a value it cannot write is refused before anything is sent', () => {
    expect(() => copyValue({ a: 1 })).toThrow(TypeError);
    expect(() => copyValue(['a', 1])).toThrow(TypeError);
    expect(copyValue('a\\b\tc')).toBe('a\\\\b\\tc');
  });
});
