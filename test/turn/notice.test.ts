/**
 * AdapterHost.notice (src/turn/host.ts, src/outbox/event-notice.ts): an adapter's answer to an
 * event the core does not process — here a Telegram sticker — goes through the outbox once per
 * event. The sticker update delivered twice (a webhook redelivery) and a third time after the
 * first notice failed: the user gets exactly one notice, as a reply to the sticker; a failed send
 * is retried by the outbox instead of being lost. Real Telegram adapter, real core host and
 * outbox, loopback fake Bot API; both engines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import { createInbox } from '../../src/inbox/index.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createCoreHost } from '../../src/turn/host.ts';
import { RunningTurns } from '../../src/turn/running.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { SECRET, TOKEN, useFakeTelegram } from '../adapters/telegram/fake-telegram.ts';
import { FakeClock } from '../outbox/fakes.ts';

const silent = createLogger({ level: 'silent', pretty: false });
const STICKER = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'adapters', 'telegram', 'sticker_unsupported.json'));

describeEachEngine('AdapterHost.notice: once per event, through the outbox', (db) => {
  const platform = useFakeTelegram(db, 'TRUNCATE skillgate.outbox_messages, skillgate.inbox_events');

  it('a sticker delivered twice gets one polite notice, replying to it; the inbox stores nothing', async () => {
    const clock = new FakeClock();
    const adapter = new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: platform().baseUrl, maxRetryDelayS: 0 },
      { db: db(), log: silent },
    );
    const outbox = createOutbox(db(), { log: silent, clock, adapterFor: () => adapter });
    const host = createCoreHost({ db: db(), log: silent, inbox: createInbox(db(), { log: silent }), running: new RunningTurns(), outbox });
    const deliver = () =>
      adapter.handleWebhook(
        {
          method: 'POST',
          path: '/webhooks/telegram/default',
          headers: { 'x-telegram-bot-api-secret-token': SECRET, 'content-type': 'application/json' },
          query: {},
          body: STICKER,
        },
        host,
      );

    // The first send of the notice fails (500): the outbox keeps it for a retry.
    platform().script(
      'POST',
      /\/sendMessage$/,
      { status: 500, json: { ok: false, error_code: 500, description: 'Internal Server Error' } },
      1,
    );
    expect((await deliver()).status).toBe(200);
    await outbox.deliverDue();
    expect((await deliver()).status).toBe(200); // a redelivery of the same update
    clock.advance(60_000);
    await outbox.deliverDue();
    expect((await deliver()).status).toBe(200); // and another one after the notice went out
    clock.advance(60_000);
    await outbox.deliverDue();

    const sends = platform().calls(/\/sendMessage$/);
    expect(sends).toHaveLength(2); // the failed attempt and its retry: one notice reached the user
    const body = sends[1]!.json as { chat_id: number | string; text: string; reply_parameters?: { message_id: number } };
    expect(String(body.chat_id)).toBe('10000001');
    expect(body.text).toContain('not supported'); // the sender's language_code is en
    expect(body.reply_parameters?.message_id).toBe(107);
    const { rows } = await db().query<{ n: number }>("SELECT count(*)::int AS n FROM skillgate.outbox_messages WHERE status = 'sent'");
    expect(rows[0]!.n).toBe(1);
    const inbox = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM skillgate.inbox_events');
    expect(inbox.rows[0]!.n).toBe(0);
  });
});
