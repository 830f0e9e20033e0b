/**
 * Delivery dispatches artifacts by media or file extension to the channel's image / video /
 * audio / file sending (R-ART-11, A-15). The whole path of a turn: files in
 * the session workspace declared by a skill result (no `media` given, or one given) →
 * processArtifacts → session attachments → mediaResolver → composeReply for the Telegram
 * adapter's capabilities → TelegramAdapter.send against the loopback fake Bot API, where the
 * Bot API method per file is observed (https://core.telegram.org/bots/api#sendphoto: photos are
 * JPEG/PNG/WebP up to 10 MB; everything else that is not video or audio goes as a document).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../adapters/contract/index.ts';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import type { OutboundMessage } from '../../src/channel/types.ts';
import { processArtifacts, snapshotWorkspace } from '../../src/envelope/artifacts/index.ts';
import type { Envelope } from '../../src/envelope/types.ts';
import { createLogger } from '../../src/log/logger.ts';
import { listAttachments, registerAttachment } from '../../src/session/attachments.ts';
import { getOrCreateSession } from '../../src/session/sessions.ts';
import { migrate } from '../../src/store/migrate.ts';
import { composeReply } from '../../src/turn/reply/index.ts';
import { mediaResolver } from '../../src/turn/reply-support.ts';
import { installTelegram, SECRET, TOKEN } from '../adapters/telegram/fake-telegram.ts';
import { describeEachEngine } from '../helpers/db.ts';

const silent = createLogger({ level: 'silent' });
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5d80000000049454e44ae426082',
  'hex',
);

describeEachEngine('artifact delivery per media type (R-ART-11)', (db) => {
  let fake: FakePlatform;
  let adapter: TelegramAdapter;
  let dataDir: string;
  let n = 0;

  beforeAll(async () => {
    await migrate(db());
    dataDir = mkdtempSync(join(tmpdir(), 'sg-art-dispatch-'));
    fake = await startFakePlatform();
    installTelegram(fake);
    adapter = new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: fake.baseUrl, maxRetryDelayS: 0 },
      { db: db(), log: silent },
    );
  });
  afterAll(async () => {
    await fake?.close();
  });

  /** Run the artifact stage of one skill call writing `files`, compose the reply, send it; the Bot API methods called, with the uploaded file names. */
  async function deliver(
    files: Record<string, Buffer>,
    result: (ws: string) => Envelope,
  ): Promise<{ method: string; file: string | null }[]> {
    const session = await getOrCreateSession(db(), {
      id: `s_art_dispatch_${++n}`,
      roleId: 'default',
      orgId: 'demo',
      channel: 'telegram',
      ownerKey: 'telegram:10000001',
      dataDir,
    });
    const ws = session.workspaceDir;
    const before = await snapshotWorkspace(ws);
    for (const [name, data] of Object.entries(files)) writeFileSync(join(ws, name), data);
    const envelope = await processArtifacts(result(ws), {
      workspaceDir: ws,
      before,
      log: silent,
      register: async (a) => {
        await registerAttachment(db(), {
          sessionId: session.id,
          type: a.media,
          filename: a.filename,
          localPath: a.local_path,
          origin: 'artifact',
        });
      },
    });
    const messages: OutboundMessage[] = composeReply({
      plannerText: '报表已生成。',
      invocations: [{ tool: 'report', args: {}, envelope }],
      capabilities: adapter.capabilities,
      lang: 'zh-CN',
      mediaFor: mediaResolver(await listAttachments(db(), session.id)),
    });
    fake.reset();
    for (const m of messages)
      expect(await adapter.send({ channel: 'telegram', account: 'default', chat_id: '10000001' }, m)).toMatchObject({ ok: true });
    return fake
      .calls(/\/send[A-Za-z]+$/)
      .map((r) => ({ method: r.path.split('/').pop()!, file: r.parts.find((p) => p.filename !== null)?.filename ?? null }));
  }

  it('R-ART-11: by extension — .png/.jpg → sendPhoto, .mp4 → sendVideo, .mp3 → sendAudio (A-15), .pdf/.xlsx → sendDocument', async () => {
    const files = {
      '图.png': PNG,
      'b.jpg': Buffer.from('jpeg'),
      'c.mp4': Buffer.from('mp4'),
      'd.mp3': Buffer.from('mp3'),
      '报表.pdf': Buffer.from('%PDF-1.4'),
      'e.xlsx': Buffer.from('xlsx'),
    };
    // One top-level declaration without `media`; the rest undeclared, found by the fallback collection (R-ART-09).
    const calls = await deliver(files, (ws) => ({ success: true, filename: '报表.pdf', local_path: join(ws, '报表.pdf') }));
    const byFile = Object.fromEntries(calls.filter((c) => c.file).map((c) => [c.file, c.method]));
    expect(byFile).toEqual({
      '图.png': 'sendPhoto',
      'b.jpg': 'sendPhoto',
      'c.mp4': 'sendVideo',
      'd.mp3': 'sendAudio',
      '报表.pdf': 'sendDocument',
      'e.xlsx': 'sendDocument',
    });
    // The text goes first, as a message of its own.
    expect(calls[0]).toEqual({ method: 'sendMessage', file: null });
  });

  it('R-ART-11: a declared media (explicit, or implied by images/videos/files/audios) wins over the extension', async () => {
    const calls = await deliver(
      {
        'clip.bin': Buffer.from('video bytes'),
        'original.png': PNG,
        'voice.ogg': Buffer.from('ogg'),
        'table.csv': Buffer.from('a,b\n1,2\n'),
      },
      (ws) => ({
        success: true,
        videos: [{ local_path: join(ws, 'clip.bin') }],
        // An image declared under files is sent as a file (e.g. the uncompressed original).
        files: [{ local_path: join(ws, 'original.png') }],
        audios: [join(ws, 'voice.ogg')],
        // table.csv is not declared: the fallback collection finds it (R-ART-09).
      }),
    );
    const byFile = Object.fromEntries(calls.filter((c) => c.file).map((c) => [c.file, c.method]));
    expect(byFile).toEqual({
      'clip.bin': 'sendVideo',
      'original.png': 'sendDocument',
      'voice.ogg': 'sendAudio',
      'table.csv': 'sendDocument',
    });
  });

  it('R-ART-11: an image the platform cannot take as a photo (.svg) goes as a document, by its MIME type from the extension', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
    const calls = await deliver({ 'chart.svg': svg }, (ws) => ({ success: true, images: [{ local_path: join(ws, 'chart.svg') }] }));
    expect(calls.filter((c) => c.file)).toEqual([{ method: 'sendDocument', file: 'chart.svg' }]);
  });
});
