/**
 * Split pastes (src/inbox/album.ts): a client splits a paste longer than its per-message limit
 * into messages a moment apart; the adapter marks one near the limit and the inbox joins the
 * sender's directly following messages within the window into one turn. Both engines.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channel/types.ts';
import { createInbox, type InboxEvent } from '../../src/inbox/index.ts';
import { mergeSplit } from '../../src/inbox/album.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { normalizeUpdate } from '../../adapters/telegram/inbound.ts';
import { captureLog, inbound, until } from './helpers.ts';

const first = 'x'.repeat(4000);
const part = (chat: string, key: string, text: string, actor = 'u1'): InboundMessage => ({
  ...inbound(chat, key, text),
  actor: { id: actor, display_name: actor },
  ...(text.length >= 3687 ? { near_limit: true } : {}),
});

it('Telegram: a text within 10 % of 4096 is marked near_limit; a short one is not', () => {
  const bot = { id: 99, username: 'bot' };
  const update = (id: number, text: string) => ({
    update_id: id,
    message: { message_id: id, date: 1, chat: { id: 1, type: 'private' }, from: { id: 1, is_bot: false, first_name: 'A' }, text },
  });
  const long = normalizeUpdate(update(1, 'y'.repeat(4096)) as never, 'default', bot as never, new Date(0));
  const short = normalizeUpdate(update(2, 'hello') as never, 'default', bot as never, new Date(0));
  expect(long.type === 'message' && long.msg.near_limit).toBe(true);
  expect(short.type === 'message' && short.msg.near_limit).toBeFalsy();
});

it('mergeSplit joins the texts by newlines and keeps the head', () => {
  const m = mergeSplit(part('c', 'a', first), [part('c', 'b', 'tail')]);
  expect(m.raw_input).toBe(`${first}\ntail`);
  expect(m.message_id).toBe('a');
  expect(m.near_limit).toBeUndefined();
});

describeEachEngine('inbox split pastes', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });

  it('a paste split in two → one turn; a message of another person, or after a short one, stays its own', async () => {
    const { log } = captureLog();
    const inbox = createInbox(db(), { log, albumWaitMs: 400 });
    const seen: InboxEvent[] = [];
    inbox.start(async (ev) => void seen.push(ev), { concurrency: 4 });
    expect(await inbox.receive(part('chat1', 's1', first))).toBe('accepted');
    expect(await inbox.receive(part('chat1', 's2', '粘贴的后半段'))).toBe('accepted');
    expect(await inbox.receive(part('chat1', 's3', '新的问题'))).toBe('accepted'); // after a short part: its own turn
    expect(await inbox.receive(part('chat2', 't1', first))).toBe('accepted');
    expect(await inbox.receive(part('chat2', 't2', '别人的消息', 'u2'))).toBe('accepted');
    await until(() => seen.length >= 4, 'four turns');
    await until(async () => (await inbox.backlog()) === 0, 'all done');
    await inbox.stop();
    const texts = seen.map((e) => `${e.message.chat.id}:${(e.message.raw_input ?? '').slice(-6)}`).sort();
    expect(texts).toEqual(['chat1:新的问题', 'chat1:粘贴的后半段', `chat2:${'x'.repeat(6)}`, 'chat2:别人的消息'].sort());
    const merged = seen.find((e) => e.message.message_id === 's1')!;
    expect(merged.message.raw_input).toBe(`${first}\n粘贴的后半段`);
    const { rows } = await db().query<{ dedupe_key: string; error: string | null }>(
      `SELECT dedupe_key, error FROM skillgate.inbox_events WHERE dedupe_key LIKE '%s2'`,
    );
    expect(rows[0]!.error).toMatch(/^merged into split paste event/);
  });
});
