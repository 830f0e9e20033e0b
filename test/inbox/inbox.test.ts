/**
 * Inbox (durable inbound): dedup before acknowledging, asynchronous processing,
 * resumption after a restart or a crash, per-chat order, retries. Both engines.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { chatKey, createInbox, type InboxEvent } from '../../src/inbox/index.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import { captureLog, inbound, latch, until } from './helpers.ts';

describeEachEngine('inbox', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events, skillgate.outbox_messages');
  });

  const statusOf = async (
    dedupe: string,
  ): Promise<{ status: string; attempts: number; error: string | null; lease_owner: string | null }> => {
    const { rows } = await db().query<{ status: string; attempts: number; error: string | null; lease_owner: string | null }>(
      'SELECT status, attempts, error, lease_owner FROM skillgate.inbox_events WHERE dedupe_key = $1',
      [dedupe],
    );
    if (!rows[0]) throw new Error(`no event ${dedupe}`);
    return rows[0];
  };

  it('chatKey is <channel>:<account>:<chat id>[:<thread id>]', () => {
    const m = inbound('42', 'k');
    expect(chatKey(m)).toBe('telegram:default:42');
    expect(chatKey({ ...m, chat: { id: '42', type: 'group', thread_id: '7' } })).toBe('telegram:default:42:7');
  });

  it('the same event received twice at once and again after a restart runs the handler once', async () => {
    const { log } = captureLog();
    const seen: string[] = [];
    const a = createInbox(db(), { log, pollMs: 20 });
    const m = inbound('c1', '1001');
    const results = await Promise.all([a.receive(m), a.receive(structuredClone(m))]);
    expect(results.sort()).toEqual(['accepted', 'duplicate']);
    a.start(async (ev) => void seen.push(ev.message.dedupe_key));
    await until(async () => (await statusOf(m.dedupe_key)).status === 'done', 'first event done');
    await a.stop();

    // Restart: a new inbox (new worker id) on the same database gets the redelivery.
    const b = createInbox(db(), { log, pollMs: 20 });
    b.start(async (ev) => void seen.push(ev.message.dedupe_key));
    expect(await b.receive(structuredClone(m))).toBe('duplicate');
    const other = inbound('c1', '1002');
    expect(await b.receive(other)).toBe('accepted');
    await until(async () => (await statusOf(other.dedupe_key)).status === 'done', 'second event done');
    await b.stop();

    expect(seen).toEqual([m.dedupe_key, other.dedupe_key]);
    const { rows } = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM skillgate.inbox_events');
    expect(rows[0]!.n).toBe(2);
    expect(await b.backlog()).toBe(0);
  });

  it('an event stored and taken by a process that died before replying is processed after restart (reply enqueued)', async () => {
    const { log } = captureLog();
    let now = Date.parse('2030-01-01T00:00:00Z');
    const clock = (): number => now;
    const m = inbound('c-crash', '2001', 'what is up');

    // Process A stores the event, starts handling it and never finishes (it "dies").
    const a = createInbox(db(), { log, clock, leaseMs: 120_000, pollMs: 20, instanceId: 'proc-a' });
    expect(await a.receive(m)).toBe('accepted');
    const taken = latch<InboxEvent>();
    a.start((ev) => {
      taken.resolve(ev);
      return new Promise<void>(() => undefined);
    });
    const first = await taken.promise;
    expect(first.attempts).toBe(1);
    await a.stop({ graceMs: 0 });
    expect(await statusOf(m.dedupe_key)).toMatchObject({ status: 'processing', lease_owner: 'proc-a' });

    // Process B starts while A's lease is still live: it does not take the event yet …
    const outbox = createOutbox(db(), { log, adapterFor: () => undefined });
    const handled: InboxEvent[] = [];
    const b = createInbox(db(), { log, clock, leaseMs: 120_000, pollMs: 20, instanceId: 'proc-b' });
    b.start(async (ev) => {
      handled.push(ev);
      await outbox.enqueue(db(), [
        {
          target: { channel: ev.message.channel, account: ev.message.account, chat_id: ev.message.chat.id },
          message: { kind: 'reply', text: `re: ${ev.message.raw_input}`, format: 'plain', reply_to: ev.message.message_id, final: true },
          idempotency_key: `turn:${ev.id}:0`,
          origin: { inbox_event_id: ev.id },
        },
      ]);
    });
    const barrier = inbound('c-other', '2002');
    await b.receive(barrier);
    await until(async () => (await statusOf(barrier.dedupe_key)).status === 'done', 'barrier event done');
    expect(handled.map((e) => e.message.dedupe_key)).toEqual([barrier.dedupe_key]);

    // … and once the lease expired it resumes it.
    now += 120_001;
    await until(async () => (await statusOf(m.dedupe_key)).status === 'done', 'crashed event done after restart');
    await b.stop();
    const resumed = handled.find((e) => e.message.dedupe_key === m.dedupe_key)!;
    expect(resumed.id).toBe(first.id);
    expect(resumed.attempts).toBe(2);
    expect(resumed.message).toEqual(m);
    const { rows } = await db().query<{ text: string; origin: { inbox_event_id: string } }>(
      `SELECT message->>'text' AS text, origin FROM skillgate.outbox_messages WHERE chat_key = $1`,
      [chatKey(m)],
    );
    expect(rows).toEqual([{ text: 're: what is up', origin: { inbox_event_id: first.id } }]);
  });

  it('an event a killed process left processing with an expired lease is resumed on start', async () => {
    const { log } = captureLog();
    const a = createInbox(db(), { log });
    const m = inbound('c-killed', '3001');
    await a.receive(m);
    // What a SIGKILL mid-turn leaves behind.
    await db().query(
      `UPDATE skillgate.inbox_events SET status = 'processing', attempts = 1, lease_owner = 'dead', lease_until = now() - interval '1 second'
        WHERE dedupe_key = $1`,
      [m.dedupe_key],
    );
    const got: InboxEvent[] = [];
    const b = createInbox(db(), { log, pollMs: 20 });
    b.start(async (ev) => void got.push(ev));
    await until(async () => (await statusOf(m.dedupe_key)).status === 'done', 'killed event resumed');
    await b.stop();
    expect(got.map((e) => [e.message.dedupe_key, e.attempts])).toEqual([[m.dedupe_key, 2]]);
  });

  it('events of one chat run in receive order and never overlap; two chats run at the same time', async () => {
    const { log } = captureLog();
    const inbox = createInbox(db(), { log, pollMs: 20 });
    const order: Record<string, string[]> = { A: [], B: [] };
    const active: Record<string, number> = { A: 0, B: 0 };
    let overlap = 0;
    const aStarted = latch();
    const bStarted = latch();
    const guard = (p: Promise<void>, what: string): Promise<void> =>
      Promise.race([
        p,
        new Promise<void>((_, rej) => setTimeout(() => rej(new Error(`never saw ${what}: chats were not concurrent`)), 15_000)),
      ]);
    let sawEachOther = 0;

    inbox.start(
      async (ev) => {
        const chat = ev.message.chat.id;
        active[chat]! += 1;
        if (active[chat]! > 1) overlap++;
        order[chat]!.push(ev.message.message_id!);
        // The first event of each chat waits for the first event of the other chat to start.
        if (ev.message.message_id === 'A1') {
          aStarted.resolve();
          await guard(bStarted.promise, 'B1 start');
          sawEachOther++;
        }
        if (ev.message.message_id === 'B1') {
          bStarted.resolve();
          await guard(aStarted.promise, 'A1 start');
          sawEachOther++;
        }
        await new Promise((r) => setImmediate(r));
        active[chat]! -= 1;
      },
      { concurrency: 4 },
    );
    const a = ['A1', 'A2', 'A3', 'A4', 'A5'].map((k) => inbound('A', k));
    const b = ['B1', 'B2', 'B3'].map((k) => inbound('B', k));
    for (const m of [a[0]!, b[0]!, a[1]!, a[2]!, b[1]!, a[3]!, b[2]!, a[4]!]) expect(await inbox.receive(m)).toBe('accepted');
    await until(async () => (await inbox.backlog()) === 0, 'all events done');
    await inbox.stop();
    expect(sawEachOther).toBe(2);
    expect(overlap).toBe(0);
    expect(order.A).toEqual(['A1', 'A2', 'A3', 'A4', 'A5']);
    expect(order.B).toEqual(['B1', 'B2', 'B3']);
  });

  it('a throwing handler is retried after a backoff, later events of its chat wait, and after maxAttempts it fails and is logged', async () => {
    const cap = captureLog();
    let now = Date.parse('2030-02-01T00:00:00Z');
    const inbox = createInbox(db(), { log: cap.log, clock: () => now, pollMs: 20, maxAttempts: 2, retryBaseMs: 1000, random: () => 0.5 });
    const calls: string[] = [];
    inbox.start(async (ev) => {
      calls.push(`${ev.message.message_id}#${ev.attempts}`);
      if (ev.message.message_id === 'X1' && ev.attempts === 1) throw new Error('db hiccup');
      if (ev.message.message_id === 'Y1') throw new Error('always broken');
    });
    const x1 = inbound('X', 'X1');
    const x2 = inbound('X', 'X2');
    await inbox.receive(x1);
    await inbox.receive(x2);
    await until(async () => (await statusOf(x1.dedupe_key)).error !== null, 'first failure recorded');
    expect(await statusOf(x1.dedupe_key)).toMatchObject({ status: 'received', attempts: 1, error: 'Error: db hiccup' });
    // A barrier in another chat: the worker has looked for due work after the failure.
    const bar = inbound('Z', 'Z1');
    await inbox.receive(bar);
    await until(async () => (await statusOf(bar.dedupe_key)).status === 'done', 'barrier done');
    expect(calls).toEqual(['X1#1', 'Z1#1']); // X2 waits behind X1, X1 waits for its backoff (750 ms)

    now += 750;
    await until(async () => (await statusOf(x2.dedupe_key)).status === 'done', 'X chat drained');
    expect(calls).toEqual(['X1#1', 'Z1#1', 'X1#2', 'X2#1']);

    const y1 = inbound('Y', 'Y1');
    const y2 = inbound('Y', 'Y2');
    await inbox.receive(y1);
    await inbox.receive(y2);
    await until(
      async () => (await statusOf(y1.dedupe_key)).attempts === 1 && (await statusOf(y1.dedupe_key)).status === 'received',
      'Y1 first failure',
    );
    now += 60_000;
    await until(async () => (await statusOf(y2.dedupe_key)).status === 'done', 'Y2 runs after Y1 failed for good');
    await inbox.stop();
    expect(await statusOf(y1.dedupe_key)).toMatchObject({ status: 'failed', attempts: 2, error: 'Error: always broken' });
    expect(calls.slice(-3)).toEqual(['Y1#1', 'Y1#2', 'Y2#1']);
    const logged = cap.lines().find((l) => l.msg === 'inbox: handler failed; event failed for good');
    expect(logged).toMatchObject({ level: 50, event_id: expect.any(String), attempts: 2 });
    expect(JSON.stringify(logged)).toContain('always broken');
    expect(JSON.stringify(cap.lines())).not.toContain('hello Y1'); // the user's text is not logged
  });

  it('backlog counts received and processing events; stop waits for a running handler', async () => {
    const { log } = captureLog();
    const inbox = createInbox(db(), { log, pollMs: 20 });
    await inbox.receive(inbound('q', 'q1'));
    await inbox.receive(inbound('q', 'q2'));
    await inbox.receive(inbound('r', 'r1'));
    expect(await inbox.backlog()).toBe(3);
    const gate = latch();
    const running = latch();
    let finished = 0;
    inbox.start(async (ev) => {
      if (ev.message.message_id === 'q1') {
        running.resolve();
        await gate.promise;
      }
      finished++;
    });
    await running.promise;
    setTimeout(() => gate.resolve(), 20);
    await inbox.stop();
    // stop() returned only after q1's handler finished and was recorded.
    expect(await statusOf('telegram:update:q1')).toMatchObject({ status: 'done' });
    expect(finished).toBeGreaterThanOrEqual(1);
    expect(await inbox.backlog()).toBe(3 - finished);
  });

  it('NUL and lone surrogates are stored and handled as U+FFFD, alone and in a batch; clean text stays verbatim', async () => {
    const { log } = captureLog();
    const handled: InboxEvent[] = [];
    const inbox = createInbox(db(), { log, pollMs: 20 });
    inbox.start(async (ev) => void handled.push(ev), { concurrency: 2 });
    const alone = inbound('c-nul-1', '3001', 'a\u0000b\ud800c 😀');
    expect(await inbox.receive(alone)).toBe('accepted');
    // several chats at once: one batched INSERT, some rows taken at once, others left received
    const batch = [0, 1, 2, 3].map((i) => inbound(`c-nul-b${i}`, `310${i}`, i % 2 ? `x\udc00${i}` : `clean \\u0000 ${i}`));
    expect(await Promise.all(batch.map((m) => inbox.receive(m)))).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
    await until(() => handled.length === 5, 'all handled');
    await inbox.stop();
    const want = new Map([
      [alone.dedupe_key, 'a\uFFFDb\uFFFDc 😀'],
      ...batch.map((m, i): [string, string] => [m.dedupe_key, i % 2 ? `x\uFFFD${i}` : `clean \\u0000 ${i}`]),
    ]);
    for (const ev of handled) expect(ev.message.raw_input).toBe(want.get(ev.message.dedupe_key));
    const { rows } = await db().query<{ dedupe_key: string; text: string }>(
      `SELECT dedupe_key, payload->>'raw_input' AS text FROM skillgate.inbox_events WHERE dedupe_key = ANY($1::text[])`,
      [[...want.keys()]],
    );
    expect(new Map(rows.map((r) => [r.dedupe_key, r.text]))).toEqual(want);
    expect(alone.raw_input).toBe('a\u0000b\ud800c 😀'); // the caller's message is not changed
  });
});
