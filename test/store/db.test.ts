import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate, readMigrations } from '../../src/store/migrate.ts';

describeEachEngine('store: Db interface', (db, engine) => {
  it('runs parameterized queries with positional parameters', async () => {
    const { rows } = await db().query<{ s: string; n: number }>('SELECT $1::text AS s, $2::int + 1 AS n', ['a', 41]);
    expect(rows).toEqual([{ s: 'a', n: 42 }]);
  });

  it('commits a transaction and rolls one back on error', async () => {
    await db().query('CREATE TABLE IF NOT EXISTS public.t_tx (v int)');
    await db().transaction(async (tx) => {
      await tx.query('INSERT INTO public.t_tx VALUES (1)');
    });
    await expect(
      db().transaction(async (tx) => {
        await tx.query('INSERT INTO public.t_tx VALUES (2)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rows } = await db().query<{ v: number }>('SELECT v FROM public.t_tx ORDER BY v');
    expect(rows.map((r) => r.v)).toEqual([1]);
  });

  it('a failed savepoint rolls back only its own work and leaves the transaction usable', async () => {
    await db().query('CREATE TABLE IF NOT EXISTS public.t_sp (v int PRIMARY KEY)');
    await db().transaction(async (tx) => {
      await tx.query('INSERT INTO public.t_sp VALUES (1)');
      await expect(
        tx.savepoint(async (inner) => {
          await inner.query('INSERT INTO public.t_sp VALUES (2)');
          await inner.query('INSERT INTO public.t_sp VALUES (1)'); // unique violation
        }),
      ).rejects.toMatchObject({ code: '23505' });
      await tx.savepoint(async (inner) => {
        await inner.query('INSERT INTO public.t_sp VALUES (3)');
      });
    });
    const { rows } = await db().query<{ v: number }>('SELECT v FROM public.t_sp ORDER BY v');
    expect(rows.map((r) => r.v)).toEqual([1, 3]);
  });

  it('delivers NOTIFY payloads to a listener and stops after unlisten', async () => {
    const seen: string[] = [];
    let wake: () => void = () => undefined;
    const unlisten = await db().listen('sg_test_chan', (p) => {
      seen.push(p);
      wake();
    });
    const got = new Promise<void>((r) => (wake = r));
    await db().notify('sg_test_chan', 'hello');
    await got;
    expect(seen).toEqual(['hello']);
    await unlisten();
    await db().notify('sg_test_chan', 'after');
    await db().query('SELECT 1'); // a round trip, so a stray delivery would have arrived
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(['hello']);
  });

  it(`withLock runs holders one at a time (${engine})`, async () => {
    let inside = 0;
    let maxInside = 0;
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3].map((i) =>
        db().withLock('sg_test_lock', async (tx) => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await tx.query('SELECT 1');
          await new Promise((r) => setTimeout(r, 20));
          order.push(i);
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
    expect(order.sort()).toEqual([1, 2, 3]);
  });

  it('migrate applies every bundled migration once and is a no-op the second time', async () => {
    const all = readMigrations().map((m) => m.version);
    const first = await migrate(db());
    expect(first.applied).toEqual(all);
    expect(first.current).toBe(Math.max(...all));
    const second = await migrate(db());
    expect(second.applied).toEqual([]);
    expect(second.current).toBe(first.current);
    const { rows } = await db().query<{ version: number }>('SELECT version FROM skillgate.schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(all);
    const meta = await db().query<{ value: string }>("SELECT value FROM skillgate.meta WHERE key = 'instance_id'");
    expect(meta.rows[0]?.value).toMatch(/^[0-9a-f]{32}$/);
  });

  it('migrate on a current schema only reads the applied versions: no lock, no transaction, no DDL', async () => {
    await migrate(db());
    const seen: string[] = [];
    const base = db();
    const watched = {
      ...base,
      engine: base.engine,
      query: (text: string, values?: readonly unknown[]) => (seen.push(text), base.query(text, values)),
      transaction: () => Promise.reject(new Error('migrate opened a transaction')),
      withLock: () => Promise.reject(new Error('migrate took the lock')),
    } as typeof base;
    const again = await migrate(watched);
    expect(again.applied).toEqual([]);
    expect(again.current).toBe(Math.max(...readMigrations().map((m) => m.version)));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((q) => /\b(CREATE|ALTER|INSERT)\b/i.test(q))).toEqual([]);
  });

  it('a failing migration leaves no trace of the run', async () => {
    const base = readMigrations();
    const next = Math.max(...base.map((m) => m.version)) + 1;
    const bad = [
      ...base,
      { version: next, name: 'ok_part', sql: 'CREATE TABLE skillgate.t_partial (v int)' },
      { version: next + 1, name: 'broken', sql: 'CREATE TABLE skillgate.t_broken (' },
    ];
    await expect(migrate(db(), bad)).rejects.toMatchObject({ code: '42601' });
    const { rows } = await db().query<{ n: string }>(
      "SELECT count(*)::text AS n FROM information_schema.tables WHERE table_schema = 'skillgate' AND table_name = 't_partial'",
    );
    expect(rows[0]?.n).toBe('0');
    const versions = await db().query<{ version: number }>('SELECT version FROM skillgate.schema_migrations');
    expect(versions.rows.map((r) => r.version)).not.toContain(next);
  });
});
