/**
 * Group commit of inbox events (src/inbox/insert-batch.ts): events received together are stored
 * in fewer statements, each decided as it would be alone — duplicates, one chat's order and
 * head, the sender's flood window — and a batch that fails whole is stored event by event.
 * Both engines.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createEventWriter, type PendingEvent } from '../../src/inbox/insert-batch.ts';
import type { Queryable } from '../../src/store/db.ts';
import type { InboundMessage } from '../../src/channel/types.ts';
import { inbound } from './helpers.ts';

/** `db` counting its INSERT statements into the inbox; `failBatches` makes multi-row ones fail. */
function counting(db: Queryable, opts: { failBatches?: number } = {}): { q: Queryable; inserts: () => number; batches: () => number } {
  let inserts = 0;
  let batches = 0;
  let fail = opts.failBatches ?? 0;
  const q: Queryable = {
    query: (async (text: string, params?: unknown[]) => {
      if (/INSERT INTO skillgate\.inbox_events/.test(text)) {
        inserts++;
        if (/json_to_recordset\(/.test(text)) {
          batches++;
          if (fail > 0) {
            fail--;
            throw Object.assign(new Error('simulated failure of a whole batch'), { code: '40P01' });
          }
        }
      }
      return db.query(text, params);
    }) as Queryable['query'],
  };
  return { q, inserts: () => inserts, batches: () => batches };
}

const OWNER = 'test-owner';
const at = Date.parse('2026-12-01T10:00:00Z');
const ev = (msg: InboundMessage, extra: Partial<PendingEvent> = {}): PendingEvent => ({
  msg,
  chatKey: `${msg.channel}:${msg.account}:${msg.chat.id}`,
  nowMs: at,
  ...extra,
});

describeEachEngine('inbox group commit', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });

  it('30 events of 30 chats received together: all stored and taken, in fewer statements than events', async () => {
    const c = counting(db());
    const writer = createEventWriter(c.q, { inFlight: 1 });
    const stored = await Promise.all(
      Array.from({ length: 30 }, (_, i) => writer.insert(ev(inbound(`chat${i}`, `k${i}`), { claim: { owner: OWNER, leaseMs: 60_000 } }))),
    );
    expect(stored.every((s) => s?.claimed && !s.refused)).toBe(true);
    expect(new Set(stored.map((s) => s!.id)).size).toBe(30);
    expect(c.inserts()).toBeLessThan(30);
    expect(c.batches()).toBeGreaterThan(0);
    const { rows } = await db().query<{ n: number; processing: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'processing' AND lease_owner = $1)::int AS processing FROM skillgate.inbox_events`,
      [OWNER],
    );
    expect(rows[0]).toEqual({ n: 30, processing: 30 });
    // each row holds its own message
    const back = await db().query<{ id: string; key: string }>(
      `SELECT id::text AS id, payload->>'message_id' AS key FROM skillgate.inbox_events`,
    );
    const keyOf = new Map(back.rows.map((r) => [r.id, r.key]));
    expect(stored.map((s) => keyOf.get(s!.id))).toEqual(stored.map((_, i) => `k${i}`));
  });

  it('events of one chat received together keep their order: ids ascend in receive order, only the first is taken', async () => {
    const c = counting(db());
    const writer = createEventWriter(c.q, { inFlight: 1 });
    const msgs = [
      ...Array.from({ length: 5 }, (_, i) => inbound('same', `s${i}`)),
      ...Array.from({ length: 5 }, (_, i) => inbound(`other${i}`, `o${i}`)),
    ];
    const stored = await Promise.all(msgs.map((m) => writer.insert(ev(m, { claim: { owner: OWNER, leaseMs: 60_000 } }))));
    const same = stored.slice(0, 5).map((s) => s!);
    const ids = same.map((s) => BigInt(s.id));
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
    expect(same.map((s) => s.claimed)).toEqual([true, false, false, false, false]);
    expect(stored.slice(5).every((s) => s!.claimed)).toBe(true);
  });

  it("with statements on their way at once, a chat's later event waits for the statement holding its earlier one", async () => {
    const writer = createEventWriter(db(), { inFlight: 4, gather: false });
    // A big first statement holds the chat's first event; a second statement could go meanwhile.
    const first = [
      ...Array.from({ length: 64 }, (_, i) => writer.insert(ev(inbound(`busy${i}`, `b${i}`)))),
      writer.insert(ev(inbound('ordered', 'first'))),
    ];
    const second = writer.insert(ev(inbound('ordered', 'second')));
    const [a, b] = [(await Promise.all(first)).at(-1)!, (await second)!];
    expect(BigInt(a!.id) < BigInt(b.id)).toBe(true);
  });

  it('a redelivery received together with its original is a duplicate (null); an event already stored is a duplicate', async () => {
    const writer = createEventWriter(db(), { inFlight: 1 });
    const m = inbound('dup', 'd1');
    const [a, b, other] = await Promise.all([writer.insert(ev(m)), writer.insert(ev({ ...m })), writer.insert(ev(inbound('dup2', 'd2')))]);
    expect(a).not.toBeNull();
    expect(b).toBeNull();
    expect(other).not.toBeNull();
    const [again, fresh] = await Promise.all([writer.insert(ev(m)), writer.insert(ev(inbound('dup3', 'd3')))]);
    expect(again).toBeNull();
    expect(fresh).not.toBeNull();
  });

  it("one sender's burst received together is counted event by event: limit 2 → two stored, three refused (0, 1, 2 refused before)", async () => {
    const writer = createEventWriter(db(), { inFlight: 1 });
    const flood = { perMinute: 2, senderId: 'spammer', windowMs: 60_000 };
    const burst = Array.from({ length: 5 }, (_, i) => ({
      ...inbound(`room${i}`, `f${i}`),
      chat: { id: `room${i}`, type: 'group' as const },
      actor: { id: 'spammer', display_name: 'S' },
    }));
    const quiet = Array.from({ length: 4 }, (_, i) => ({ ...inbound(`q${i}`, `q${i}`), actor: { id: `quiet${i}`, display_name: 'Q' } }));
    const stored = await Promise.all([
      ...burst.map((m) => writer.insert(ev(m, { flood }))),
      ...quiet.map((m) => writer.insert(ev(m, { flood: { ...flood, senderId: m.actor.id! } }))),
    ]);
    const mine = stored.slice(0, 5).map((s) => s!);
    expect(mine.map((s) => s.refused)).toEqual([false, false, true, true, true]);
    expect(mine.filter((s) => s.refused).map((s) => s.refusedBefore)).toEqual([0, 1, 2]);
    expect(stored.slice(5).every((s) => s !== null && !s.refused)).toBe(true);
  });

  it('a batch that fails whole is stored event by event: nothing lost, nothing twice', async () => {
    const c = counting(db(), { failBatches: 100 });
    const writer = createEventWriter(c.q, { inFlight: 1 });
    const stored = await Promise.all(Array.from({ length: 12 }, (_, i) => writer.insert(ev(inbound(`f${i}`, `fb${i}`)))));
    expect(stored.every((s) => s !== null)).toBe(true);
    expect(c.batches()).toBeGreaterThan(0);
    const { rows } = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.inbox_events`);
    expect(rows[0]!.n).toBe(12);
  });
});
