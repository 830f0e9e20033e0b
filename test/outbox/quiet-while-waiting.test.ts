/**
 * Flood control (docs/operations-delivery.md "Flood control"): while a chat waits out a
 * platform's retry_after, the outbox's quiet adapter drops typing and progress to it and counts
 * each drop; other chats, and the chat once the wait is over or a send went through, are not
 * affected. Both engines.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createOutbox, type OutboxItem } from '../../src/outbox/index.ts';
import type { OutboundTarget } from '../../src/channel/types.ts';
import { captureLog } from '../inbox/helpers.ts';
import { FakeClock, FakeTelegram, telegramLikeAdapter } from './fakes.ts';

const target = (chat: string): OutboundTarget => ({ channel: 'telegram', account: 'default', chat_id: chat, chat_type: 'direct' });
const item = (chat: string, text: string): OutboxItem => ({
  target: target(chat),
  message: { kind: 'reply', text, format: 'plain', final: true },
});
const LONG_WAIT = {
  status: 429,
  body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1000', parameters: { retry_after: 1000 } },
};

describeEachEngine('outbox flood control', (db) => {
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

  it('a chat waiting out retry_after 1000 s gets no typing or progress until the wait is over; the drops are counted', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const typed: string[] = [];
    const progressed: (string | null)[] = [];
    const base = telegramLikeAdapter(() => platform.url, clock);
    const adapter = {
      ...base,
      typing: async (t: OutboundTarget) => void typed.push(t.chat_id),
      progress: async (_t: OutboundTarget, note: string | null) => void progressed.push(note),
    };
    const dropped: string[] = [];
    const outbox = createOutbox(db(), {
      log,
      clock,
      adapterFor: () => adapter,
      onSuppressed: (channel, kind) => dropped.push(`${channel}:${kind}`),
    });
    const quiet = outbox.quiet(adapter);

    platform.script('flooded', [LONG_WAIT]);
    await outbox.enqueue(db(), [item('c1', 'flooded')]);
    await outbox.deliverDue();
    expect(outbox.heldFor(target('c1'))).toBe(1_000_000);

    await quiet.typing!(target('c1'));
    await quiet.progress!(target('c1'), '正在处理…');
    await quiet.typing!(target('c2')); // another chat is not held
    expect(typed).toEqual(['c2']);
    expect(progressed).toEqual([]);
    expect(dropped).toEqual(['telegram:typing', 'telegram:progress']);
    expect(quiet.capabilities).toBe(adapter.capabilities);

    clock.advance(999_999);
    await quiet.typing!(target('c1'));
    expect(typed).toEqual(['c2']);
    clock.advance(1);
    expect(outbox.heldFor(target('c1'))).toBe(0);
    await quiet.typing!(target('c1'));
    expect(typed).toEqual(['c2', 'c1']);
  });

  it('a send that goes through releases the hold at once', async () => {
    const clock = new FakeClock();
    const { log } = captureLog();
    const adapter = telegramLikeAdapter(() => platform.url, clock);
    const outbox = createOutbox(db(), { log, clock, adapterFor: () => adapter });
    platform.script('once', [
      {
        status: 429,
        body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } },
      },
    ]);
    await outbox.enqueue(db(), [item('c3', 'once')]);
    await outbox.deliverDue();
    expect(outbox.heldFor(target('c3'))).toBe(3000);
    clock.advance(3000);
    await outbox.deliverDue();
    expect(platform.requests.at(-1)).toMatchObject({ text: 'once', status: 200 });
    expect(outbox.heldFor(target('c3'))).toBe(0);
  });
});
