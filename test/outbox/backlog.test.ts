/**
 * A chat with a backlog stays cheap (docs/operations-delivery.md "The delivery loop"): rows
 * stored behind a head in flight wake nobody and are taken one chat at a time by whoever
 * finishes the head, never by a general pass per delivery; every pace end asked for wakes the
 * loop (no poll needed). Statements are counted through a wrapping Db. Both engines.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createOutbox, systemClock, type OutboxItem } from '../../src/outbox/index.ts';
import { insertMessage } from '../../src/outbox/store.ts';
import { CHANNEL_POLICIES } from '../../src/outbox/pacing.ts';
import type { ChatType, OutboundTarget } from '../../src/channel/types.ts';
import type { Db, Queryable } from '../../src/store/db.ts';
import { captureLog, latch, until } from '../inbox/helpers.ts';
import { FakeTelegram, outboxListening, telegramLikeAdapter } from './fakes.ts';

const target = (chat: string, chatType: ChatType = 'direct'): OutboundTarget => ({
  channel: 'telegram',
  account: 'default',
  chat_id: chat,
  chat_type: chatType,
});
const item = (chat: string, text: string, chatType: ChatType = 'direct', origin?: OutboxItem['origin']): OutboxItem => ({
  target: target(chat, chatType),
  message: { kind: 'reply', text, format: 'plain', final: true },
  ...(origin ? { origin } : {}),
});
/** A turn's answer to a person's own message: the one-to-one chat's pace never holds it (src/outbox/pacing.ts). */
const answer = (chat: string, text: string, n: number): OutboxItem => item(chat, text, 'direct', { inbox_event_id: String(n) });

/** What kind of claim a statement is: a general pass takes up to a number of rows, a chat claim one chat's head. */
type Claims = { passes: number; chat: number };

