/**
 * A run's result recorded while the database is briefly away (a restart): the inbox tries the
 * done mark again instead of leaving the event `processing` until its lease expires, so the
 * chat's next message runs at once — with a lease long enough that only the retry can explain it.
 * Both engines.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createInbox } from '../../src/inbox/index.ts';
import type { Db, Queryable } from '../../src/store/db.ts';
import { captureLog, inbound, until } from './helpers.ts';

/** `db` whose relaxed writes fail `failures` times for a done mark (as during a restart). */
function flakyDoneMarks(db: Db, failures: number): Db {
  let left = failures;
  const relaxed: Queryable = {
    query: (async (text: string, params?: unknown[]) => {
      if (left > 0 && /SET status = 'done'/.test(text)) {
        left--;
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' });
      }
      return db.relaxed.query(text, params);
    }) as Queryable['query'],
  };
  return new Proxy(db, { get: (target, prop, recv) => (prop === 'relaxed' ? relaxed : Reflect.get(target, prop, recv)) });
}

describeEachEngine('inbox result recording', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });

  it('a done mark that fails twice is tried again: the event ends done and the chat’s next message runs, long before the lease', async () => {
    const { log, lines } = captureLog();
    const handled: string[] = [];
    const inbox = createInbox(flakyDoneMarks(db(), 2), { log, pollMs: 20, leaseMs: 600_000 });
    inbox.start(async (e) => void handled.push(e.message.raw_input ?? ''));
    try {
      await inbox.receive(inbound('c1', 'r1', 'first'));
      await inbox.receive(inbound('c1', 'r2', 'second'));
      await until(() => handled.length === 2, 'both messages of the chat handled', 20_000);
      expect(handled).toEqual(['first', 'second']);
      await until(async () => {
        const { rows } = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.inbox_events WHERE status = 'done'`);
        return rows[0]!.n === 2;
      }, 'both events done');
      expect(lines().some((l) => l.msg === 'inbox: recording a result failed; trying again')).toBe(true);
      expect(lines().some((l) => l.msg === 'inbox: recording the result failed')).toBe(false);
    } finally {
      await inbox.stop();
    }
  });
});
