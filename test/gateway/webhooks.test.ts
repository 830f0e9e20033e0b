/**
 * The gateway's channel wiring end to end (docs/adapter-authoring.md#verification;
 * docs/configuration.md): a channel is on exactly when its `.env` block is set, its webhook is
 * served at `/webhooks/<channel>`, a request without the right secret is refused before anything is
 * parsed, a verified update runs a turn and the reply reaches the platform through the outbox —
 * once, also when the platform redelivers. The platform is a loopback fake of the Telegram Bot API
 * (real HTTP, real grammY client through `TELEGRAM_API_ROOT`).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/log/logger.ts';

const TOKEN = '123456:TEST-token';
const SECRET = 'gw_secret-1';

interface Call {
  method: string;
  body: Record<string, unknown>;
}

/** A fake Bot API: answers every method, records the calls. */
async function fakeBotApi(): Promise<{ server: Server; url: string; calls: Call[] }> {
  const calls: Call[] = [];
  const read = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve) => {
      let s = '';
      req.on('data', (c: Buffer) => (s += c.toString('utf8')));
      req.on('end', () => resolve(s));
    });
  const server = createServer(async (req, res) => {
    const m = /^\/bot[^/]+\/(\w+)$/.exec(req.url ?? '');
    const text = await read(req);
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { raw: text };
    }
    const method = m?.[1] ?? 'unknown';
    calls.push({ method, body });
    let result: unknown = true;
    if (method === 'getMe') {
      result = {
        id: 999,
        is_bot: true,
        first_name: 'Gate',
        username: 'gate_test_bot',
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      };
    } else if (method.startsWith('send')) {
      result = { message_id: 100 + calls.length, date: 0, chat: { id: Number(body.chat_id) || 1, type: 'private' } };
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, result }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

function update(id: number, text: string): Record<string, unknown> {
  return {
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: 4242, type: 'private', first_name: '测试' },
      from: { id: 4242, is_bot: false, first_name: '测试', language_code: 'zh-hans' },
      text,
      ...(text.startsWith('/') ? { entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }] } : {}),
    },
  };
}

async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('gateway: a platform channel configured from .env', () => {
  let gateway: Gateway;
  let fake: Awaited<ReturnType<typeof fakeBotApi>>;
  const saved = { ...process.env };
  const dir = mkdtempSync(join(tmpdir(), 'sg-gw-hooks-'));

  beforeAll(async () => {
    fake = await fakeBotApi();
    // The channel factories read the process environment (the `.env` block).
    process.env.TELEGRAM_BOT_TOKEN = TOKEN;
    process.env.TELEGRAM_WEBHOOK_SECRET = SECRET;
    process.env.TELEGRAM_API_ROOT = fake.url;
    delete process.env.SKILLGATE_PUBLIC_URL;
    const settings = loadSettings({ SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0' }, dir);
    gateway = await startGateway(settings, createLogger({ level: 'silent' }), {});
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await new Promise<void>((r) => fake?.server.close(() => r()));
    process.env = saved;
  });

  const post = (body: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${gateway.url}/webhooks/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('a missing or wrong secret token is refused with 401 and starts no turn', async () => {
    expect((await post(update(1, '/help'))).status).toBe(401);
    expect((await post(update(2, '/help'), { 'x-telegram-bot-api-secret-token': 'wrong' })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(fake.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(0);
  });

  it('an unparseable body with the right secret is a 4xx, and the gateway keeps serving', async () => {
    const res = await post('{not json', { 'x-telegram-bot-api-secret-token': SECRET });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
  });

  it('a verified /help update is answered once through the Bot API, also when redelivered', async () => {
    const u = update(500000777, '/help');
    const sends = (): Call[] => fake.calls.filter((c) => c.method === 'sendMessage');
    expect((await post(u, { 'x-telegram-bot-api-secret-token': SECRET })).status).toBe(200);
    await until(() => sends().length > 0);
    await new Promise((r) => setTimeout(r, 1500)); // every chunk of the one reply has gone out
    const once = sends().length;
    const text = sends()
      .map((s) => String(s.body.text))
      .join('\n');
    expect(text).toContain('datatable'); // the help lists the role's skills
    for (const s of sends()) expect(String(s.body.chat_id)).toBe('4242');
    const again = await Promise.all([1, 2, 3].map(() => post(u, { 'x-telegram-bot-api-secret-token': SECRET })));
    for (const r of again) expect(r.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sends()).toHaveLength(once);
  });

  it('an unknown channel or account has no webhook (404)', async () => {
    expect((await fetch(`${gateway.url}/webhooks/telegram/other`, { method: 'POST', body: '{}' })).status).toBe(404);
    expect((await fetch(`${gateway.url}/webhooks/wecom`, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});
