/**
 * Flood control of the outbox (src/outbox/pacing.ts, docs/operations-delivery.md): the real
 * Telegram adapter (grammY, no auto-retry) against the loopback fake Bot API, on a fake clock.
 * Per-chat pace as documented, shared by two outboxes (replicas) through the database; a paced
 * chat never holds another chat; a 429 pauses the account for every replica and its
 * retry_after is waited once; typing never touches the message budget. Order and counts only.
 */
import { expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import { createOutbox, type OutboxItem } from '../../src/outbox/index.ts';
import type { ChatType } from '../../src/channel/types.ts';
import { createLogger } from '../../src/log/logger.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { SECRET, TOKEN, useFakeTelegram } from '../adapters/telegram/fake-telegram.ts';
import { captureLog, until } from '../inbox/helpers.ts';
import { FakeClock, FakeTelegram, telegramLikeAdapter } from './fakes.ts';

const silent = createLogger({ level: 'silent', pretty: false });
const msg = (chat: string, text: string, chat_type: ChatType = 'direct'): OutboxItem => ({
  target: { channel: 'telegram', account: 'default', chat_id: chat, chat_type },
  message: { kind: 'reply', text, format: 'plain', final: true },
});

describeEachEngine('outbox flood control', (db) => {
  const platform = useFakeTelegram(db, 'TRUNCATE skillgate.outbox_messages, skillgate.delivery_pace');
  const sent = (): Array<[string, string]> =>
    platform()
      .calls(/\/sendMessage$/)
      .map((r) => {
        const j = r.json as { chat_id?: unknown; text?: unknown };
        return [String(j.chat_id), String(j.text)];
      });
  const adapter = () =>
    new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: platform().baseUrl },
      { db: db(), log: silent },
    );
  const drain = async (o: { deliverDue(): Promise<number> }): Promise<void> => {
    while ((await o.deliverDue()) > 0) {
      /* everything due now */
    }
  };

  it('a private chat gets its burst, then ~1 message/s; other chats are not held meanwhile; a group is paced at 20/min', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const a = adapter();
    const outbox = createOutbox(db(), { log, clock, adapterFor: () => a });
    await outbox.enqueue(
      db(),
      [1, 2, 3, 4, 5].map((i) => msg('100', `busy ${i}`)),
    );
    await outbox.enqueue(db(), [
      msg('200', 'other'),
      msg('300', 'third'),
      msg('-400', 'group 1', 'group'),
      msg('-400', 'group 2', 'group'),
      msg('-400', 'group 3', 'group'),
      msg('-400', 'group 4', 'group'),
    ]);
    await drain(outbox);
    const first = sent();
    expect(first.filter(([c]) => c === '100').map(([, t]) => t)).toEqual(['busy 1', 'busy 2', 'busy 3']); // the burst
    expect(first.filter(([c]) => c === '-400').map(([, t]) => t)).toEqual(['group 1', 'group 2', 'group 3']);
    expect(first.filter(([c]) => c === '200' || c === '300')).toHaveLength(2); // never held behind chat 100

    clock.advance(999);
    await drain(outbox);
    expect(sent()).toHaveLength(first.length); // not before its pace
    clock.advance(1);
    await drain(outbox);
    expect(sent().slice(first.length)).toEqual([['100', 'busy 4']]);
    clock.advance(1000);
    await drain(outbox);
    expect(sent().slice(first.length)).toEqual([
      ['100', 'busy 4'],
      ['100', 'busy 5'],
    ]);
    // the group: one more every 3 s
    expect(sent().filter(([c]) => c === '-400')).toHaveLength(3);
    clock.advance(1000);
    await drain(outbox);
    expect(
      sent()
        .filter(([c]) => c === '-400')
        .map(([, t]) => t),
    ).toEqual(['group 1', 'group 2', 'group 3', 'group 4']);
  });

  it('answers to the person in a private chat are not held by its pace but move it; a message of the bot itself then waits; group answers stay paced', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const a = adapter();
    const outbox = createOutbox(db(), { log, clock, adapterFor: () => a });
    const answer = (chat: string, text: string, event: string, chat_type: ChatType = 'direct'): OutboxItem => ({
      ...msg(chat, text, chat_type),
      origin: { inbox_event_id: event },
    });
    await outbox.enqueue(
      db(),
      [1, 2, 3, 4, 5].map((i) => answer('500', `answer ${i}`, `e${i}`)),
    );
    await outbox.enqueue(db(), [msg('500', 'own 1')]);
    await outbox.enqueue(
      db(),
      [1, 2, 3, 4].map((i) => answer('-600', `group answer ${i}`, `g${i}`, 'group')),
    );
    await drain(outbox);
    expect(
      sent()
        .filter(([c]) => c === '500')
        .map(([, t]) => t),
    ).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 4', 'answer 5']);
    expect(sent().filter(([c]) => c === '-600')).toHaveLength(3); // the group's burst
    // Five answers moved the schedule 5 s ahead (burst 3: the next one 3 s from now).
    clock.advance(2999);
    await drain(outbox);
    expect(sent().filter(([c]) => c === '500')).toHaveLength(5);
    clock.advance(1);
    await drain(outbox);
    expect(
      sent()
        .filter(([c]) => c === '500')
        .map(([, t]) => t)
        .slice(5),
    ).toEqual(['own 1']);
  });

  it("a chat's pace is shared by every replica: a second outbox does not send what the first one's pace holds back", async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const a = adapter();
    const one = createOutbox(db(), { log, clock, instanceId: 'replica-1', adapterFor: () => a });
    const two = createOutbox(db(), { log, clock, instanceId: 'replica-2', adapterFor: () => a });
    await one.enqueue(
      db(),
      [1, 2, 3, 4].map((i) => msg('500', `m${i}`)),
    );
    await drain(one);
    expect(sent().map(([, t]) => t)).toEqual(['m1', 'm2', 'm3']);
    await drain(two); // a fresh process: its own pacers, the same database
    expect(sent()).toHaveLength(3);
    clock.advance(1000);
    await drain(two);
    expect(sent().map(([, t]) => t)).toEqual(['m1', 'm2', 'm3', 'm4']);
  });

  it('429 retry_after: one request to the platform (no SDK retry), the whole account paused for every replica, then sent once after the wait', async () => {
    const clock = new FakeClock();
    const { log, lines } = captureLog();
    const a = adapter();
    const one = createOutbox(db(), { log, clock, instanceId: 'replica-1', adapterFor: () => a, random: () => 0 });
    const two = createOutbox(db(), { log, clock, instanceId: 'replica-2', adapterFor: () => a, random: () => 0 });
    platform().script(
      'POST',
      /\/sendMessage$/,
      {
        status: 429,
        json: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 5', parameters: { retry_after: 5 } },
      },
      1,
    );
    await one.enqueue(db(), [msg('600', 'limited')]);
    await drain(one);
    expect(sent()).toEqual([['600', 'limited']]); // refused once, not retried inside grammY
    expect(lines().some((l) => l.msg === 'outbox: rate limited by the platform; account paused')).toBe(true);

    await two.enqueue(db(), [msg('700', 'another chat')]);
    clock.advance(4999);
    await drain(two);
    await drain(one);
    expect(sent()).toHaveLength(1); // the account waits, on both replicas
    clock.advance(1);
    await drain(two);
    await drain(one);
    expect(
      sent()
        .slice(1)
        .map(([c]) => c)
        .sort(),
    ).toEqual(['600', '700']);
    const rows = await db().query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM skillgate.outbox_messages ORDER BY id',
    );
    expect(rows.rows).toEqual([
      { status: 'sent', attempts: 2 },
      { status: 'sent', attempts: 1 },
    ]);
  });

  it('typing and other non-message calls never take from the chat budget', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const a = adapter();
    const outbox = createOutbox(db(), { log, clock, adapterFor: () => a });
    const target = msg('800', '').target;
    for (let i = 0; i < 20; i++) await a.typing(target);
    expect(platform().calls(/\/sendChatAction$/)).toHaveLength(20);
    expect((await db().query('SELECT 1 FROM skillgate.delivery_pace')).rows).toEqual([]);
    await outbox.enqueue(
      db(),
      [1, 2, 3].map((i) => msg('800', `after typing ${i}`)),
    );
    await drain(outbox);
    expect(sent().map(([, t]) => t)).toEqual(['after typing 1', 'after typing 2', 'after typing 3']); // the full burst
  });

  it("the running loop never holds one chat's message behind another chat's send in flight", async () => {
    const bot = new FakeTelegram();
    await bot.listen();
    const { log } = captureLog();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const slow = telegramLikeAdapter(
      () => bot.url,
      { now: () => Date.now() },
      { beforeSend: (m) => (m.text === 'slow' ? held : Promise.resolve()) },
    );
    const outbox = createOutbox(db(), { log, adapterFor: () => slow, pollMs: 50 });
    outbox.start();
    try {
      // stored inside callers' transactions, so the loop (not the INSERT) takes them
      await db().transaction((tx) => outbox.enqueue(tx, [msg('900', 'slow')]));
      await until(() => slow.sends.some((x) => x.text === 'slow'), 'the slow send started');
      await db().transaction((tx) => outbox.enqueue(tx, [msg('901', 'quick')]));
      await until(() => bot.requests.some((r) => r.text === 'quick'), 'the other chat was delivered');
      expect(bot.requests.map((r) => r.text)).toEqual(['quick']); // while 'slow' is still in flight
    } finally {
      release();
      await outbox.stop();
      await bot.close();
    }
    expect(bot.requests.map((r) => r.text)).toEqual(['quick', 'slow']);
  });
});
