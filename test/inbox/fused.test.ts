/**
 * Inbox fast paths: a new chat head is taken in its own INSERT and run at
 * once, and a done mark refills the freed slot in the same statement — per-chat order and the
 * concurrency limit hold, and no separate claim statement runs. Both engines.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createInbox, type InboxEvent } from '../../src/inbox/index.ts';
import type { Db } from '../../src/store/db.ts';
import { captureLog, inbound, latch, until } from './helpers.ts';

/** `db` recording every statement text; its LISTEN never takes effect (only the start-up pass claims). */
function recording(db: Db): { db: Db; claims: () => number; claimsDone: () => number } {
  let claims = 0;
  let claimsDone = 0;
  // a claim: the inbox's UPDATE of due heads (src/inbox/store.ts claimDue), alone or as a CTE
  const isClaim = (text: string): boolean => /^\s*(?:WITH c AS \(\s*)?UPDATE skillgate\.inbox_events e\b/.test(text);
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'query') {
        return async (text: string, values?: unknown[]) => {
          if (isClaim(text)) claims++;
          try {
            return await target.query(text, values);
          } finally {
            if (isClaim(text)) claimsDone++;
          }
        };
      }
      if (prop === 'listen') return () => new Promise(() => undefined);
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { db: proxy, claims: () => claims, claimsDone: () => claimsDone };
}

describeEachEngine('inbox fast paths', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });

  it('new chat heads are taken in their INSERT and run with attempt 1 — no claim statement beyond the start-up pass', async () => {
    const { log } = captureLog();
    const rec = recording(db());
    const inbox = createInbox(rec.db, { log, pollMs: 600_000 });
    const seen: InboxEvent[] = [];
    inbox.start(async (ev) => void seen.push(ev), { concurrency: 4 });
    await until(() => rec.claimsDone() >= 1, 'the start-up pass');
    const claimsBefore = rec.claims();

    const msgs = [inbound('fa', 'f1'), inbound('fb', 'f2'), inbound('fc', 'f3')];
    for (const m of msgs) expect(await inbox.receive(m)).toBe('accepted');
    await until(() => seen.length === 3, 'three events handled');
    await until(async () => (await inbox.backlog()) === 0, 'all marked done');
    await inbox.stop();

    expect(rec.claims()).toBe(claimsBefore);
    expect(seen.map((e) => e.message.dedupe_key).sort()).toEqual(msgs.map((m) => m.dedupe_key).sort());
    expect(seen.every((e) => e.attempts === 1)).toBe(true);
    const { rows } = await db().query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM skillgate.inbox_events ORDER BY id',
    );
    expect(rows).toEqual(msgs.map(() => ({ status: 'done', attempts: 1 })));
  });

  it('a later event of a busy chat waits; the done mark of the running one takes it in the same statement, in chat order, within the concurrency limit', async () => {
    const { log } = captureLog();
    const rec = recording(db());
    const inbox = createInbox(rec.db, { log, pollMs: 600_000 });
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const gate = latch();
    inbox.start(
      async (ev) => {
        running++;
        most = Math.max(most, running);
        order.push(ev.message.dedupe_key);
        if (ev.message.dedupe_key.endsWith(':g1')) await gate.promise;
        running--;
      },
      { concurrency: 1 },
    );
    await until(() => rec.claimsDone() >= 1, 'the start-up pass');
    const claimsBefore = rec.claims();

    const a1 = inbound('ga', 'g1');
    const a2 = inbound('ga', 'g2');
    const b1 = inbound('gb', 'g3');
    expect(await inbox.receive(a1)).toBe('accepted');
    await until(() => order.length === 1, 'the first event runs');
    expect(await inbox.receive(a2)).toBe('accepted'); // its chat is busy: stored `received`
    expect(await inbox.receive(b1)).toBe('accepted'); // no free slot: stored `received`
    const { rows: waiting } = await db().query<{ status: string }>(
      'SELECT status FROM skillgate.inbox_events WHERE dedupe_key <> $1 ORDER BY id',
      [a1.dedupe_key],
    );
    expect(waiting.map((r) => r.status)).toEqual(['received', 'received']);

    gate.resolve();
    await until(() => order.length === 3, 'all three handled');
    await until(async () => (await inbox.backlog()) === 0, 'all marked done');
    await inbox.stop();

    expect(order).toEqual([a1.dedupe_key, a2.dedupe_key, b1.dedupe_key]);
    expect(most).toBe(1);
    // the pass woken by each stored-but-waiting event found no free slot, so ran no claim
    expect(rec.claims()).toBe(claimsBefore);
  });
});
