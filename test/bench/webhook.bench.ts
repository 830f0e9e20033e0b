/**
 * `npm run bench` — webhook ingest: a Telegram webhook endpoint through the real
 * gateway route (secret header check, parse, dedup, inbox insert, 200) under load — N
 * concurrent senders for D seconds, unique update_ids plus a share of redeliveries — against a
 * bare express handler doing the same secret check and single INSERT … ON CONFLICT DO NOTHING
 * into the same database. Requests/s, p50/p99, ratio.
 *
 * Turn processing runs meanwhile (each update is `/bench_noop`; replies go to a loopback fake
 * Bot API), as in production: the inbox worker shares the database with the ingest path.
 * Env: BENCH_WEBHOOK_SENDERS (50), BENCH_WEBHOOK_SECONDS (10), BENCH_WEBHOOK_REDELIVER (0.1,
 * share of requests that repeat an earlier update), BENCH_DATABASE_URL (as the gateway bench).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool as HttpPool } from 'undici';
import { loadSettings } from '../../src/config/settings.ts';
import { startGateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/log/logger.ts';
import { safeEqual } from '../../src/channel/safe-equal.ts';
import type { Db } from '../../src/store/db.ts';
import { installQueryCounter, printQueryBreakdown } from './query-counter.ts';
import { pct, type LoadResult } from './load.ts';

const SKILLS = fileURLToPath(new URL('./skills/', import.meta.url));
const TOKEN = '123456:BENCH-token';
const SECRET = 'bench_secret-1';

/** A fake Bot API answering every method (getMe, sendMessage, sendChatAction…). */
async function fakeBotApi(): Promise<{ server: Server; url: string; sent: () => number }> {
  let sent = 0;
  const read = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve) => {
      let s = '';
      req.on('data', (c: Buffer) => (s += c.toString('utf8')));
      req.on('end', () => resolve(s));
    });
  const server = createServer(async (req, res) => {
    const method = /^\/bot[^/]+\/(\w+)$/.exec(req.url ?? '')?.[1] ?? 'unknown';
    const text = await read(req);
    let result: unknown = true;
    if (method === 'getMe') {
      result = {
        id: 999,
        is_bot: true,
        first_name: 'Bench',
        username: 'bench_bot',
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      };
    } else if (method.startsWith('send')) {
      sent++;
      const chatId = Number((JSON.parse(text || '{}') as { chat_id?: unknown }).chat_id) || 1;
      result = { message_id: sent, date: 0, chat: { id: chatId, type: 'private' } };
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, result }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent };
}

function update(id: number, chat: number): string {
  return JSON.stringify({
    update_id: id,
    message: {
      message_id: id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: 'private', first_name: '压测' },
      from: { id: chat, is_bot: false, first_name: '压测', language_code: 'zh-hans' },
      text: '/bench_noop',
      entities: [{ type: 'bot_command', offset: 0, length: '/bench_noop'.length }],
    },
  });
}

/**
 * `senders` loops POSTing to `origin` + `path` for `seconds`; each request is a new update
 * (ids from `firstId` up) or, with probability `redeliver`, one of its sender's earlier ones.
 */
