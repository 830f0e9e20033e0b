/**
 * WeCom's known failure kinds on the real inbox, the adapter's API client
 * against the loopback fake, and — for the URL verification — the gateway's real webhook route:
 * a 6000-character Chinese reply with a table (2048-byte chunks, no cut character, the table's
 * header repeated), a Chinese file name in and out, an event redelivered five times in one
 * second, the URL verification answered in plain text; plus token caching/refresh, the
 * receive-id check and configuration.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClock,
  createRecordingHost,
  startFakePlatform,
  type FakePlatform,
  type RecordingHost,
} from '../../../adapters/contract/index.ts';
import { createWecomAdapter, wecomChannel, type WecomAdapter } from '../../../adapters/wecom/index.ts';
import { toWecomXml } from '../../../adapters/wecom/wire.ts';
import { measure } from '../../../src/channel/chunk.ts';
import { renderPlain } from '../../../src/channel/render/index.ts';
import type { WebhookRequest } from '../../../src/channel/types.ts';
import { createWebhookRouter } from '../../../src/channel/webhooks.ts';
import { wecomAesKey, wecomEncrypt, wecomSignature } from '../../../adapters/wecom/crypto.ts';
import { ConfigError } from '../../../src/config/errors.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { describeEachEngine } from '../../helpers/db.ts';
import { WECOM, installWecomApi, type FakeWecomState } from './fake-wecom.ts';

const log = createLogger({ level: 'silent', pretty: false });
const KEY = wecomAesKey(WECOM.aesKey);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A signed POST of `inner` (receive id `corpId`) at `at`. */
function post(inner: string, at: Date, corpId = WECOM.corpId): WebhookRequest {
  const encrypt = wecomEncrypt(inner, corpId, KEY);
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const body = Buffer.from(toWecomXml({ ToUserName: corpId, AgentID: WECOM.agentId, Encrypt: encrypt }));
  return {
    method: 'POST',
    path: '',
    headers: { 'content-type': 'text/xml' },
    query: { msg_signature: wecomSignature(WECOM.token, timestamp, '42', encrypt), timestamp, nonce: '42' },
    body,
  };
}

