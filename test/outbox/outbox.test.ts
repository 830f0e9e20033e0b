/**
 * Outbox (durable outbound) against a loopback Telegram-like platform: persisted
 * first, retries that honour retry_after, per-chat order, rate limit, permanent failures,
 * waitFor (docs/messaging.md send_message sent/queued). Both engines.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createOutbox, systemClock, type OutboxItem } from '../../src/outbox/index.ts';
import type { OutboundTarget } from '../../src/channel/types.ts';
import { captureLog, latch } from '../inbox/helpers.ts';
import { CHAT_NOT_FOUND, FakeClock, FakeTelegram, INTERNAL, outboxListening, TOO_MANY, telegramLikeAdapter } from './fakes.ts';

const target = (chat: string, channel = 'telegram'): OutboundTarget => ({
  channel,
  account: 'default',
  chat_id: chat,
  chat_type: 'direct',
});
const item = (chat: string, text: string, extra: Partial<OutboxItem> = {}): OutboxItem => ({
  target: target(chat),
  message: { kind: 'reply', text, format: 'plain', final: true },
  ...extra,
});

describeEachEngine('outbox', (db, engine) => {
  const platform = new FakeTelegram();
  beforeAll(async () => {
    await migrate(db());
    await platform.listen();
  });
  afterAll(async () => {
    await platform.close();
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.outbox_messages, skillgate.delivery_pace');
    platform.requests.length = 0;
  });

  it('429 retry_after 5, then 500, then 200: delivered exactly once, in order with the next message of the chat, never before the advertised wait', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const adapter = telegramLikeAdapter(() => platform.url, clock);
    const outbox = createOutbox(db(), { log, clock, adapterFor: () => adapter, random: () => 0.5 });
    platform.script('first', [TOO_MANY, INTERNAL]);
    const [id1, id2] = await outbox.enqueue(db(), [item('c1', 'first'), item('c1', 'second')]);
    const [other] = await outbox.enqueue(db(), [item('c2', 'other chat')]);
    expect((await outbox.get(id1!))?.status).toBe('queued'); // persisted before any send

    const t0 = clock.now();
    expect(await outbox.deliverDue()).toBe(2); // head of c1 + head of c2; 'second' waits behind 'first'
    expect(platform.requests.map((r) => [r.text, r.status])).toEqual([
      ['first', 429],
      ['other chat', 200],
    ]);
    const after429 = await outbox.get(id1!);
    expect(after429).toMatchObject({ status: 'queued', attempts: 1, last_error: 'Too Many Requests: retry after 5', error_code: '429' });
    expect(after429!.next_attempt_at.getTime() - t0).toBe(5000);
    expect((await outbox.get(other!))?.status).toBe('sent');

    // Just before the advertised wait: nothing is sent, not even the later message of the chat.
    clock.advance(4999);
    expect(await outbox.deliverDue()).toBe(0);
    expect(platform.requests).toHaveLength(2);

    for (let i = 0; i < 100 && (await outbox.get(id2!))?.status !== 'sent'; i++) {
      clock.advance(100);
      await outbox.deliverDue();
    }
    const c1 = platform.requests.filter((r) => r.chat_id === 'c1').map((r) => [r.text, r.status]);
    expect(c1).toEqual([
      ['first', 429],
      ['first', 500],
      ['first', 200],
      ['second', 200],
    ]);
    const firstSends = adapter.sends.filter((s) => s.text === 'first').map((s) => s.at - t0);
    expect(firstSends[1]).toBeGreaterThanOrEqual(5000); // never before retry_after
    expect(firstSends[2]! - firstSends[1]!).toBeGreaterThanOrEqual(1500); // backoff(2) with jitter 0.5
    const sent = await outbox.get(id1!);
    expect(sent).toMatchObject({ status: 'sent', attempts: 3, platform_message_ids: [expect.stringMatching(/^\d+$/)] });
    expect(sent!.sent_at).toBeInstanceOf(Date);
    expect(await outbox.backlog()).toBe(0);
    expect(await outbox.waitFor(id2!, 0)).toBe('sent');
  });

  it("a permanent error (400) is recorded as failed with the platform's text, logged without the message text, and does not block the chat", async () => {
    const clock = new FakeClock();
    const cap = captureLog();
    const adapter = telegramLikeAdapter(() => platform.url, clock);
    const statuses: [string, string, string | undefined][] = [];
    const outbox = createOutbox(db(), {
      log: cap.log,
      clock,
      adapterFor: () => adapter,
      onStatus: (channel, status, info) => statuses.push([channel, status, info.error]),
    });
    platform.script('secret plan 42', [CHAT_NOT_FOUND]);
    const [bad, next] = await outbox.enqueue(db(), [
      item('gone', 'secret plan 42', { origin: { inbox_event_id: '9' } }),
      item('gone', 'after'),
    ]);
    await outbox.deliverDue();
    expect(await outbox.get(bad!)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: 'Bad Request: chat not found',
      error_code: '400',
      origin: { inbox_event_id: '9' },
    });
    expect(await outbox.waitFor(bad!, 0)).toBe('failed');
    await outbox.deliverDue();
    expect((await outbox.get(next!))?.status).toBe('sent');
    expect(statuses).toEqual([
      ['telegram', 'failed', 'Bad Request: chat not found'],
      ['telegram', 'sent', undefined],
    ]);
    const warn = cap.lines().find((l) => l.msg === 'outbox: message failed for good');
    expect(warn).toMatchObject({ level: 40, outbox_id: bad, channel: 'telegram', error: 'Bad Request: chat not found', code: '400' });
    expect(JSON.stringify(cap.lines())).not.toContain('secret plan 42');
  });

  it('no adapter for the channel → failed at once; a throwing adapter is retried, then fails after maxAttempts', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    let calls = 0;
    const outbox = createOutbox(db(), {
      log,
      clock,
      maxAttempts: 3,
      adapterFor: (channel) =>
        channel === 'telegram'
          ? {
              ...telegramLikeAdapter(() => platform.url, clock),
              send: async () => {
                calls++;
                throw new Error('socket hang up');
              },
            }
          : undefined,
    });
    const [off] = await outbox.enqueue(db(), [{ target: target('x', 'feishu'), message: { kind: 'notice', text: 'hi', format: 'plain' } }]);
    const [thrown] = await outbox.enqueue(db(), [item('y', 'boom')]);
    for (let i = 0; i < 50 && (await outbox.backlog()) > 0; i++) {
      await outbox.deliverDue();
      clock.advance(10_000);
    }
    expect(await outbox.get(off!)).toMatchObject({ status: 'failed', error_code: 'no_adapter', attempts: 1 });
    expect(await outbox.get(thrown!)).toMatchObject({
      status: 'failed',
      error_code: 'adapter_threw',
      attempts: 3,
      last_error: 'Error: socket hang up',
    });
    expect(calls).toBe(3);
  });

  it('enqueue keeps item order, dedups by idempotency key, and is part of the caller transaction', async () => {
    const { log } = captureLog();
    const outbox = createOutbox(db(), { log, adapterFor: () => undefined });
    const ids = await outbox.enqueue(db(), [item('o', 'a', { idempotency_key: 'k-a' }), item('o', 'b'), item('o', 'c')]);
    expect(ids.map(BigInt)).toEqual([...ids.map(BigInt)].sort((x, y) => (x < y ? -1 : 1)));
    const again = await outbox.enqueue(db(), [item('o', 'a changed', { idempotency_key: 'k-a' })]);
    expect(again).toEqual([ids[0]]);
    expect((await outbox.get(ids[0]!))?.message.text).toBe('a');
    await expect(
      db().transaction(async (tx) => {
        await outbox.enqueue(tx, [item('o', 'rolled back', { idempotency_key: 'k-rb' })]);
        throw new Error('turn failed');
      }),
    ).rejects.toThrow('turn failed');
    const { rows } = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM skillgate.outbox_messages WHERE idempotency_key = 'k-rb'`,
    );
    expect(rows[0]!.n).toBe(0);
    expect(await outbox.backlog()).toBe(3);
    expect(await outbox.get('999999999')).toBeUndefined();
    await expect(outbox.waitFor('999999999', 0)).rejects.toThrow(/no outbox message/);
  });

  it('rate limit: never more than perSecond sends in one clock second (telegram 5/s, burst 1)', async () => {
    const clock = new FakeClock(Date.parse('2030-01-01T00:00:00Z'));
    const { log } = captureLog();
    const adapter = telegramLikeAdapter(() => platform.url, clock);
    const outbox = createOutbox(db(), {
      log,
      clock,
      batchSize: 4,
      adapterFor: () => adapter,
      rateLimits: { telegram: { perSecond: 5, burst: 1 } },
    });
    await outbox.enqueue(
      db(),
      Array.from({ length: 12 }, (_, i) => item(`rl${i}`, `m${i}`)),
    );
    const t0 = clock.now();
    while ((await outbox.deliverDue()) > 0) {
      /* passes advance the fake clock through the limiter's waits */
    }
    expect(adapter.sends).toHaveLength(12);
    expect(platform.requests.filter((r) => r.status === 200)).toHaveLength(12);
    const perSecond = new Map<number, number>();
    for (const s of adapter.sends) perSecond.set(Math.floor((s.at - t0) / 1000), (perSecond.get(Math.floor((s.at - t0) / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(5);
    const gaps = adapter.sends.slice(1).map((s, i) => s.at - adapter.sends[i]!.at);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(200);
    expect(adapter.sends.at(-1)!.at - t0).toBeGreaterThanOrEqual(11 * 200);
  });

  it('waitFor: queued when not delivered in time, sent as soon as the running loop delivers a message enqueued in a transaction', async () => {
    const { log } = captureLog();
    const adapter = telegramLikeAdapter(() => platform.url, systemClock);
    const idle = createOutbox(db(), { log, adapterFor: () => adapter });
    const [q] = await idle.enqueue(db(), [item('w', 'nobody sends me')]);
    expect(await idle.waitFor(q!, 30)).toBe('queued');
    await db().query('TRUNCATE skillgate.outbox_messages, skillgate.delivery_pace');

    const outbox = createOutbox(db(), { log, adapterFor: () => adapter, pollMs: 60_000 });
    outbox.start();
    try {
      if (engine === 'server') {
        // Wait until the LISTEN is in place, so the delivery below can only come from the
        // notification sent on commit (the poll is a minute away); the wake after it finds nothing.
        await outboxListening(db());
      }
      const ids = await db().transaction((tx) => outbox.enqueue(tx, [item('w', 'deliver me'), item('w', 'and me')]));
      // pollMs is a minute: only the wake-up after commit can deliver within the guard.
      expect(await outbox.waitFor(ids[1]!, 20_000)).toBe('sent');
      expect(platform.requests.map((r) => r.text)).toEqual(['deliver me', 'and me']);
    } finally {
      await outbox.stop();
    }
  });

  it('stop() lets the send in flight finish and records it', async () => {
    const { log } = captureLog();
    const gate = latch();
    const inFlight = latch();
    const adapter = telegramLikeAdapter(() => platform.url, systemClock, {
      beforeSend: async () => {
        inFlight.resolve();
        await gate.promise;
      },
    });
    const outbox = createOutbox(db(), { log, adapterFor: () => adapter });
    outbox.start();
    const [id] = await outbox.enqueue(db(), [item('s', 'slow')]);
    await inFlight.promise;
    setTimeout(() => gate.resolve(), 20);
    await outbox.stop();
    expect((await outbox.get(id!))?.status).toBe('sent');
  });
});