async function drive(
  name: string,
  origin: string,
  path: string,
  senders: number,
  seconds: number,
  redeliver: number,
  firstId: number,
): Promise<LoadResult & { redeliveries: number }> {
  const http = new HttpPool(origin, { connections: senders, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  let redeliveries = 0;
  let nextId = firstId;
  const started = Date.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: senders }, async (_, i) => {
      const chat = 700_000 + i;
      const mine: number[] = [];
      while (Date.now() < deadline) {
        const again = mine.length > 0 && Math.random() < redeliver;
        const id = again ? mine[Math.floor(Math.random() * mine.length)]! : nextId++;
        if (!again) mine.push(id);
        else redeliveries++;
        const t0 = performance.now();
        try {
          const res = await http.request({
            method: 'POST',
            path,
            headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
            body: update(id, chat),
          });
          await res.body.dump();
          if (res.statusCode === 200) latencies.push(performance.now() - t0);
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  await http.close();
  const round = (x: number): number => Math.round(x * 10) / 10;
  return {
    name,
    messages: latencies.length,
    perSecond: latencies.length / elapsed,
    p50Ms: round(pct(latencies, 50)),
    p99Ms: round(pct(latencies, 99)),
    errors,
    redeliveries,
  };
}

/** The bare baseline: express, the same secret check, one INSERT … ON CONFLICT DO NOTHING, 200. */
async function baselineServer(db: Db): Promise<{ origin: string; close(): Promise<void> }> {
  await db.query(
    'CREATE TABLE IF NOT EXISTS public.bench_webhook (id bigserial PRIMARY KEY, update_id bigint UNIQUE, body jsonb, at timestamptz DEFAULT now())',
  );
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.post('/hook', async (req, res) => {
    if (!safeEqual(String(req.get('x-telegram-bot-api-secret-token') ?? ''), SECRET)) return void res.status(401).end();
    const body = req.body as { update_id?: number };
    await db.query('INSERT INTO public.bench_webhook (update_id, body) VALUES ($1, $2::jsonb) ON CONFLICT (update_id) DO NOTHING', [
      body.update_id,
      JSON.stringify(body),
    ]);
    res.status(200).end();
  });
  const server = await new Promise<Server>((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Run the webhook ingest bench; print and return its figures. */
export async function runWebhookBench(
  databaseUrl: string = process.env.BENCH_DATABASE_URL ?? '',
): Promise<{ baseline: LoadResult; subject: LoadResult; senders: number; seconds: number; engine: string; statementsPerMessage: number }> {
  const senders = Number(process.env.BENCH_WEBHOOK_SENDERS ?? 50);
  const seconds = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
  const redeliver = Number(process.env.BENCH_WEBHOOK_REDELIVER ?? 0.1);
  const fake = await fakeBotApi();
  const saved = { ...process.env };
  process.env.TELEGRAM_BOT_TOKEN = TOKEN;
  process.env.TELEGRAM_WEBHOOK_SECRET = SECRET;
  process.env.TELEGRAM_API_ROOT = fake.url;
  const dir = mkdtempSync(join(tmpdir(), 'sg-bench-hook-'));
  const env: Record<string, string> = { SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0', SKILLGATE_SKILL_DIRS: SKILLS };
  if (databaseUrl) {
    env.DATABASE_URL = databaseUrl;
    env.SKILLGATE_SECRET_KEY = randomBytes(32).toString('base64');
  }
  const gateway = await startGateway(loadSettings(env, dir), createLogger({ level: 'warn' }), { SKILLGATE_FLOOD_PER_MINUTE: '0' }); // the bench's senders are far over any person's rate
  try {
    // update ids unique per run, so a rerun on one server database is not all duplicates
    const firstId = Date.now() * 10;
    const base = await baselineServer(gateway.db);
    const counter = installQueryCounter();
    const b = await drive('baseline: express + secret check + INSERT', base.origin, '/hook', senders, seconds, redeliver, firstId);
    await base.close();
    counter.reset();
    const s = await drive(
      'gateway: /webhooks/telegram → inbox (turns run)',
      gateway.url,
      '/webhooks/telegram',
      senders,
      seconds,
      redeliver,
      firstId + 1e9,
    );
    const breakdown = counter.breakdown();
    const timings = new Map(counter.timings());
    counter.uninstall();
    const head = ['case', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'redelivered', 'errors'];
    const line = (r: typeof b): string[] => [
      r.name,
      String(r.messages),
      r.perSecond.toFixed(1),
      String(r.p50Ms),
      String(r.p99Ms),
      String(r.redeliveries),
      String(r.errors),
    ];
    const table = [head, line(b), line(s)];
    const widths = head.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    console.log(
      `\nwebhook ingest: ${senders} senders × ${seconds} s each, ${Math.round(redeliver * 100)}% redeliveries, database ${gateway.db.engine}; turn processing runs`,
    );
    for (const row of table) console.log(row.map((c, i) => c.padEnd(widths[i]!)).join('  '));
    console.log(
      `throughput ratio gateway/baseline: ${(s.perSecond / b.perSecond).toFixed(3)} (target ≥ 0.5); replies sent to the fake meanwhile: ${fake.sent()}`,
    );
    const total = breakdown.reduce((n, [, c]) => n + c, 0);
    printQueryBreakdown(
      'gateway (ingest + the turns that ran)',
      { ...counter, breakdown: () => breakdown, timings: () => timings, total: () => total },
      s.messages,
    );
    return { baseline: b, subject: s, senders, seconds, engine: gateway.db.engine, statementsPerMessage: total / Math.max(1, s.messages) };
  } finally {
    await gateway.close();
    await new Promise<void>((r) => fake.server.close(() => r()));
    process.env = saved;
  }
}