describeEachEngine('WeCom known failures', (db) => {
  let fake: FakePlatform;
  let state: FakeWecomState;
  let adapter: WecomAdapter;
  let host: RecordingHost;
  const clock = createClock('2026-01-01T00:00:00Z');
  const target = { channel: 'wecom', account: 'default', chat_id: 'user_zh_002', chat_type: 'direct' as const };
  const texts = () =>
    fake
      .calls('/cgi-bin/message/send')
      .filter((r) => (r.json as { msgtype?: string }).msgtype === 'text')
      .map((r) => (r.json as { text: { content: string } }).text.content);

  beforeAll(async () => {
    await migrate(db());
    fake = await startFakePlatform();
    state = installWecomApi(fake);
    adapter = createWecomAdapter({
      account: 'default',
      corpId: WECOM.corpId,
      agentId: WECOM.agentId,
      secret: WECOM.secret,
      token: WECOM.token,
      aesKey: WECOM.aesKey,
      apiRoot: fake.baseUrl,
      db: db(),
      log,
      now: () => clock.now(),
    });
    host = createRecordingHost(db(), clock, () => adapter);
  });
  afterAll(async () => {
    await fake.close();
  });

  it('a 6000-character Chinese reply with a table → chunks ≤ 2048 bytes, no cut character, the table header repeated in the next chunk', async () => {
    fake.reset();
    const intro = '三号泵房巡检报告：本周压力、流量与温度均在正常范围内，以下为各设备的详细读数，请值班人员核对。'.repeat(50);
    const rows = Array.from({ length: 120 }, (_, i) => `| 泵房${i + 1}号机组 | ${(0.3 + i / 1000).toFixed(3)} MPa | 正常运行，无告警 |`);
    const md = `# 巡检报告\n\n${intro}\n\n| 设备名称 | 出口压力 | 运行状态 |\n|---|---|---|\n${rows.join('\n')}\n\n**结论**：全部正常。`;
    expect([...md].length).toBeGreaterThanOrEqual(6000);
    const res = await adapter.send(target, { kind: 'reply', text: md, format: 'markdown', final: true });
    expect(res.ok, res.ok ? '' : res.error).toBe(true);
    const chunks = texts();
    expect(chunks.length).toBeGreaterThanOrEqual(6);
    const plain = renderPlain(md);
    const [head, rule] = plain.split('\n').slice(plain.split('\n').findIndex((l) => l.startsWith('设备名称')));
    const tableHead = `${head}\n${rule}\n`;
    for (const c of chunks) {
      expect(measure(c, 'bytes'), 'within 2048 UTF-8 bytes (WeCom would truncate)').toBeLessThanOrEqual(2048);
      expect(LONE_SURROGATE.test(c)).toBe(false);
      expect(c).not.toContain('\uFFFD');
      expect(c.trim()).not.toBe('');
    }
    const tableChunks = chunks.filter((c) => c.includes('泵房') && c.includes('MPa'));
    expect(tableChunks.length).toBeGreaterThanOrEqual(2);
    for (const c of tableChunks) expect(c.startsWith(tableHead) || c.includes(`\n\n${tableHead}`), c.slice(0, 80)).toBe(true);
    expect(chunks.join('').split(tableHead).length - 1, 'the header once per chunk holding table rows').toBe(tableChunks.length);
    // Nothing lost: without the (repeated) headers the chunks are the rendered text.
    const rebuilt = chunks.join('').split(tableHead).join('');
    expect(rebuilt.replace(/\s+/g, '')).toBe(plain.split(tableHead).join('').replace(/\s+/g, ''));
    for (const n of [1, 60, 120]) expect(rebuilt).toContain(`泵房${n}号机组`);
  });

  it('a Chinese file name in (file message → media/get, raw UTF-8 Content-Disposition) and out (media/upload, raw UTF-8 + RFC 5987)', async () => {
    fake.reset();
    const name = '报修单（三号泵房）2026.pdf';
    const data = Buffer.from('%PDF-1.4 报修 \u0000\u00ff bytes', 'utf8');
    state.media.set('media_zh_in', { data, filename: name, type: 'application/pdf' });
    const inner = toWecomXml({
      ToUserName: WECOM.corpId,
      FromUserName: 'user_zh_002',
      CreateTime: 1767225601,
      MsgType: 'file',
      MediaId: 'media_zh_in',
      FileName: name,
      MsgId: 7460000000000009001n,
      AgentID: 1000002,
    });
    const before = host.calls.length;
    const r = await adapter.handleWebhook(post(inner, clock.now()), host);
    expect(r.status).toBe(200);
    const msg = host.calls.slice(before).find((c) => c.result === 'accepted')!.msg;
    expect(msg.actor.display_name).toBe('张三');
    expect(msg.attachments[0]!.filename).toBe(name);
    const got = await adapter.fetchAttachment!(msg.attachments[0]!, msg);
    expect(got.data.equals(data)).toBe(true);
    expect(got.filename).toBe(name);
    // Without FileName in the event, the name comes from the download's Content-Disposition.
    const bare = await adapter.fetchAttachment!({ ...msg.attachments[0]!, filename: null }, msg);
    expect(bare.filename).toBe(name);

    const dir = mkdtempSync(join(tmpdir(), 'wecom-out-'));
    writeFileSync(join(dir, 'f.pdf'), data);
    const sent = await adapter.send(target, {
      kind: 'reply',
      text: '附件',
      format: 'plain',
      media: [{ kind: 'file', path: join(dir, 'f.pdf'), filename: name, mime_type: 'application/pdf' }],
    });
    expect(sent.ok, sent.ok ? '' : sent.error).toBe(true);
    const upload = fake.calls('/cgi-bin/media/upload')[0]!;
    const part = upload.parts.find((p) => p.name === 'media')!;
    expect(part.filename).toBe(name);
    expect(part.data.equals(data)).toBe(true);
    const raw = upload.rawBody.toString('utf8');
    expect(raw).toContain(`filename="${name}"`);
    expect(raw).toContain(
      `filename*=UTF-8''${encodeURIComponent(name).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    );
    const send = fake.calls('/cgi-bin/message/send').at(-1)!.json as { msgtype: string; file: { media_id: string } };
    expect(send).toMatchObject({ msgtype: 'file', file: { media_id: expect.stringMatching(/^fake_media_/) } });
  });

  it('an event redelivered five times in one second → answered 200 each time, stored once (MsgId; events by FromUserName+CreateTime+Event)', async () => {
    const text = toWecomXml({
      ToUserName: WECOM.corpId,
      FromUserName: 'user_zh_002',
      CreateTime: 1767225602,
      MsgType: 'text',
      Content: '五次',
      MsgId: 7460000000000009002n,
      AgentID: 1000002,
    });
    const press = toWecomXml({
      ToUserName: WECOM.corpId,
      FromUserName: 'user_zh_002',
      CreateTime: 1767225603,
      MsgType: 'event',
      Event: 'template_card_event',
      EventKey: 'confirm:tok_five',
      TaskId: 't5',
      CardType: 'button_interaction',
      AgentID: 1000002,
    });
    for (const inner of [text, press]) {
      const before = host.calls.length;
      const req = post(inner, clock.now());
      for (let i = 0; i < 5; i++) {
        clock.advance(190); // five deliveries within one second, each WeCom retry re-signed identically
        const r = await adapter.handleWebhook(req, host);
        expect(r).toMatchObject({ status: 200, body: '' });
      }
      const calls = host.calls.slice(before);
      expect(calls.map((c) => c.result)).toEqual(['accepted', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
    }
  });

  it('URL verification through the gateway route — GET answered 200 text/plain with exactly the decrypted echostr', async () => {
    const app = express();
    app.use(createWebhookRouter({ adapterFor: (c, a) => (c === 'wecom' && a === 'default' ? adapter : undefined), host: () => host, log }));
    app.use((_req, res) => void res.status(404).send('catch-all'));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      clock.set('2025-01-15T08:00:00Z');
      const q =
        'msg_signature=3847e4cb8f0fa3fb0f47234a447d582a61922e74&timestamp=1736928000&nonce=9988776655&echostr=jvYct1iiVtv%2FVSUoGGcCZIYsptozp0wtHBE0NsF%2F2CyhDGtfHaPKH8Ffe37xZMBqaBLL2MXvRgyZTlz9l5kBX5Wucb1jyLyydBQ22uLisKTodx3%2FENZieHSJV8s6Cn6t';
      for (const path of ['/webhooks/wecom', '/webhooks/wecom/default']) {
        const res = await fetch(`${base}${path}?${q}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(bytes.toString('utf8')).toBe('echostr_plain_test_4242424242');
        expect(bytes[0]).not.toBe(0xef); // no BOM
      }
      const bad = await fetch(`${base}/webhooks/wecom?${q.replace('3847e4', '3847e5')}`);
      expect(bad.status).toBe(401);
      expect(await bad.text()).not.toContain('echostr_plain');
    } finally {
      server.close();
      clock.set('2026-01-01T00:00:00Z');
    }
  });

  it('a message encrypted for another CorpID (receive id) → 401, nothing stored', async () => {
    const before = host.calls.length;
    const inner = toWecomXml({
      ToUserName: 'wwother',
      FromUserName: 'user_zh_002',
      CreateTime: 1767225604,
      MsgType: 'text',
      Content: 'x',
      MsgId: 7460000000000009003n,
      AgentID: 1000002,
    });
    const r = await adapter.handleWebhook(post(inner, clock.now(), 'wwother00000000'), host);
    expect(r.status).toBe(401);
    expect(host.calls.length).toBe(before);
  });

  it('access token: cached across sends, refetched after expiry, refreshed once on 42001/40014', async () => {
    const fetches = () => fake.calls('/cgi-bin/gettoken').length;
    fake.reset();
    state.issued.length = 0;
    adapter.api.invalidate();
    await Promise.all([1, 2, 3].map((i) => adapter.send(target, { kind: 'reply', text: `并发 ${i}`, format: 'plain' })));
    expect(fetches(), 'one gettoken for concurrent sends').toBe(1);
    await adapter.send(target, { kind: 'reply', text: 'again', format: 'plain' });
    expect(fetches()).toBe(1);
    clock.advance(7200_000);
    await adapter.send(target, { kind: 'reply', text: 'after expiry', format: 'plain' });
    expect(fetches(), 'refetched once the cached token expired').toBe(2);
    state.expired.add(state.issued.at(-1)!);
    const r = await adapter.send(target, { kind: 'reply', text: 'expired token', format: 'plain' });
    expect(r.ok).toBe(true);
    expect(fetches(), 'refreshed after 42001').toBe(3);
    const sends = fake.calls('/cgi-bin/message/send');
    expect(sends.at(-1)!.query.access_token).toBe(state.issued.at(-1));
    expect(sends.at(-2)!.query.access_token).toBe(state.issued.at(-2));
  });

  it('a rate limit without a hint (45009, HTTP 200) is retryable with the default wait; no retry here', async () => {
    fake.reset();
    fake.script('POST', '/cgi-bin/message/send', { json: { errcode: 45009, errmsg: 'api freq out of limit' } }, 1);
    const r = await adapter.send(target, { kind: 'reply', text: '限流', format: 'plain' });
    expect(r).toMatchObject({ ok: false, retryable: true, retry_after_ms: 1000, code: 45009 });
    expect(fake.calls('/cgi-bin/message/send')).toHaveLength(1);
  });
});