/** `db` with every claim statement counted (by its text and its fourth parameter: a limit or a chat key). */
function countingDb(db: Db, claims: Claims): Db {
  const count = (text: string, values?: unknown[]): void => {
    if (!/SET status = 'sending', lease_owner = \$1/.test(text) || /^\s*INSERT/i.test(text)) return;
    if (typeof values?.[3] === 'number') claims.passes++;
    else claims.chat++;
  };
  const wrap = (q: Queryable): Queryable => ({
    query: ((text: string, values?: unknown[]) => (count(text, values), q.query(text, values as never))) as Queryable['query'],
  });
  const relaxed = wrap(db.relaxed);
  return new Proxy(db, {
    get(t, k, r) {
      if (k === 'query') return wrap(t).query;
      if (k === 'relaxed') return relaxed;
      const v = Reflect.get(t, k, r) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

describeEachEngine('outbox: a chat with a backlog', (db, engine) => {
  const platform = new FakeTelegram();
  beforeAll(async () => {
    await migrate(db());
    await platform.listen();
  });
  afterAll(() => platform.close());
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.outbox_messages, skillgate.delivery_pace');
    platform.requests.length = 0;
  });

  /** Wait until the outbox's LISTEN is in place and its first passes are done (server). */
  async function settled(): Promise<void> {
    if (engine === 'server') await outboxListening(db());
    else await new Promise((r) => setTimeout(r, 50));
  }

  it('30 replies stored behind a head in flight: all sent in order, each taken by a chat claim, no general pass per delivery', async () => {
    const { log } = captureLog();
    const gate = latch();
    const inFlight = latch();
    const adapter = telegramLikeAdapter(() => platform.url, systemClock, {
      beforeSend: async (m) => {
        if (m.text !== 'r0') return;
        inFlight.resolve();
        await gate.promise;
      },
    });
    const claims: Claims = { passes: 0, chat: 0 };
    const counted = countingDb(db(), claims);
    const outbox = createOutbox(counted, { log, adapterFor: () => adapter, pollMs: 60_000 });
    outbox.start();
    try {
      await settled();
      const before = { ...claims };
      const ids = await outbox.enqueue(counted, [answer('bk', 'r0', 0)]); // taken in its INSERT
      await inFlight.promise;
      for (let i = 1; i < 30; i++) ids.push(...(await outbox.enqueue(counted, [answer('bk', `r${i}`, i)])));
      const { rows } = await db().query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM skillgate.outbox_messages GROUP BY status ORDER BY status`,
      );
      expect(rows).toEqual([
        { status: 'queued', n: 29 },
        { status: 'sending', n: 1 },
      ]);
      gate.resolve();
      expect(await outbox.waitFor(ids[29]!, 20_000)).toBe('sent');
      expect(platform.requests.map((r) => r.text)).toEqual(Array.from({ length: 30 }, (_, i) => `r${i}`));
      // The old loop ran a pass for every stored row and after every delivery (≥ 58 here).
      expect(claims.passes - before.passes).toBe(0);
      // Each of the 29 rows behind was taken by the chat claim after its predecessor was recorded.
      expect(claims.chat - before.chat).toBe(29);
    } finally {
      gate.resolve();
      await outbox.stop();
    }
  });

  it('a row stored behind an unfinished one is marked `ahead` and not announced; a queued head is', async () => {
    const heard: string[] = [];
    const off = await db().listen('skillgate_outbox_test', (p) => heard.push(p));
    try {
      const head = await insertMessage(db(), item('ah', 'head'), Date.now(), undefined, 'skillgate_outbox_test');
      const behind = await insertMessage(db(), item('ah', 'behind'), Date.now(), undefined, 'skillgate_outbox_test');
      const everyone = await insertMessage(
        db(),
        item('ah', 'in a caller tx'),
        Date.now(),
        undefined,
        'skillgate_outbox_test',
        undefined,
        true,
      );
      expect(head).toMatchObject({ claimed: null, ahead: false });
      expect(behind).toMatchObject({ claimed: null, ahead: true });
      expect(everyone).toMatchObject({ claimed: null, ahead: true });
      if (engine === 'server') {
        // pg_notify in the INSERT: the head and the row of a caller's transaction, not the one behind.
        await until(() => heard.length >= 2, 'notifications');
        await new Promise((r) => setTimeout(r, 100));
        expect(heard.sort()).toEqual([head.id, everyone.id].sort());
      }
    } finally {
      await off();
    }
  });

  it('pace ends asked for while an earlier one is pending all wake the loop: the poll is a minute away', async () => {
    const { log } = captureLog();
    const adapter = telegramLikeAdapter(() => platform.url, systemClock);
    // Three chats with three paces; the shortest pace end is asked for first or replaces the others.
    const policies = {
      ...CHANNEL_POLICIES,
      telegram: {
        chat: { direct: { intervalMs: 150, burst: 1 }, group: { intervalMs: 700, burst: 1 }, channel: { intervalMs: 1200, burst: 1 } },
        account: { perSecond: 1000 },
      },
    };
    const outbox = createOutbox(db(), { log, adapterFor: () => adapter, pollMs: 60_000, policies });
    outbox.start();
    try {
      await settled();
      const ids = await outbox.enqueue(db(), [
        item('pa', 'a1', 'direct'),
        item('pa', 'a2', 'direct'),
        item('pb', 'b1', 'group'),
        item('pb', 'b2', 'group'),
        item('pc', 'c1', 'channel'),
        item('pc', 'c2', 'channel'),
      ]);
      for (const id of ids) expect(await outbox.waitFor(id, 15_000)).toBe('sent');
      const order = (chat: string) => platform.requests.filter((r) => r.chat_id === chat).map((r) => r.text);
      expect([order('pa'), order('pb'), order('pc')]).toEqual([
        ['a1', 'a2'],
        ['b1', 'b2'],
        ['c1', 'c2'],
      ]);
    } finally {
      await outbox.stop();
    }
  });
});
