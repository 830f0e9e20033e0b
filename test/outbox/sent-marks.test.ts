/**
 * Delivery marks in one statement (src/outbox/store.ts markSentMany, the outbox's group
 * commit): each row is marked only while its lease is its sender's, with its own platform ids.
 */
import { beforeAll, expect, it } from 'vitest';
import { insertMessage, markSentMany } from '../../src/outbox/store.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

describeEachEngine('delivery marks together', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('marks the rows whose lease is ours and tells which', async () => {
    const ids: string[] = [];
    for (const chat of ['m1', 'm2', 'm3']) {
      const r = await insertMessage(db(), { target: { channel: 'test', account: 'default', chat_id: chat }, message: { kind: 'reply', text: chat, format: 'plain', final: true } }, Date.now(), { owner: 'me', leaseMs: 60_000 });
      expect(r.claimed).not.toBeNull();
      ids.push(r.id);
    }
    const marks = ids.map((id, i) => ({ id, owner: i === 1 ? 'not-me' : 'me', messageIds: [`p${i}`], nowMs: Date.now() }));
    expect(await markSentMany(db(), marks)).toEqual([true, false, true]);
    const { rows } = await db().query<{ status: string; ids: unknown }>(
      `SELECT status, platform_message_ids AS ids FROM skillgate.outbox_messages WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [ids],
    );
    expect(rows).toEqual([
      { status: 'sent', ids: ['p0'] },
      { status: 'sending', ids: null },
      { status: 'sent', ids: ['p2'] },
    ]);
  });
});
