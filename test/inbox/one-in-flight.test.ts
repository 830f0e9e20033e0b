/**
 * One in flight per chat without chat locks (migration 0030, docs/pipeline.md "Per-chat
 * order without locks"): many processes storing events or messages of one chat at the same
 * moment, each trying to take the chat's head in its INSERT — exactly one takes it, every row
 * is stored, and the constraint refuses a second `processing` / `sending` row outright.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channel/types.ts';
import { insertEvent, isChatTaken, markDoneAndClaim } from '../../src/inbox/store.ts';
import { insertMessage } from '../../src/outbox/store.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openServerDb } from '../../src/store/open.ts';
import { describeEachEngine, serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';

function message(id: string, chat = 'c1'): InboundMessage {
  return {
    kind: 'message',
    channel: 'telegram',
    account: 'default',
    dedupe_key: `u:${id}`,
    message_id: id,
    chat: { id: chat, type: 'private' },
    actor: { id: 'p1', display_name: 'P' },
    addressed_to_bot: true,
    raw_input: `hi ${id}`,
    attachments: [],
  } as unknown as InboundMessage;
}

const claim = (owner: string) => ({ owner, leaseMs: 60_000 });

describeEachEngine('one in flight per chat', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('a second processing event of a chat is refused by the database itself', async () => {
    const first = await insertEvent(db(), message('x1', 'cx'), 'telegram:default:cx', Date.now(), claim('a'));
    expect(first?.claimed).toBe(true);
    const second = await insertEvent(db(), message('x2', 'cx'), 'telegram:default:cx', Date.now(), claim('b'));
    expect(second?.claimed).toBe(false);
    let err: unknown;
    try {
      await db().query(
        `UPDATE skillgate.inbox_events SET status = 'processing', lease_owner = 'b' WHERE chat_key = 'telegram:default:cx' AND id <> $1::bigint`,
        [first!.id],
      );
    } catch (e) {
      err = e;
    }
    expect(isChatTaken(err)).toBe(true);
  });

  it('finishing an event takes the next of its chat in the same statement', async () => {
    const key = 'telegram:default:cy';
    const a = await insertEvent(db(), message('y1', 'cy'), key, Date.now(), claim('w'));
    const b = await insertEvent(db(), message('y2', 'cy'), key, Date.now(), claim('w'));
    expect([a?.claimed, b?.claimed]).toEqual([true, false]);
    const r = await markDoneAndClaim(db(), a!.id, 'w', Date.now(), 60_000, 1);
    expect(r.done).toBe(true);
    expect(r.claimed.map((c) => c.id)).toEqual([b!.id]);
  });
});

describe.runIf(TEST_DATABASE_URL)('one in flight per chat across processes (server)', () => {
  const dbs: Db[] = [];
  beforeAll(async () => {
    const url = await serverDatabaseUrl('_inflight', true);
    for (let i = 0; i < 4; i++) dbs.push(openServerDb(url, { max: 4 }));
    await migrate(dbs[0]!);
  });
  afterAll(async () => {
    for (const d of dbs) await d.close();
  });

  it('16 events of one chat stored at once through four pools: all stored, exactly one taken', async () => {
    const key = 'telegram:default:race';
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        insertEvent(dbs[i % 4]!, message(`r${i}`, 'race'), key, Date.now(), claim(`owner${i % 4}`), 'skillgate_test_inbox'),
      ),
    );
    expect(results.every((r) => r !== null)).toBe(true);
    expect(results.filter((r) => r!.claimed)).toHaveLength(1);
    const { rows } = await dbs[0]!.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM skillgate.inbox_events WHERE chat_key = $1 GROUP BY status ORDER BY status`,
      [key],
    );
    expect(rows).toEqual([
      { status: 'processing', n: 1 },
      { status: 'received', n: 15 },
    ]);
  });

  it('16 replies to one chat enqueued at once: all stored, exactly one sending', async () => {
    const target = { channel: 'telegram', account: 'default', chat_id: 'race2', thread_id: null, chat_type: 'direct' as const };
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        insertMessage(
          dbs[i % 4]!,
          { target, message: { kind: 'reply', text: `m${i}`, format: 'plain', final: true }, idempotency_key: `race2:${i}` },
          Date.now(),
          claim(`o${i % 4}`),
        ),
      ),
    );
    expect(new Set(results.map((r) => r.id)).size).toBe(16);
    expect(results.filter((r) => r.claimed)).toHaveLength(1);
  });
});
