/**
 * The takeover statements (src/recovery/takeover.ts, docs/recovery.md) on both engines:
 * embedded start makes every lease of another owner due; a server beat takes over the leases
 * of instances whose heartbeat is older than the takeover time or that are known dead, and
 * leaves live instances and owners that never registered alone; a leaving instance makes its
 * own leases due. A lease made due is taken by the ordinary claim at once.
 */
import { beforeEach, expect, it } from 'vitest';
import { claimEvents } from '../../src/inbox/store.ts';
import { migrate } from '../../src/store/migrate.ts';
import { beatAndTakeOver, leave, takeOverAll } from '../../src/recovery/takeover.ts';
import { describeEachEngine } from '../helpers/db.ts';

describeEachEngine('recovery: taking over leases', (db) => {
  const future = () => new Date(Date.now() + 3_600_000).toISOString();
  const held = async (chat: string, owner: string): Promise<void> => {
    await db().query(
      `INSERT INTO skillgate.inbox_events (channel, account, dedupe_key, chat_key, payload, status, attempts, next_attempt_at, lease_owner, lease_until, received_at)
       VALUES ('web', 'default', $1, $1, '{}'::jsonb, 'processing', 1, now(), $2, $3::timestamptz, now())`,
      [chat, owner, future()],
    );
  };
  const sending = async (chat: string, owner: string): Promise<void> => {
    await db().query(
      `INSERT INTO skillgate.outbox_messages (channel, account, chat_key, target, message, status, attempts, next_attempt_at, lease_owner, lease_until, created_at)
       VALUES ('web', 'default', $1, '{}'::jsonb, '{}'::jsonb, 'sending', 1, now(), $2, $3::timestamptz, now())`,
      [chat, owner, future()],
    );
  };
  const dueInbox = async (): Promise<string[]> =>
    (
      await db().query<{ chat_key: string }>(
        `SELECT chat_key FROM skillgate.inbox_events WHERE status = 'processing' AND lease_until <= now() ORDER BY chat_key`,
      )
    ).rows.map((r) => r.chat_key);
  const dueOutbox = async (): Promise<string[]> =>
    (
      await db().query<{ chat_key: string }>(
        `SELECT chat_key FROM skillgate.outbox_messages WHERE status = 'sending' AND lease_until <= now() ORDER BY chat_key`,
      )
    ).rows.map((r) => r.chat_key);

  beforeEach(async () => {
    await migrate(db());
    await db().query('DELETE FROM skillgate.inbox_events');
    await db().query('DELETE FROM skillgate.outbox_messages');
    await db().query('DELETE FROM skillgate.instances');
  });

  it('embedded start: every lease of another owner is made due, its own are kept; the claim then takes them', async () => {
    await held('c-dead', 'dead-process');
    await held('c-self', 'me');
    await sending('o-dead', 'dead-process');
    expect(await takeOverAll(db(), 'me')).toEqual({ inbox: 1, outbox: 1 });
    expect(await dueInbox()).toEqual(['c-dead']);
    expect(await dueOutbox()).toEqual(['o-dead']);
    const claimed = await claimEvents(db(), 'me', Date.now(), 120_000, 10);
    expect(claimed.map((r) => [r.chat_key, r.attempts])).toEqual([['c-dead', 2]]);
  });

  it('server beat: a silent or known-dead instance is taken over; a live one and an unregistered owner are not', async () => {
    await db().query(
      `INSERT INTO skillgate.instances (id, heartbeat_at) VALUES ('silent', now() - interval '1 minute'), ('live', now()), ('gone', now())`,
    );
    await held('c-silent', 'silent');
    await held('c-live', 'live');
    await held('c-gone', 'gone');
    await held('c-unregistered', 'some-tool');
    await sending('o-silent', 'silent');
    const t = await beatAndTakeOver(db(), { id: 'me', hostKey: 'h', pid: 1 }, { knownDead: ['gone'] });
    expect({ inbox: t.inbox, outbox: t.outbox, dead: [...t.dead].sort() }).toEqual({ inbox: 2, outbox: 1, dead: ['gone', 'silent'] });
    expect(await dueInbox()).toEqual(['c-gone', 'c-silent']);
    const ids = (await db().query<{ id: string }>('SELECT id FROM skillgate.instances ORDER BY id')).rows.map((r) => r.id);
    expect(ids).toEqual(['live', 'me']);
    // A second beat finds nothing more and keeps this instance.
    expect((await beatAndTakeOver(db(), { id: 'me', hostKey: 'h', pid: 1 })).inbox).toBe(0);
  });

  it('a leaving instance makes what it still holds due and removes its row', async () => {
    await beatAndTakeOver(db(), { id: 'me', hostKey: null, pid: 1 });
    await held('c-mine', 'me');
    await held('c-other', 'other');
    await leave(db(), 'me');
    expect(await dueInbox()).toEqual(['c-mine']);
    expect((await db().query('SELECT 1 FROM skillgate.instances')).rows).toHaveLength(0);
  });
});
