/**
 * A reply delivered as several platform messages whose second part is rate limited: the outbox
 * records how many parts went out (migration 0017 `parts_done`, src/channel/parts.ts) and the
 * retry resumes after them — the user gets every part exactly once, in order. The real Telegram
 * adapter against the loopback fake Bot API; both engines.
 */
import { expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { SECRET, TOKEN, useFakeTelegram } from '../adapters/telegram/fake-telegram.ts';
import { captureLog } from '../inbox/helpers.ts';
import { FakeClock } from './fakes.ts';

const silent = createLogger({ level: 'silent', pretty: false });

/** Plain paragraphs long enough for three Telegram messages (4096 UTF-16 units each). */
function longReply(): string {
  return Array.from({ length: 6 }, (_, i) => `第 ${i} 段 ${'内容 '.repeat(500)}`.trim()).join('\n\n');
}

describeEachEngine('outbox: multi-part resume', (db) => {
  const platform = useFakeTelegram(db, 'TRUNCATE skillgate.outbox_messages, skillgate.delivery_pace');

  const sentTexts = (): string[] =>
    platform()
      .calls(/\/sendMessage$/)
      .map((r) => String((r.json as { text?: string }).text ?? ''));

  it('the 2nd part answers 429 retry_after: the retry waits, then sends parts 2… only; each part arrives once, in order', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const adapter = new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: platform().baseUrl, maxRetryDelayS: 0 },
      { db: db(), log: silent },
    );
    const outbox = createOutbox(db(), { log, clock, adapterFor: () => adapter, random: () => 0.5 });
    const text = longReply();
    let n = 0;
    platform().script(
      'POST',
      /\/sendMessage$/,
      () =>
        n++ === 1
          ? {
              status: 429,
              json: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 7', parameters: { retry_after: 7 } },
            }
          : { pass: true },
      2,
    );
    const [id] = await outbox.enqueue(db(), [
      {
        target: { channel: 'telegram', account: 'default', chat_id: '4242', chat_type: 'direct' },
        message: { kind: 'reply', text, format: 'plain', final: true },
      },
    ]);

    const t0 = clock.now();
    await outbox.deliverDue();
    const afterFirst = await outbox.get(id!);
    expect(afterFirst).toMatchObject({ status: 'queued', attempts: 1, parts_done: 1, error_code: '429' });
    expect(afterFirst!.platform_message_ids).toHaveLength(1);
    expect(afterFirst!.next_attempt_at.getTime() - t0).toBe(7000);
    const firstAttempt = sentTexts();
    expect(firstAttempt).toHaveLength(2); // part 1 delivered, part 2 refused

    clock.advance(6999);
    expect(await outbox.deliverDue()).toBe(0); // never before the advertised wait
    clock.advance(1);
    expect(await outbox.deliverDue()).toBe(1);
    const sent = await outbox.get(id!);
    expect(sent).toMatchObject({ status: 'sent', attempts: 2, parts_done: 1 });

    const texts = sentTexts();
    const delivered = [texts[0]!, ...texts.slice(2)]; // the refused attempt of part 2 removed
    expect(delivered.length).toBeGreaterThanOrEqual(3);
    expect(texts[1]).toBe(texts[2]); // the refused part is the one retried
    expect(new Set(delivered).size).toBe(delivered.length); // no part twice
    expect(delivered.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, '')); // every part, in order
    expect(sent!.platform_message_ids).toHaveLength(delivered.length); // ids of both attempts kept
  });

  it('a permanent failure mid-way keeps the progress on the failed row (a console retry resumes there)', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const adapter = new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: platform().baseUrl, maxRetryDelayS: 0 },
      { db: db(), log: silent },
    );
    const outbox = createOutbox(db(), { log, clock, adapterFor: () => adapter });
    let n = 0;
    platform().script(
      'POST',
      /\/sendMessage$/,
      () =>
        n++ < 2
          ? { pass: true }
          : { status: 403, json: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } },
      3,
    );
    const [id] = await outbox.enqueue(db(), [
      {
        target: { channel: 'telegram', account: 'default', chat_id: '4243', chat_type: 'direct' },
        message: { kind: 'reply', text: longReply(), format: 'plain', final: true },
      },
    ]);
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'failed', parts_done: 2, error_code: '403' });
  });
});
