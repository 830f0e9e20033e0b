/**
 * A 1 M-character reply through the Telegram fake (docs/operations-delivery.md "Long replies"):
 * composed as one bounded message, queued as one outbox row, rendered and split once by the
 * adapter into at most REPLY_MAX_PARTS messages, each within 4096 UTF-16 units and valid HTML,
 * the last ending with the cut notice. From a skill's display_md, the full text stays in the
 * offload file (docs/results.md "Large results are offloaded"), and the whole reply is sent as a
 * markdown document the notice names (src/turn/full-text.ts). Both engines.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import { REPLY_MAX_PARTS } from '../../src/channel/long-reply.ts';
import { composeReply } from '../../src/turn/reply/index.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { SECRET, TOKEN, useFakeTelegram } from '../adapters/telegram/fake-telegram.ts';
import { FakeClock } from '../outbox/fakes.ts';
import { makeTurnHarness } from './helpers.ts';

/** The bench skills: `bench_long_reply` returns a display_md of about 1 M characters. */
const BENCH_SKILLS = fileURLToPath(new URL('../bench/skills/', import.meta.url));

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

  it("a skill's 1 M-character display_md arrives as at most REPLY_MAX_PARTS messages and a document holding all of it, which the notice names", async () => {
    const clock = new FakeClock();
    const telegram = new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: platform().baseUrl, maxRetryDelayS: 0 },
      { db: db(), log: silent },
    );
    const outbox = createOutbox(db(), { log: silent, clock, adapterFor: () => telegram });
    const h = await makeTurnHarness(db(), {
      channel: 'telegram',
      capabilities: telegram.capabilities,
      outbox,
      skillRoots: [{ dir: BENCH_SKILLS, source: 'shared' }],
    });
    const [reply, ...more] = await h.turn({ raw_input: '/bench_long_reply' });
    expect(more).toHaveLength(0);
    expect(reply!.omitted).toBeGreaterThan(900_000);
    for (let pass = 0; pass < 20 && (await outbox.backlog()) > 0; pass++) {
      await outbox.deliverDue();
      clock.advance(1000);
    }
    expect(await outbox.backlog()).toBe(0);
    const texts = platform()
      .calls(/\/sendMessage$/)
      .map((s) => (s.json as { text: string }).text);
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.length).toBeLessThanOrEqual(REPLY_MAX_PARTS);
    expect(texts[0]).toContain('<b>泵房</b>');
    expect(texts.at(-1)).toMatch(/回复过长，只发送了前一部分，省略约 \d+ 字符/);
    // The notice names the file that holds the whole reply, and that file is sent as a document after the text.
    const name = /全文见附件 (完整回复-\d{8}-\d{6}\.md)）/.exec(texts.at(-1)!)?.[1];
    expect(name).toBeDefined();
    expect(reply!.full_text_file).toBe(name);
    const docs = platform().calls(/\/sendDocument$/);
    expect(docs).toHaveLength(1);
    expect(docs[0]!.seq).toBeGreaterThan(
      platform()
        .calls(/\/sendMessage$/)
        .at(-1)!.seq,
    );
    const part = docs[0]!.parts.find((p) => p.filename !== null)!;
    expect(part.filename).toBe(name);
    const whole = part.data.toString('utf8');
    const line = '**泵房** 压力 [报告](https://example.com/r?a=1&b=2) 正常 & 稳定。\n';
    expect(whole).toBe(line.repeat(Math.ceil(1_000_000 / line.length)));
    // The skill's whole result is in the session workspace's offload file (R-OFF-01), display_md verbatim.
    const dataDir = h.services.settings.dataDir;
    const files = (await readdir(dataDir, { recursive: true })).filter((f) =>
      /[/\\]\.offload[/\\]offload_bench_long_reply_\d{8}_\d{6}\.json$/.test(f),
    );
    expect(files).toHaveLength(1);
    const kept = JSON.parse(await readFile(join(dataDir, files[0]!), 'utf8')) as { display_md: string };
    expect(kept.display_md.length).toBeGreaterThanOrEqual(1_000_000);
    expect(kept.display_md.startsWith('**泵房** 压力 [报告](https://example.com/r?a=1&b=2)')).toBe(true);
  });
});
