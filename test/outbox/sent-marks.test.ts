/**
 * Delivery marks of concurrent sends share one statement (src/outbox/store.ts markSentMany):
 * each row is marked only while its lease is ours, the platform ids are stored, and a paced
 * chat's schedule moves exactly as a single mark moves it. Each mark says whether a row of its
 * chat waits behind it (the outbox then takes that chat's next row, src/outbox/outbox.ts).
 */
import { beforeAll, expect, it } from 'vitest';
import { insertMessage } from '../../src/outbox/store.ts';
import { markSent, markSentMany } from '../../src/outbox/delivery-marks.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

const T0 = Date.parse('2026-07-01T08:00:00Z');

describeEachEngine('delivery marks in one statement', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  async function sending(chat: string, owner: string): Promise<string> {
    const item = {
      target: { channel: 'telegram', account: 'm', chat_id: chat, chat_type: 'direct' as const },
      message: { kind: 'reply' as const, text: 'x', format: 'plain' as const },
      idempotency_key: `sm:${chat}:${owner}`,
    };
    const r = await insertMessage(db(), item, T0, { owner, leaseMs: 60_000 });
    expect(r.claimed).not.toBeNull();
    return r.id;
  }

  /** A row stored behind the chat's unfinished head: `queued`, and `ahead` says so. */
  async function behind(chat: string, key: string): Promise<string> {
    const item = {
      target: { channel: 'telegram', account: 'm', chat_id: chat, chat_type: 'direct' as const },
      message: { kind: 'reply' as const, text: 'y', format: 'plain' as const },
      idempotency_key: key,
    };
    const r = await insertMessage(db(), item, T0, { owner: 'me', leaseMs: 60_000 });
    expect(r).toMatchObject({ claimed: null, ahead: true });
    return r.id;
  }

  it('marks every row whose lease is ours, skips the others, and steps each paced chat once', async () => {
    const a = await sending('sm-a', 'me');
    const b = await sending('sm-b', 'me');
    const c = await sending('sm-c', 'someone-else');
    const single = await sending('sm-d', 'me');
    await behind('sm-b', 'sm:sm-b:behind');
    await behind('sm-d', 'sm:sm-d:behind');
    let statements = 0;
    const counted = { query: (text: string, values?: unknown[]) => (statements++, db().query(text, values as never)) } as never;
    const pace = (chat: string) => ({ chatKey: `telegram:m:${chat}`, stepMs: 1000, toleranceMs: 1000 });
    const results = await markSentMany(counted, [
      { id: a, owner: 'me', messageIds: ['11'], nowMs: T0, pace: pace('sm-a') },
      { id: b, owner: 'me', messageIds: ['12', '13'], nowMs: T0 },
      { id: c, owner: 'me', messageIds: ['14'], nowMs: T0, pace: pace('sm-c') },
    ]);
    expect(statements).toBe(1);
    expect(results).toEqual([
      { ours: true, notBeforeMs: T0, behind: false },
      { ours: true, notBeforeMs: 0, behind: true },
      { ours: false, notBeforeMs: 0, behind: false },
    ]);
    const one = await markSent(db(), single, 'me', ['15'], T0, pace('sm-d'));
    expect(one).toEqual({ ours: true, notBeforeMs: T0, behind: true });
    const { rows } = await db().query<{ id: string; status: string; ids: unknown }>(
      `SELECT id::text AS id, status, platform_message_ids AS ids FROM skillgate.outbox_messages WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [[a, b, c]],
    );
    expect(rows).toEqual([
      { id: a, status: 'sent', ids: ['11'] },
      { id: b, status: 'sent', ids: ['12', '13'] },
      { id: c, status: 'sending', ids: null },
    ]);
    // A chat already scheduled ahead (burst of 2) moves from its schedule, not from now: as markSent does.
    await db().query(`DELETE FROM skillgate.outbox_messages WHERE idempotency_key = 'sm:sm-d:behind'`);
    const a2 = await sending('sm-a', 'me-again');
    const d2 = await sending('sm-d', 'me-again');
    const [many] = await markSentMany(db(), [
      { id: a2, owner: 'me-again', messageIds: ['16'], nowMs: T0 + 200, pace: pace('sm-a') },
      { id: b, owner: 'me', messageIds: [], nowMs: T0 + 200 },
    ]);
    const alone = await markSent(db(), d2, 'me-again', ['17'], T0 + 200, pace('sm-d'));
    expect(many).toEqual({ ours: true, notBeforeMs: T0 + 1000, behind: false });
    expect(alone).toEqual(many);
  });
});
