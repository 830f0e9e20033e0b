/**
 * A 1 M-character reply through the Telegram fake (docs/operations-delivery.md "Long replies"):
 * composed as one bounded message, queued as one outbox row, rendered and split once by the
 * adapter into at most REPLY_MAX_PARTS messages, each within 4096 UTF-16 units and valid HTML,
 * the last ending with the cut notice. Both engines.
 */
import { expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import { REPLY_MAX_PARTS } from '../../src/channel/long-reply.ts';
import { composeReply } from '../../src/turn/reply/index.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { SECRET, TOKEN, useFakeTelegram } from '../adapters/telegram/fake-telegram.ts';
import { FakeClock } from '../outbox/fakes.ts';

const silent = createLogger({ level: 'silent', pretty: false });

describeEachEngine('a 1 M-character reply on Telegram', (db) => {
  const platform = useFakeTelegram(db, 'TRUNCATE skillgate.outbox_messages, skillgate.inbox_events, skillgate.delivery_pace');

  it('arrives as a bounded number of valid messages ending with the cut notice', async () => {
    const clock = new FakeClock();
    const adapter = new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: platform().baseUrl, maxRetryDelayS: 0 },
      { db: db(), log: silent },
    );
    const outbox = createOutbox(db(), { log: silent, clock, adapterFor: () => adapter });
    const plannerText = '**泵房** 压力 [报告](https://example.com/r) 正常。\n'.repeat(30_000); // ≈ 1 M characters
    expect(plannerText.length).toBeGreaterThan(1_000_000);
    const messages = composeReply({ plannerText, invocations: [], capabilities: adapter.capabilities, lang: 'zh-CN', replyTo: null });
    // The core bounds the reply and queues it whole: one outbox row, split by the adapter after rendering.
    expect(messages).toHaveLength(1);
    const target = { channel: 'telegram', account: 'default', chat_id: '10000001', chat_type: 'direct' as const };
    await outbox.enqueue(db(), [{ target, message: messages[0]!, idempotency_key: 'long:0' }]);
    for (let pass = 0; pass < 20 && (await outbox.backlog()) > 0; pass++) {
      await outbox.deliverDue();
      clock.advance(1000);
    }
    expect(await outbox.backlog()).toBe(0);
    const sends = platform().calls(/\/sendMessage$/);
    expect(sends.length).toBeGreaterThan(1);
    // Rendered once, split once: the HTML (longer than its markdown) still takes at most REPLY_MAX_PARTS messages.
    expect(sends.length).toBeLessThanOrEqual(REPLY_MAX_PARTS);
    for (const s of sends) {
      const { text, parse_mode } = s.json as { text: string; parse_mode?: string };
      expect(text.length).toBeLessThanOrEqual(4096);
      expect(parse_mode).toBe('HTML');
      expect((text.match(/<b>/g) ?? []).length).toBe((text.match(/<\/b>/g) ?? []).length);
    }
    const last = (sends.at(-1)!.json as { text: string }).text;
    expect(last).toContain('回复过长');
    // One notice, counting what the core and the adapter left out together (most of the 1 M).
    expect(sends.filter((s) => (s.json as { text: string }).text.includes('回复过长'))).toHaveLength(1);
    const omitted = Number(/省略约 (\d+) 字符/.exec(last)?.[1]);
    expect(omitted).toBeGreaterThan(plannerText.length - REPLY_MAX_PARTS * 4096);
    expect(omitted).toBeLessThan(plannerText.length);
  });
});
