/**
 * Poison events (src/inbox/admin.ts; docs/operations-delivery.md "Quarantined events"): an
 * event whose turn fails 5 times, or whose runs outlive their lease 5 times (a hang, a crash),
 * is set aside as `failed` — stored, listed, retryable and discardable — and neither blocks its
 * chat nor a restart. Both engines; lease expiry on an injected clock.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createInbox, discardQuarantined, listQuarantined, retryQuarantined, type InboxEvent } from '../../src/inbox/index.ts';
import { runInboxCommand } from '../../src/admin/inbox.ts';
import { captureLog, inbound, until } from './helpers.ts';

describeEachEngine('inbox quarantine', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });
  const row = async (dedupe: string) =>
    (
      await db().query<{ id: string; status: string; attempts: number; error: string | null }>(
        'SELECT id::text AS id, status, attempts, error FROM skillgate.inbox_events WHERE dedupe_key = $1',
        [dedupe],
      )
    ).rows[0]!;

  it('an event failing 5 times is quarantined; a restart is healthy with it stored; the chat goes on; retry runs it, discard keeps it', async () => {
    const { log } = captureLog();
    let runs = 0;
    const a = createInbox(db(), { log, pollMs: 10, retryBaseMs: 1 });
    a.start(async (e: InboxEvent) => {
      if (e.message.raw_input === 'poison') {
        runs++;
        throw new Error('turn exploded');
      }
    });
    await a.receive(inbound('c1', 'p1', 'poison'));
    await until(async () => (await row('telegram:update:p1')).status === 'failed', 'quarantined');
    await a.stop();
    expect(runs).toBe(5);
    expect(await row('telegram:update:p1')).toMatchObject({ status: 'failed', attempts: 5, error: 'Error: turn exploded' });

    // Restart: nothing of the poison event runs again; the same chat's next message is handled.
    const handled: string[] = [];
    const b = createInbox(db(), { log, pollMs: 10, retryBaseMs: 1 });
    b.start(async (e) => void handled.push(e.message.raw_input ?? ''));
    try {
      await b.receive(inbound('c1', 'n1', 'next'));
      await until(async () => (await b.backlog()) === 0, 'next message handled and done');
      expect(handled).toEqual(['next']);
      expect(runs).toBe(5);
      const listed = await listQuarantined(db());
      expect(listed.map((q) => [q.chat_key, q.preview, q.attempts, q.sender])).toEqual([['telegram:default:c1', 'poison', 5, 'u1']]);

      // Retry: runs once more (this handler accepts it); discard only touches a quarantined event.
      const id = listed[0]!.id;
      expect(await retryQuarantined(db(), id)).toBe(true);
      await until(() => handled.includes('poison'), 'retried event handled');
      await until(async () => (await row('telegram:update:p1')).status === 'done', 'retried event done');
      expect(await retryQuarantined(db(), id)).toBe(false);
      expect(await discardQuarantined(db(), id)).toBe(false);
    } finally {
      await b.stop();
    }
  });

  it('an event whose runs outlive their lease 5 times (the process hangs or dies each time) is quarantined at the next start, which stays healthy', async () => {
    const { log } = captureLog();
    let t = Date.parse('2026-12-01T10:00:00Z');
    const clock = () => t;
    let started = 0;
    await createInbox(db(), { log, clock }).receive(inbound('c2', 'h1', 'hang'));
    for (let i = 0; i < 5; i++) {
      const x = createInbox(db(), { log, clock, pollMs: 10, leaseMs: 60_000 });
      const seen = started;
      x.start(() => {
        started++;
        return new Promise<void>(() => undefined); // never finishes
      });
      await until(() => started > seen, `run ${i + 1} started`);
      await x.stop({ graceMs: 0 }); // the process "dies": its lease is no longer renewed
      t += 61_000;
    }
    expect(await row('telegram:update:h1')).toMatchObject({ status: 'processing', attempts: 5 });
    const handled: string[] = [];
    const y = createInbox(db(), { log, clock, pollMs: 10, leaseMs: 60_000 });
    y.start(async (e) => {
      if (e.message.raw_input === 'hang') started++;
      handled.push(e.message.raw_input ?? '');
    });
    try {
      await y.receive(inbound('c2', 'h2', 'after'));
      await until(() => handled.includes('after'), 'the chat goes on');
      expect(started).toBe(5); // not run a sixth time
      const r = await row('telegram:update:h1');
      expect(r.status).toBe('failed');
      expect(r.error).toMatch(/^abandoned: 5 runs ended without a result/);
      // Listed and discardable through the CLI's request handler.
      const out = await runInboxCommand(db(), { op: 'list' });
      expect(out.ok && out.events?.map((e) => e.id)).toEqual([r.id]);
      expect(await runInboxCommand(db(), { op: 'discard', id: r.id })).toEqual({ ok: true, id: r.id });
      expect((await row('telegram:update:h1')).status).toBe('discarded');
      expect(await runInboxCommand(db(), { op: 'retry', id: r.id })).toMatchObject({ ok: false });
    } finally {
      await y.stop();
    }
  });
});
