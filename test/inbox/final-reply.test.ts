/**
 * A turn's reply and its event's done mark commit together (Outbox.enqueueFinal,
 * docs/pipeline.md "One commit for the reply and the done mark"): one statement writes
 * both — the same clock value lands in both rows —, the inbox then writes no done mark of its
 * own, the next event of the chat still runs, and a lease that is no longer ours marks nothing.
 */
import { beforeAll, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channel/types.ts';
import { auditRowsWrite } from '../../src/audit/store.ts';
import { createInbox } from '../../src/inbox/index.ts';
import type { InboxEvent } from '../../src/inbox/types.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

const log = createLogger({ level: 'silent' });

function message(id: string, chat: string): InboundMessage {
  return {
    kind: 'message',
    channel: 'test',
    account: 'default',
    dedupe_key: `fr:${id}`,
    message_id: id,
    chat: { id: chat, type: 'direct' },
    actor: { id: 'p1', display_name: 'P' },
    addressed_to_bot: true,
    raw_input: id,
    attachments: [],
  } as unknown as InboundMessage;
}

async function until(cond: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met');
}

describeEachEngine('the reply carries the done mark', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('one statement stores the reply and marks the event done; the chat moves on', async () => {
    const outbox = createOutbox(db(), { log, adapterFor: () => undefined });
    const inbox = createInbox(db(), { log, pollMs: 50 });
    const handled: string[] = [];
    const outcomes: boolean[] = [];
    inbox.start(async (ev: InboxEvent) => {
      handled.push(ev.message.raw_input ?? '');
      const r = await outbox.enqueueFinal(
        [
          {
            target: { channel: 'test', account: 'default', chat_id: 'c1' },
            message: { kind: 'reply', text: `re ${ev.message.raw_input}`, format: 'plain', final: true },
            idempotency_key: `fr-turn:${ev.id}`,
          },
        ],
        { inboxEventId: ev.id, leaseOwner: ev.lease_owner },
      );
      outcomes.push(r.completed);
      return { completed: r.completed };
    });
    await inbox.receive(message('a1', 'c1'));
    await inbox.receive(message('a2', 'c1'));
    await until(() => handled.length === 2 && outcomes.length === 2);
    await inbox.stop();
    expect(handled).toEqual(['a1', 'a2']);
    expect(outcomes).toEqual([true, true]);
    const { rows } = await db().query<{ raw: string; status: string; same: boolean }>(
      `SELECT e.payload->>'raw_input' AS raw, e.status, e.processed_at = o.created_at AS same
         FROM skillgate.inbox_events e JOIN skillgate.outbox_messages o ON o.idempotency_key = 'fr-turn:' || e.id
        WHERE e.dedupe_key IN ('fr:a1', 'fr:a2') ORDER BY e.id`,
    );
    expect(rows).toEqual([
      { raw: 'a1', status: 'done', same: true },
      { raw: 'a2', status: 'done', same: true },
    ]);
  });

  it('a lease that is not ours: the reply is stored, the event is not marked', async () => {
    const outbox = createOutbox(db(), { log, adapterFor: () => undefined });
    const inbox = createInbox(db(), { log });
    await inbox.receive(message('b1', 'c2'));
    const { rows } = await db().query<{ id: string }>(`SELECT id::text AS id FROM skillgate.inbox_events WHERE dedupe_key = 'fr:b1'`);
    const r = await outbox.enqueueFinal(
      [
        {
          target: { channel: 'test', account: 'default', chat_id: 'c2' },
          message: { kind: 'reply', text: 'x', format: 'plain', final: true },
          idempotency_key: 'fr-b1',
        },
      ],
      { inboxEventId: rows[0]!.id, leaseOwner: 'somebody-else' },
    );
    expect(r.completed).toBe(false);
    expect(r.ids).toHaveLength(1);
    const ev = await db().query<{ status: string }>(`SELECT status FROM skillgate.inbox_events WHERE id = $1::bigint`, [rows[0]!.id]);
    expect(ev.rows[0]!.status).toBe('received');
  });

  it('a write carried alongside (the turn audit rows) commits with the reply and the done mark, or nothing does', async () => {
    const outbox = createOutbox(db(), { log, adapterFor: () => undefined });
    const inbox = createInbox(db(), { log });
    await inbox.receive(message('d1', 'c4'));
    await inbox.receive(message('d2', 'c5'));
    const { rows: evs } = await db().query<{ id: string; key: string }>(
      `SELECT id::text AS id, dedupe_key AS key FROM skillgate.inbox_events WHERE dedupe_key IN ('fr:d1', 'fr:d2') ORDER BY id`,
    );
    await db().query(`UPDATE skillgate.inbox_events SET status = 'processing', lease_owner = 'me' WHERE dedupe_key IN ('fr:d1', 'fr:d2')`);
    const entry = {
      at: new Date('2026-07-01T08:00:00Z'),
      orgId: 'demo',
      roleId: 'default',
      channel: 'test',
      line: 'chat',
      sessionId: 'fr-session',
      actorEmpNo: 'E1',
      actorName: 'P',
      skill: 'fr_skill',
      action: 'query',
      paramsHash: 'b'.repeat(64),
      paramKeys: ['x'],
      success: true,
      errorType: null,
      durationMs: 3,
      confirmTokenHash: null,
    };
    const item = (chat: string, key: string) => ({
      target: { channel: 'test', account: 'default', chat_id: chat },
      message: { kind: 'reply' as const, text: 'x', format: 'plain' as const, final: true },
      idempotency_key: key,
    });
    const ok = await outbox.enqueueFinal([item('c4', 'fr-d1')], {
      inboxEventId: evs[0]!.id,
      leaseOwner: 'me',
      alongside: auditRowsWrite([entry]),
    });
    expect(ok.completed).toBe(true);
    const audit = await db().query<{ skill: string; action: string }>(
      `SELECT skill, action FROM skillgate.audit_log WHERE session_id = 'fr-session'`,
    );
    expect(audit.rows).toEqual([{ skill: 'fr_skill', action: 'query' }]);
    // A carried write that fails takes the reply and the done mark with it.
    const broken = { sql: () => `INSERT INTO skillgate.audit_log (at) VALUES (NULL)`, params: [] };
    await expect(
      outbox.enqueueFinal([item('c5', 'fr-d2')], { inboxEventId: evs[1]!.id, leaseOwner: 'me', alongside: broken }),
    ).rejects.toThrow();
    const left = await db().query<{ status: string; replies: string }>(
      `SELECT e.status, (SELECT count(*) FROM skillgate.outbox_messages WHERE idempotency_key = 'fr-d2')::text AS replies
         FROM skillgate.inbox_events e WHERE e.id = $1::bigint`,
      [evs[1]!.id],
    );
    expect(left.rows).toEqual([{ status: 'processing', replies: '0' }]);
  });
});
