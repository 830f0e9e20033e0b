/**
 * Telegram adapter parts the contract kit does not cover: accounts and modes from `.env` /
 * config (docs/configuration.md), setWebhook registration, long polling, the 20 MB download limit,
 * typing, and the multipart file-name quoting grammY needs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { TelegramAdapter, telegramChannel, telegramSettings } from '../../../adapters/telegram/index.ts';
import { addressing } from '../../../adapters/telegram/inbound.ts';
import { htmlToText, multipartFilename } from '../../../adapters/telegram/outbound.ts';
import type { AdapterHost, InboundMessage } from '../../../src/channel/types.ts';
import { ConfigError } from '../../../src/config/errors.ts';
import { createLogger } from '../../../src/log/logger.ts';
import type { Db, Queryable } from '../../../src/store/db.ts';
import { captureLog, until } from '../../inbox/helpers.ts';
import { BOT, SECRET, TOKEN, installTelegram } from './fake-telegram.ts';

const silent = createLogger({ level: 'silent' });
const noConfig = { accounts: [] } as never;

function account(values: Record<string, string>, source: 'env' | 'config' = 'env') {
  return { channel: 'telegram', id: 'default', role: 'default', values, source } as const;
}

describe('telegram settings', () => {
  it('webhook mode when a secret is set, polling otherwise; api_root without a trailing slash', () => {
    expect(telegramSettings(account({ bot_token: 't', webhook_secret: 's_1' })).mode).toBe('webhook');
    expect(telegramSettings(account({ bot_token: 't' })).mode).toBe('polling');
    expect(telegramSettings(account({ bot_token: 't', api_root: 'http://127.0.0.1:9/' })).apiRoot).toBe('http://127.0.0.1:9');
    expect(telegramSettings(account({ bot_token: 't' })).apiRoot).toBe('https://api.telegram.org');
  });

  it('config alias token → bot_token', () => {
    expect(telegramSettings(account({ token: 'abc' }, 'config')).token).toBe('abc');
  });

  it('refuses webhook mode without a secret, a malformed secret, a missing token — naming the key', () => {
    const err = (v: Record<string, string>, src: 'env' | 'config' = 'env') => {
      try {
        telegramSettings(account(v, src));
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('no error');
    };
    expect(err({ bot_token: 't', mode: 'webhook' }).key).toBe('TELEGRAM_WEBHOOK_SECRET');
    expect(err({ bot_token: 't', webhook_secret: 'has space' }).key).toBe('TELEGRAM_WEBHOOK_SECRET');
    expect(err({ webhook_secret: 's' }, 'config').key).toBe('accounts[default].bot_token');
    expect(err({ bot_token: 't', mode: 'ws' })).toBeInstanceOf(ConfigError);
  });

  it('the factory is off without TELEGRAM_BOT_TOKEN and reports each account it turns on', async () => {
    const db = {} as Db;
    const ctx = { db, log: silent, env: {}, config: noConfig, defaultRoleId: 'default', dataDir: '/tmp', secretKey: Buffer.alloc(32) };
    expect(await telegramChannel.create(ctx)).toEqual([]);
    const cap = captureLog();
    const env = { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET };
    const config = { accounts: [{ channel: 'telegram', id: 'ops_bot', role: 'ops', token: 'x:y' }] } as never;
    const adapters = await telegramChannel.create({ ...ctx, log: cap.log, env, config });
    expect(adapters.map((a) => a.account)).toEqual(['default', 'ops_bot']);
    const on = cap.lines().filter((l) => l.msg === 'telegram account on');
    expect(on.map((l) => [l.account, l.mode])).toEqual([
      ['default', 'webhook'],
      ['ops_bot', 'polling'],
    ]);
    expect(JSON.stringify(cap.lines())).not.toContain(SECRET);
  });
});

describe('telegram adapter against the fake Bot API', () => {
  let fake: FakePlatform;
  // No button payloads are stored here (the contract suite covers them on real PostgreSQL).
  const db: Queryable = {
    query: () => Promise.reject(new Error('no database in these tests')),
  };
  const files = new Map<string, { file_path: string; data: Buffer }>();
  beforeAll(async () => {
    fake = await startFakePlatform();
    installTelegram(fake, files);
  });
  afterAll(async () => {
    await fake.close();
  });
  const make = (mode: 'webhook' | 'polling', publicUrl?: string) =>
    new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode, apiRoot: fake.baseUrl, maxRetryDelayS: 0 },
      { db, log: silent, publicUrl },
    );

  it('webhook mode registers <public url>/webhooks/telegram/<account> with the secret token on start', async () => {
    fake.reset();
    await make('webhook', 'https://gw.example.com/').start({ receive: async () => 'accepted', notice: async () => undefined });
    const [call] = fake.calls(/\/setWebhook$/);
    expect(call?.json).toMatchObject({ url: 'https://gw.example.com/webhooks/telegram/default', secret_token: SECRET });
    expect((call!.json as { allowed_updates: string[] }).allowed_updates).toContain('callback_query');
  });

  it('polling: deleteWebhook, then getUpdates with an advancing offset; updates reach the host; stop ends the loop', async () => {
    fake.reset();
    const batches = [
      [
        {
          update_id: 7,
          message: {
            message_id: 1,
            from: { id: 10000001, is_bot: false, first_name: 'Ann' },
            chat: { id: 10000001, type: 'private' },
            date: 1,
            text: '你好',
          },
        },
      ],
      [
        {
          update_id: 8,
          message: {
            message_id: 2,
            from: { id: 10000001, is_bot: false, first_name: 'Ann' },
            chat: { id: 10000001, type: 'private' },
            date: 2,
            text: 'again',
          },
        },
      ],
    ];
    fake.route('POST', '/bot:token/getUpdates', () => ({ json: { ok: true, result: batches.shift() ?? [] } }));
    const got: InboundMessage[] = [];
    const host: AdapterHost = { receive: async (m) => (got.push(m), 'accepted'), notice: async () => undefined };
    const a = make('polling');
    await a.start(host);
    await until(() => got.length === 2, 'two polled updates');
    await until(
      () => fake.calls(/\/getUpdates$/).some((r) => (r.json as { offset?: number }).offset === 9),
      'the poll after the second update',
    );
    await a.stop();
    expect(got.map((m) => [m.dedupe_key, m.raw_input])).toEqual([
      ['telegram:update:7', '你好'],
      ['telegram:update:8', 'again'],
    ]);
    const names = fake.requests.map((r) => r.path.split('/').pop());
    expect(names.indexOf('deleteWebhook')).toBeLessThan(names.indexOf('getUpdates'));
    const offsets = fake.calls(/\/getUpdates$/).map((r) => (r.json as { offset?: number }).offset);
    expect(offsets.slice(0, 3)).toEqual([undefined, 8, 9]);
    expect(await a.handleWebhook({ method: 'POST', path: '', headers: {}, query: {}, body: Buffer.from('{}') }, host)).toMatchObject({
      status: 404,
    });
  });

  it('polling: an update the host cannot store is fetched again (offset not advanced)', async () => {
    fake.reset();
    const update = {
      update_id: 20,
      message: { message_id: 3, from: { id: 1, is_bot: false, first_name: 'A' }, chat: { id: 1, type: 'private' }, date: 3, text: 'x' },
    };
    fake.route('POST', '/bot:token/getUpdates', () => ({ json: { ok: true, result: [update] } }));
    const keys: string[] = [];
    let advancedEarly = -1;
    const host: AdapterHost = {
      receive: async (m) => {
        keys.push(m.dedupe_key);
        if (keys.length === 1) throw new Error('database down');
        // the offset must not have moved past update 20 before it was stored
        if (advancedEarly < 0)
          advancedEarly = fake.calls(/\/getUpdates$/).filter((r) => (r.json as { offset?: number }).offset === 21).length;
        return 'accepted';
      },
      notice: async () => undefined,
    };
    const a = make('polling');
    await a.start(host);
    await until(() => keys.length >= 2, 'the update offered again', 10_000);
    await a.stop();
    expect(keys.slice(0, 2)).toEqual(['telegram:update:20', 'telegram:update:20']);
    expect(advancedEarly).toBe(0);
  });

  it('fetchAttachment refuses files over 20 MB with a clear zh-CN message, without downloading', async () => {
    fake.reset();
    const a = make('webhook');
    const att = { type: 'file' as const, filename: '大文件.zip', size: 21 * 1024 * 1024, platform_ref: { file_id: 'big' } };
    await expect(a.fetchAttachment(att)).rejects.toThrow(/文件「大文件.zip」超过 20 MB/);
    expect(fake.requests).toHaveLength(0);
    fake.script('POST', '/bot:token/getFile', {
      status: 400,
      json: { ok: false, error_code: 400, description: 'Bad Request: file is too big' },
    });
    await expect(a.fetchAttachment({ ...att, size: null })).rejects.toThrow(/20 MB/);
    // typed, so the turn tells the user the limit (AttachmentTooLargeError)
    await expect(a.fetchAttachment(att)).rejects.toMatchObject({ name: 'AttachmentTooLargeError', limitBytes: 20 * 1024 * 1024 });
  });

  it('typing sends sendChatAction typing (with the forum thread) and never throws', async () => {
    fake.reset();
    const a = make('webhook');
    await a.typing({ channel: 'telegram', account: 'default', chat_id: '-100', thread_id: '77' });
    expect(fake.calls(/\/sendChatAction$/)[0]?.json).toMatchObject({ chat_id: '-100', action: 'typing', message_thread_id: 77 });
    fake.script('*', /sendChatAction$/, { destroy: true });
    await expect(a.typing({ channel: 'telegram', account: 'default', chat_id: '1' })).resolves.toBeUndefined();
  });
});

describe('telegram helpers', () => {
  it('addressing: /cmd@ourbot counts and loses its suffix; /cmd@otherbot does not count', () => {
    const ours = addressing('/status@test_gateway_bot pump-3', [{ type: 'bot_command', offset: 0, length: 24 }], BOT);
    expect(ours).toMatchObject({ command: true, mentioned: true, without: '/status pump-3' });
    const other = addressing('/status@other_bot pump-3', [{ type: 'bot_command', offset: 0, length: 17 }], BOT);
    expect(other).toMatchObject({ command: false, otherBotCommand: true });
    const mid = addressing('hi @test_gateway_bot there', [{ type: 'mention', offset: 3, length: 17 }], BOT);
    expect(mid.without).toBe('hi there');
  });

  it('multipart file names are quoted with " and \\ escaped, Unicode kept', () => {
    expect(multipartFilename('报修单 (最终版).pdf')).toBe('"报修单 (最终版).pdf"');
    expect(multipartFilename('a"b\\c.txt')).toBe('"a\\"b\\\\c.txt"');
  });

  it('htmlToText keeps link targets and decodes entities (the plain-text retry)', () => {
    expect(htmlToText('<b>x</b> &lt;&amp;&gt; <a href="https://e.example/?a=1&amp;b=2">doc</a> &#128512;')).toBe(
      'x <&> doc (https://e.example/?a=1&b=2) 😀',
    );
  });
});
