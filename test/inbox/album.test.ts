/**
 * Albums (src/inbox/album.ts): a Telegram album arrives as one update per item with the same
 * `media_group_id`; the inbox runs it as ONE turn — attachments of every item in order, the
 * caption of whichever item carries it — and the absorbed items are done, never turns of their
 * own. The merged message is written back to the running event, so a retry (handler failure)
 * runs the whole album again. Both engines.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channel/types.ts';
import { createInbox, type InboxEvent } from '../../src/inbox/index.ts';
import { mergeAlbum } from '../../src/inbox/album.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { normalizeUpdate } from '../../adapters/telegram/inbound.ts';
import { captureLog, inbound, until } from './helpers.ts';

function albumItem(chat: string, key: string, group: string, caption = ''): InboundMessage {
  return {
    ...inbound(chat, key, caption),
    media_group_id: group,
    attachments: [{ type: 'image', filename: `${key}.jpg`, platform_ref: { file_id: `file_${key}` }, size: 100, mime_type: 'image/jpeg' }],
  };
}

it('Telegram: an album item carries media_group_id (not an edit)', () => {
  const bot = { id: 99, username: 'bot' };
  const update = {
    update_id: 7,
    message: {
      message_id: 5,
      date: 1,
      chat: { id: 1, type: 'private' },
      from: { id: 1, is_bot: false, first_name: 'A' },
      media_group_id: '1372',
      photo: [{ file_id: 'p', file_unique_id: 'u', width: 10, height: 10, file_size: 10 }],
    },
  };
  const n = normalizeUpdate(update as never, 'default', bot as never, new Date(0));
  expect(n.type).toBe('message');
  if (n.type === 'message') expect(n.msg.media_group_id).toBe('1372');
});

it('mergeAlbum: attachments in order; the head keeps its text, else the first caption is taken', () => {
  const a = albumItem('c', 'a', 'g');
  const b = albumItem('c', 'b', 'g', '这是相册说明');
  const c = albumItem('c', 'c', 'g', 'later caption');
  const m = mergeAlbum(a, [b, c]);
  expect(m.attachments.map((x) => x.filename)).toEqual(['a.jpg', 'b.jpg', 'c.jpg']);
  expect(m.raw_input).toBe('这是相册说明');
  expect(m.message_id).toBe('a');
  expect(mergeAlbum(albumItem('c', 'h', 'g', 'own'), [b]).raw_input).toBe('own');
  expect(a.attachments).toHaveLength(1); // inputs untouched
});

describeEachEngine('inbox albums', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });

  it('three items of an album → one turn with three images and the caption; a later plain message is its own turn', async () => {
    const { log } = captureLog();
    const inbox = createInbox(db(), { log, albumWaitMs: 400 });
    const seen: InboxEvent[] = [];
    inbox.start(async (ev) => void seen.push(ev), { concurrency: 4 });
    expect(await inbox.receive(albumItem('chat1', 'a1', 'G1'))).toBe('accepted');
    expect(await inbox.receive(albumItem('chat1', 'a2', 'G1', '报修：空调漏水'))).toBe('accepted');
    expect(await inbox.receive(albumItem('chat1', 'a3', 'G1'))).toBe('accepted');
    expect(await inbox.receive(inbound('chat1', 'p1', 'after the album'))).toBe('accepted');
    expect(await inbox.receive(albumItem('chat1', 'a2', 'G1', '报修：空调漏水'))).toBe('duplicate'); // a redelivered item
    await until(() => seen.length >= 2, 'two turns');
    await until(async () => (await inbox.backlog()) === 0, 'all done');
    await inbox.stop();
    expect(seen).toHaveLength(2);
    expect(seen[0]!.message.attachments.map((x) => x.filename)).toEqual(['a1.jpg', 'a2.jpg', 'a3.jpg']);
    expect(seen[0]!.message.raw_input).toBe('报修：空调漏水');
    expect(seen[1]!.message.raw_input).toBe('after the album');
    const { rows } = await db().query<{ dedupe_key: string; status: string; error: string | null; n: number }>(
      `SELECT dedupe_key, status, error, jsonb_array_length(payload->'attachments') AS n FROM skillgate.inbox_events ORDER BY id`,
    );
    expect(rows.map((r) => [r.dedupe_key, r.status, r.n])).toEqual([
      ['telegram:update:a1', 'done', 3], // the merged message is stored on the event that ran
      ['telegram:update:a2', 'done', 1],
      ['telegram:update:a3', 'done', 1],
      ['telegram:update:p1', 'done', 0],
    ]);
    expect(rows[1]!.error).toMatch(/^merged into album event \d+$/);
  });

  it('a failed album turn is retried whole (the merged message was stored), not item by item', async () => {
    const { log } = captureLog();
    const inbox = createInbox(db(), { log, albumWaitMs: 300, retryBaseMs: 10, random: () => 0 });
    const seen: InboxEvent[] = [];
    let failOnce = true;
    inbox.start(
      async (ev) => {
        seen.push(ev);
        if (failOnce) {
          failOnce = false;
          throw new Error('boom');
        }
      },
      { concurrency: 2 },
    );
    await inbox.receive(albumItem('chat2', 'b1', 'G2', 'two photos'));
    await inbox.receive(albumItem('chat2', 'b2', 'G2'));
    await until(() => seen.length >= 2, 'the retry');
    await until(async () => (await inbox.backlog()) === 0, 'all done');
    await inbox.stop();
    expect(seen).toHaveLength(2);
    for (const ev of seen) expect(ev.message.attachments.map((x) => x.filename)).toEqual(['b1.jpg', 'b2.jpg']);
    expect(seen[1]!.attempts).toBe(2);
  });
});
