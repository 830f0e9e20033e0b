/**
 * Feishu sending (adapters/feishu/outbound.ts) with the real SDK client against the loopback
 * Open API fake: cards for markdown, six tables, plain text, the withdrawn reply target under one
 * uuid, idempotent retries, `code != 0` answers, rate limits, uploads with Chinese file names,
 * confirmation buttons, and resource downloads with RFC 5987 / raw UTF-8 file names.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { createFeishuAdapter, type FeishuAdapter } from '../../../adapters/feishu/index.ts';
import { dispositionFilename } from '../../../adapters/feishu/resource.ts';
import type { InboundMessage, OutboundMessage, OutboundTarget } from '../../../src/channel/types.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { cardMarkdown, contentOf, countMdTables, installOpenApi, type OpenApiState } from './open-api.ts';

const log = createLogger({ level: 'silent', pretty: false });
const TARGET: OutboundTarget = { channel: 'feishu', account: 'default', chat_id: 'oc_test_group_0000000000000000001', chat_type: 'group' };
const SEND = /^\/open-apis\/im\/v1\/messages(\/[^/]+\/reply)?$/;
let fake: FakePlatform;
let state: OpenApiState;
let adapter: FeishuAdapter;
const dir = mkdtempSync(join(tmpdir(), 'feishu-out-'));

beforeAll(async () => {
  fake = await startFakePlatform();
  state = installOpenApi(fake);
  adapter = createFeishuAdapter({
    account: 'default',
    appId: 'cli_x',
    appSecret: 's',
    verificationToken: 'v',
    domain: fake.baseUrl,
    mode: 'webhook',
    log,
  });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const reply = (text: string, extra: Partial<OutboundMessage> = {}): OutboundMessage => ({
  kind: 'reply',
  text,
  format: 'markdown',
  final: true,
  ...extra,
});
const sends = () => fake.calls(SEND, 'POST');

describe('Feishu outbound', () => {
  it('markdown becomes a JSON 2.0 card replying to the user message; later chunks are new messages (D-22 rich display)', async () => {
    const long = `**总计** 42\n\n${'数据行 '.repeat(4000)}`;
    const res = await adapter.send(TARGET, reply(long, { reply_to: 'om_user_1' }));
    expect(res.ok).toBe(true);
    const all = sends();
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(all[0]!.path).toBe('/open-apis/im/v1/messages/om_user_1/reply');
    for (const r of all.slice(1)) {
      expect(r.path).toBe('/open-apis/im/v1/messages');
      expect(r.query.receive_id_type).toBe('chat_id');
    }
    const first = contentOf(all[0]!)!;
    expect(first.msg_type).toBe('interactive');
    expect(first.content.schema).toBe('2.0');
    expect(cardMarkdown(first.content)).toContain('**总计** 42');
    if (res.ok) expect(res.message_ids).toHaveLength(all.length);
  });

  it('six markdown tables in one reply: accepted by the platform (≤ 4 per card), extra tables degraded, nothing lost', async () => {
    const md = Array.from({ length: 6 }, (_, i) => `| 表${i + 1} | 值 |\n|---|---|\n| 压力${i + 1} | ${i + 1}.5 MPa |`).join('\n\n');
    const res = await adapter.send(TARGET, reply(md));
    expect(res.ok, res.ok ? '' : res.error).toBe(true);
    const all = sends();
    expect(all).toHaveLength(1);
    const c = contentOf(all[0]!)!;
    expect(c.msg_type).toBe('interactive');
    const text = cardMarkdown(c.content);
    expect(countMdTables(text)).toBeLessThanOrEqual(4);
    for (let i = 1; i <= 6; i++) expect(text).toContain(`压力${i}`);
  });

  it('plain format is a text message; text with <, >, & goes out verbatim', async () => {
    const res = await adapter.send(TARGET, { kind: 'notice', text: 'a < b && c > d', format: 'plain' });
    expect(res.ok).toBe(true);
    const c = contentOf(sends()[0]!)!;
    expect(c).toMatchObject({ msg_type: 'text', content: { text: 'a < b && c > d' } });
  });

  it('a reply whose target was withdrawn (230011) is sent as a new message under the same uuid', async () => {
    state.withdrawn.add('om_withdrawn_1');
    const res = await adapter.send(TARGET, reply('结果：已完成', { reply_to: 'om_withdrawn_1' }));
    expect(res.ok, res.ok ? '' : res.error).toBe(true);
    const [r1, r2, ...rest] = sends();
    expect(rest).toHaveLength(0);
    expect(r1!.path).toBe('/open-apis/im/v1/messages/om_withdrawn_1/reply');
    expect(r2!.path).toBe('/open-apis/im/v1/messages');
    expect((r2!.json as { receive_id: string }).receive_id).toBe(TARGET.chat_id);
    expect(contentOf(r1!)!.uuid).toBeTruthy();
    expect(contentOf(r2!)!.uuid).toBe(contentOf(r1!)!.uuid);
  });

  it('a failed part is retried by the outbox without duplicating the parts already sent (uuid per row and part)', async () => {
    const file = join(dir, '报表.pdf');
    writeFileSync(file, Buffer.from('%PDF-1.4 测试'));
    const msg = reply('见附件', { media: [{ kind: 'file', path: file, filename: '报表.pdf' }] });
    // First attempt: the text card goes out, the file message hits a server error.
    fake.script(
      'POST',
      '/open-apis/im/v1/messages',
      (r) =>
        (r.json as { msg_type?: string }).msg_type === 'file'
          ? { status: 500, json: { code: 1500, msg: 'internal error' } }
          : { status: 200, json: { code: 0, data: { message_id: 'om_first' } } },
      2,
    );
    const first = await adapter.send(TARGET, msg, { idempotencyKey: 'outbox:77' });
    expect(first).toMatchObject({ ok: false, retryable: true });
    const firstUuids = sends().map((r) => contentOf(r)!.uuid);
    fake.reset();
    const second = await adapter.send(TARGET, msg, { idempotencyKey: 'outbox:77' });
    expect(second.ok).toBe(true);
    const secondUuids = sends().map((r) => contentOf(r)!.uuid);
    expect(secondUuids).toEqual(firstUuids); // same uuids: the platform drops the card already delivered
    // Another outbox row with the same content gets other uuids (not swallowed as a duplicate).
    fake.reset();
    await adapter.send(TARGET, msg, { idempotencyKey: 'outbox:78' });
    expect(sends().map((r) => contentOf(r)!.uuid)).not.toEqual(firstUuids);
  });

  it('HTTP 200 with code != 0 is a failure with the platform code (not retryable unless a rate limit)', async () => {
    fake.script('POST', SEND, { status: 200, json: { code: 230002, msg: 'The bot can not be outside the group.' } });
    expect(await adapter.send(TARGET, reply('x'))).toMatchObject({ ok: false, retryable: false, code: 230002 });
    fake.script('POST', SEND, {
      status: 400,
      json: { code: 99991400, msg: 'request trigger frequency limit' },
      headers: { 'x-ogw-ratelimit-reset': '7' },
    });
    expect(await adapter.send(TARGET, reply('x'))).toMatchObject({ ok: false, retryable: true, retry_after_ms: 7000 });
    fake.script('POST', SEND, { status: 400, json: { code: 230020, msg: 'This chat is triggering the rate limit.' } });
    expect(await adapter.send(TARGET, reply('x'))).toMatchObject({ ok: false, retryable: true, retry_after_ms: null });
  });

  it('each media item is uploaded just before it is sent (image → images API; Chinese file name in file_name and in the part filename)', async () => {
    const pdf = join(dir, '报修单.pdf');
    const png = join(dir, '现场.png');
    writeFileSync(pdf, Buffer.from('%PDF-1.4\n报修\n'));
    writeFileSync(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    const res = await adapter.send(
      TARGET,
      reply('', {
        media: [
          { kind: 'file', path: pdf, filename: '报修单.pdf' },
          { kind: 'image', path: png, filename: '现场.png' },
        ],
      }),
    );
    expect(res.ok, res.ok ? '' : res.error).toBe(true);
    const order = fake.requests.filter((r) => r.method === 'POST' && !r.path.includes('auth')).map((r) => r.path);
    expect(order).toEqual(['/open-apis/im/v1/files', '/open-apis/im/v1/messages', '/open-apis/im/v1/images', '/open-apis/im/v1/messages']);
    const upload = fake.calls('/open-apis/im/v1/files')[0]!;
    expect(upload.fields).toMatchObject({ file_type: 'pdf', file_name: '报修单.pdf' });
    expect(upload.parts.find((p) => p.name === 'file')!.data.toString()).toBe('%PDF-1.4\n报修\n');
    expect(upload.parts.find((p) => p.name === 'file')!.filename).toBe('报修单.pdf');
    expect(fake.calls('/open-apis/im/v1/images')[0]!.fields.image_type).toBe('message');
    expect(fake.calls('/open-apis/im/v1/images')[0]!.parts.find((p) => p.name === 'image')!.filename).toBe('现场.png');
    const [m1, m2] = sends().map((r) => contentOf(r)!);
    expect(m1).toMatchObject({ msg_type: 'file', content: { file_key: expect.stringMatching(/^file_kit_/) } });
    expect(m2).toMatchObject({ msg_type: 'image', content: { image_key: expect.stringMatching(/^img_kit_/) } });
  });

  it('a failed upload never withholds the text: a permanent code (even on HTTP 200) is kept and not retried, the file named instead', async () => {
    const pdf = join(dir, '坏.pdf');
    writeFileSync(pdf, 'x');
    fake.script('POST', '/open-apis/im/v1/files', { status: 200, json: { code: 234010, msg: 'File size exceed the max value.' } });
    const res = await adapter.send(TARGET, reply('见附件', { media: [{ kind: 'file', path: pdf, filename: '坏.pdf' }] }));
    expect(res.ok).toBe(true);
    const sent = sends().map((r) => contentOf(r)!);
    expect(sent).toHaveLength(2);
    expect(JSON.stringify(sent[0]!.content)).toContain('见附件');
    expect(sent[1]).toMatchObject({ msg_type: 'text', content: { text: expect.stringContaining('坏.pdf (234010)') } });
    expect(fake.calls('/open-apis/im/v1/files')).toHaveLength(1);
  });

  it('a retryable upload failure ends the attempt after the text; the retry resumes at the attachment', async () => {
    const pdf = join(dir, '稍后.pdf');
    writeFileSync(pdf, 'x');
    fake.script('POST', '/open-apis/im/v1/files', {
      status: 429,
      headers: { 'x-ogw-ratelimit-reset': '2' },
      json: { code: 99991400, msg: 'request trigger frequency limit' },
    });
    const message = reply('见附件', { media: [{ kind: 'file', path: pdf, filename: '稍后.pdf' }] });
    const first = await adapter.send(TARGET, message);
    expect(first).toMatchObject({ ok: false, retryable: true, retry_after_ms: 2000, code: 99991400, parts_done: 1 });
    expect(sends()).toHaveLength(1);
    const again = await adapter.send(TARGET, message, { partsDone: 1 });
    expect(again.ok).toBe(true);
    expect(sends().map((r) => contentOf(r)!.msg_type)).toEqual(['interactive', 'file']);
  });

  it('an unreadable media file is named, the text still sent', async () => {
    const res = await adapter.send(
      TARGET,
      reply('文字', { media: [{ kind: 'file', path: join(dir, 'missing.pdf'), filename: 'missing.pdf' }] }),
    );
    expect(res.ok).toBe(true);
    expect(sends().map((r) => contentOf(r)!.msg_type)).toEqual(['interactive', 'text']);
  });

  it('a confirmation request is a card with one callback button per option carrying the confirm token', async () => {
    const res = await adapter.send(
      TARGET,
      reply('将删除 3 行。', {
        confirm: {
          token: 'tok_abc',
          prompt_md: '确认删除？',
          options: [
            { id: 'confirm', label: '确认', style: 'danger' },
            { id: 'cancel', label: '取消' },
          ],
          expires_at: '2030-01-01T00:00:00Z',
        },
      }),
    );
    expect(res.ok).toBe(true);
    const c = contentOf(sends()[0]!)!;
    const json = JSON.stringify(c.content);
    expect(cardMarkdown(c.content)).toContain('确认删除？');
    expect(json).toContain('"value":{"action":"confirm","confirm_token":"tok_abc"}');
    expect(json).toContain('"value":{"action":"cancel","confirm_token":"tok_abc"}');
    expect(json).toContain('"type":"danger"');
  });
});

describe('Feishu resources in', () => {
  const msg = { channel: 'feishu', account: 'default', message_id: 'om_r' } as InboundMessage;
  const att = (key: string, filename: string | null = null) => ({
    type: 'file' as const,
    filename,
    platform_ref: { message_id: 'om_r', file_key: key, resource_type: 'file' },
  });

  it('file names: RFC 5987 filename* wins; a raw UTF-8 filename= is decoded; ASCII kept', () => {
    expect(dispositionFilename(`attachment; filename="x.pdf"; filename*=UTF-8''%E6%8A%A5%E4%BF%AE%E5%8D%95.pdf`)).toBe('报修单.pdf');
    expect(dispositionFilename(`attachment; filename="${Buffer.from('报修单.pdf').toString('latin1')}"`)).toBe('报修单.pdf');
    expect(dispositionFilename('attachment; filename=plain.txt')).toBe('plain.txt');
    expect(dispositionFilename('attachment; filename="caf\u00e9.txt"')).toBe('caf\u00e9.txt'); // latin1 that is not UTF-8 stays
    expect(dispositionFilename(null)).toBeNull();
    expect(dispositionFilename("attachment; filename*=UTF-8''%E0%A4%A")).toBeNull();
  });

  it('fetchAttachment downloads the bytes and reads the name and type from the answer', async () => {
    const data = Buffer.from('PDF 字节 \u0000\u00ff');
    fake.route('GET', '/open-apis/im/v1/messages/om_r/resources/file_raw', {
      headers: {
        'content-type': 'application/pdf',
        'content-disposition': `attachment; filename="${Buffer.from('维修记录.pdf').toString('latin1')}"`,
      },
      body: data,
    });
    const got = await adapter.fetchAttachment!(att('file_raw'), msg);
    expect(got.data.equals(data)).toBe(true);
    expect(got).toMatchObject({ filename: '维修记录.pdf', mime_type: 'application/pdf' });
    expect(fake.calls('/open-apis/im/v1/messages/om_r/resources/file_raw')[0]!.query.type).toBe('file');
    // The name the user sent (from the event) wins over the header's.
    expect((await adapter.fetchAttachment!(att('file_raw', '报修单.pdf'), msg)).filename).toBe('报修单.pdf');
  });

  it('a refused download throws with the platform code', async () => {
    await expect(adapter.fetchAttachment!(att('file_missing'), msg)).rejects.toThrow(/file_missing/);
  });
});