describe('WeCom configuration', () => {
  const env = {
    WECOM_CORP_ID: WECOM.corpId,
    WECOM_AGENT_ID: WECOM.agentId,
    WECOM_SECRET: 's',
    WECOM_TOKEN: WECOM.token,
    WECOM_AES_KEY: WECOM.aesKey,
    WECOM_API_ROOT: 'http://127.0.0.1:9',
  };
  const ctx = (e: NodeJS.ProcessEnv, accounts: Record<string, unknown>[] = []) => ({
    db: {} as never,
    log,
    env: e,
    config: { roles: [], accounts: accounts as never },
    defaultRoleId: 'default',
    dataDir: '/tmp',
    secretKey: Buffer.alloc(32),
  });

  it('off when unconfigured; the .env block is account default; config accounts add more', async () => {
    expect(await wecomChannel.create(ctx({}))).toEqual([]);
    const on = await wecomChannel.create(
      ctx(env, [
        {
          channel: 'wecom',
          id: 'plant2',
          role: 'default',
          corp_id: 'ww2',
          agent_id: '7',
          secret: 's2',
          token: 't2',
          aes_key: WECOM.aesKey,
        },
      ]),
    );
    expect(on.map((a) => a.account)).toEqual(['default', 'plant2']);
    expect(on[0]!.capabilities).toMatchObject({ display: 'text', max_length: 2048, length_unit: 'bytes' });
  });

  it('a missing or malformed setting is a ConfigError naming the variable', async () => {
    const { WECOM_TOKEN: _t, ...noToken } = env;
    await expect(wecomChannel.create(ctx(noToken))).rejects.toMatchObject({ key: 'WECOM_TOKEN' });
    await expect(wecomChannel.create(ctx({ ...env, WECOM_AES_KEY: 'short' }))).rejects.toBeInstanceOf(ConfigError);
    await expect(wecomChannel.create(ctx({ ...env, WECOM_AES_KEY: 'short' }))).rejects.toMatchObject({ key: 'WECOM_AES_KEY' });
  });
});
