/**
 * LISTEN on a server uses one dedicated client (src/store/pool-db.ts): listen() calls made at
 * the same moment (the outbox, the inbox and the web hub start together) share it one after
 * the other — one client, no overlapping query on it (test/helpers/pg-overlap-guard.ts fails
 * the test on pg's overlap warning) — and every channel receives its notifications.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';

describeEachEngine('db.listen called concurrently', (db, engine) => {
  it('subscribes every channel through one listener client, without overlapping queries on it', async () => {
    const channels = ['sg_t_a', 'sg_t_b', 'sg_t_c', 'sg_t_d', 'sg_t_e', 'sg_t_a'];
    const got: string[] = [];
    const offs = await Promise.all(channels.map((c, i) => db().listen(c, (p) => got.push(`${i}:${p}`))));
    if (engine === 'server') {
      const { rows } = await db().query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE '%-listen'`,
      );
      expect(rows[0]?.n).toBe(1);
    }
    for (const c of ['sg_t_a', 'sg_t_b', 'sg_t_c', 'sg_t_d', 'sg_t_e']) await db().notify(c, c);
    for (let i = 0; i < 200 && got.length < channels.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(got.sort()).toEqual(['0:sg_t_a', '1:sg_t_b', '2:sg_t_c', '3:sg_t_d', '4:sg_t_e', '5:sg_t_a']);
    // unsubscribing concurrently is serialised the same way
    await Promise.all(offs.map((off) => off()));
    got.length = 0;
    await db().notify('sg_t_a', 'late');
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual([]);
  });
});
