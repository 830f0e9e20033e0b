/**
 * Final replies of turns of different chats in one statement (src/outbox/final-batch.ts): each
 * row stored and taken as its chat's head exactly as a single reply's statement does, each
 * event's done mark only while its lease is ours, the audit rows they carry written once, a
 * repeated reply answered with the first row; and through the outbox, concurrent final replies
 * share statements while one that fails fails alone.
 */
import { beforeAll, expect, it } from 'vitest';
import { auditRowsWrite } from '../../src/audit/store.ts';
import type { AuditEntry } from '../../src/audit/entry.ts';
import { insertFinalReplies, type FinalReply } from '../../src/outbox/final-batch.ts';
import { createOutbox } from '../../src/outbox/outbox.ts';
import { insertMessage } from '../../src/outbox/store.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createLogger } from '../../src/log/logger.ts';
import { describeEachEngine } from '../helpers/db.ts';

const T0 = Date.parse('2026-07-01T08:00:00Z');
let seq = 0;

describeEachEngine('final replies in one statement', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  /** An inbox event being processed under `owner`; its id. */
  async function processing(chat: string, owner: string): Promise<string> {
    const { rows } = await db().query<{ id: string }>(
      `INSERT INTO skillgate.inbox_events (channel, account, dedupe_key, chat_key, payload, status, attempts, next_attempt_at, lease_owner, lease_until, received_at)
       VALUES ('telegram', 'fb', $1, $2, '{}'::jsonb, 'processing', 1, $3::timestamptz, $4, $3::timestamptz + interval '1 minute', $3::timestamptz)
       RETURNING id::text AS id`,
      [`d${++seq}`, `telegram:fb:${chat}`, new Date(T0).toISOString(), owner],
    );
    return rows[0]!.id;
  }

  function audit(chat: string, skill: string): AuditEntry {
    return {
      at: new Date(T0),
      orgId: 'demo',
      roleId: 'default',
      channel: 'telegram',
      line: 'chat',
      sessionId: `s-${chat}`,
      actorEmpNo: `E${chat}`,
      actorName: '测试\ttab',
      skill,
      action: '',
      paramsHash: 'h',
      paramKeys: ['a', 'b'],
      success: true,
      errorType: null,
      durationMs: 3,
      confirmTokenHash: null,
    };
  }

  function reply(chat: string, eventId: string, owner: string, entries: AuditEntry[] = []): FinalReply {
    return {
      item: {
        target: { channel: 'telegram', account: 'fb', chat_id: chat, chat_type: 'direct' },
        message: { kind: 'reply', text: `回复 ${chat} "quoted" \\ back`, format: 'plain' },
        idempotency_key: `turn:${eventId}:0`,
        origin: { inbox_event_id: eventId, lang: 'zh-CN' },
      },
      completes: { inboxEventId: eventId, leaseOwner: owner, ...(entries.length ? { alongside: auditRowsWrite(entries) } : {}) },
    };
  }

  it('stores each row, takes each chat head, marks only the events whose lease is ours, writes the carried audit rows', async () => {
    const tag = `fb${++seq}`;
    const [a, b, c] = [`${tag}a`, `${tag}b`, `${tag}c`];
    // Chat c already has an unfinished message: its reply waits behind it.
    const ahead = await insertMessage(
      db(),
      { target: { channel: 'telegram', account: 'fb', chat_id: c, chat_type: 'direct' }, message: { kind: 'reply', text: 'earlier', format: 'plain' } },
      T0,
    );
    const ea = await processing(a, 'me');
    const eb = await processing(b, 'someone-else');
    const ec = await processing(c, 'me');
    const replies = [reply(a, ea, 'me', [audit(a, 'sk1'), audit(a, 'sk2')]), reply(b, eb, 'me'), reply(c, ec, 'me', [audit(c, 'sk3')])];
    const out = await insertFinalReplies(db(), replies, T0, { owner: 'me', leaseMs: 60_000 }, undefined);
    expect(out.map((o) => o.completed)).toEqual([true, false, true]);
    expect(out.every((o) => o.id !== null)).toBe(true);
    expect(out[0]!.claimed).toMatchObject({ id: out[0]!.id, status: 'sending', chat_key: `telegram:fb:${a}`, attempts: 1, message: replies[0]!.item.message });
    expect(out[1]!.claimed?.id).toBe(out[1]!.id);
    expect(out[2]!.claimed).toBeNull();
    // Only the row stored behind an unfinished one says so (whoever finishes that one takes it).
    expect(out.map((o) => o.ahead)).toEqual([false, false, true]);
    const { rows } = await db().query<{ id: string; status: string; lease_owner: string | null; message: unknown; origin: unknown }>(
      `SELECT id::text AS id, status, lease_owner, message, origin FROM skillgate.outbox_messages WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [out.map((o) => o.id)],
    );
    expect(rows.map((r) => [r.status, r.lease_owner])).toEqual([
      ['sending', 'me'],
      ['sending', 'me'],
      ['queued', null],
    ]);
    expect(rows.map((r) => r.message)).toEqual(replies.map((r) => r.item.message));
    expect(rows[2]!.origin).toEqual({ inbox_event_id: ec, lang: 'zh-CN' });
    expect(BigInt(ahead.id) < BigInt(out[2]!.id!)).toBe(true);
    const events = await db().query<{ id: string; status: string }>(
      `SELECT id::text AS id, status FROM skillgate.inbox_events WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [[ea, eb, ec]],
    );
    expect(events.rows.map((e) => e.status)).toEqual(['done', 'processing', 'done']);
    const logged = await db().query<{ skill: string; actor_name: string; param_keys: string[] }>(
      `SELECT skill, actor_name, param_keys FROM skillgate.audit_log WHERE session_id = ANY($1::text[]) ORDER BY skill`,
      [[`s-${a}`, `s-${b}`, `s-${c}`]],
    );
    expect(logged.rows).toEqual([
      { skill: 'sk1', actor_name: '测试\ttab', param_keys: ['a', 'b'] },
      { skill: 'sk2', actor_name: '测试\ttab', param_keys: ['a', 'b'] },
      { skill: 'sk3', actor_name: '测试\ttab', param_keys: ['a', 'b'] },
    ]);
    // The same replies again (a repeated turn): no new row, no second done mark, ids null for the caller to look up.
    const again = await insertFinalReplies(db(), replies, T0 + 1000, { owner: 'me', leaseMs: 60_000 }, undefined);
    expect(again).toEqual([
      { id: null, claimed: null, completed: false, ahead: false },
      { id: null, claimed: null, completed: false, ahead: false },
      { id: null, claimed: null, completed: false, ahead: false },
    ]);
  });

  it('through the outbox: concurrent final replies share statements; one that fails fails alone', async () => {
    const tag = `fo${++seq}`;
    let statements = 0;
    const base = db();
    const counting: Db = new Proxy(base, {
      get(target, prop, receiver) {
        if (prop === 'relaxed') {
          const q = target.relaxed;
          return { query: (text: string, values?: readonly unknown[]) => (statements++, q.query(text, values)) };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    const outbox = createOutbox(counting, { log: createLogger({ level: 'silent' }), adapterFor: () => undefined });
    const chats = Array.from({ length: 6 }, (_, i) => `${tag}-${i}`);
    const events: string[] = [];
    for (const c of chats) events.push(await processing(c, 'w'));
    // One reply the database refuses (an event id that is no number): its batch fails, then only it.
    const results = await Promise.allSettled(
      chats.map((c, i) => {
        const r = reply(c, events[i]!, 'w', [audit(c, `k${i}`)]);
        return outbox.enqueueFinal([r.item], i === 3 ? { ...r.completes, inboxEventId: 'not-a-number' } : r.completes);
      }),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    for (const [i, r] of results.entries()) if (r.status === 'fulfilled') expect(r.value.completed, `reply ${i}`).toBe(true);
    const done = await base.query<{ id: string; status: string }>(
      `SELECT id::text AS id, status FROM skillgate.inbox_events WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [events],
    );
    const statusOf = new Map(done.rows.map((e) => [e.id, e.status]));
    expect(events.map((id) => statusOf.get(id))).toEqual(['done', 'done', 'done', 'processing', 'done', 'done']);
    const stored = await base.query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.outbox_messages WHERE chat_key LIKE $1`, [
      `telegram:fb:${tag}-%`,
    ]);
    expect(stored.rows[0]!.n).toBe(5);
    // The first two went at once, each alone; the other four shared one statement that failed,
    // then went one by one.
    expect(statements).toBe(2 + 1 + 4);
    // Without a failure, six replies take fewer statements than six.
    statements = 0;
    const tag2 = `fp${++seq}`;
    const more = Array.from({ length: 6 }, (_, i) => `${tag2}-${i}`);
    const ev2 = await Promise.all(more.map((c) => processing(c, 'w')));
    const ok = await Promise.all(
      more.map((c, i) => {
        const r = reply(c, ev2[i]!, 'w', [audit(c, 'k')]);
        return outbox.enqueueFinal([r.item], r.completes);
      }),
    );
    expect(ok.every((r) => r.completed)).toBe(true);
    expect(statements).toBeLessThan(6);
    const rows = await base.query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.audit_log WHERE session_id LIKE $1`, [`s-${tag2}-%`]);
    expect(rows.rows[0]!.n).toBe(6);
  });
});
