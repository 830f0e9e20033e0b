/**
 * Test parts of the outbox tests: a fake clock, a loopback HTTP server speaking a
 * Telegram-like Bot API (`POST /bot<token>/sendMessage`), and a tiny ChannelAdapter that sends
 * to it over fetch and classifies replies like a real adapter (429 → retry_after, 5xx →
 * retryable, other 4xx → permanent).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelAdapter, OutboundMessage, OutboundTarget, SendResult } from '../../src/channel/types.ts';
import type { OutboxClock } from '../../src/outbox/index.ts';
import type { Db } from '../../src/store/db.ts';
import { until } from '../inbox/helpers.ts';

/**
 * A clock that moves only when told (`advance`) or when a sleeper's time comes: pending sleeps
 * fire one at a time in time order, one per macrotask, so the code after each `await sleep()`
 * runs (and reads `now()`) before the clock moves on to the next sleeper.
 */
export class FakeClock implements OutboxClock {
  private timers: { at: number; seq: number; resolve: () => void }[] = [];
  private seq = 0;
  private scheduled = false;
  constructor(public t = Date.parse('2030-01-01T00:00:00Z')) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, resolve });
      this.schedule();
    });
  }
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift();
      if (!next) return;
      this.t = Math.max(this.t, next.at);
      next.resolve();
      if (this.timers.length > 0) this.schedule();
    });
  }
}

/** One scripted reply. */
export interface FakeReply {
  status: number;
  body: unknown;
}

/** One request the fake platform got. */
export interface FakeRequest {
  chat_id: string;
  text: string;
  status: number;
}

/** The Telegram 429 of the issue text. */
export const TOO_MANY: FakeReply = {
  status: 429,
  body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 5', parameters: { retry_after: 5 } },
};
export const INTERNAL: FakeReply = { status: 500, body: { ok: false, error_code: 500, description: 'Internal Server Error' } };
export const CHAT_NOT_FOUND: FakeReply = { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } };

/** A Telegram-like platform on 127.0.0.1. Replies for a text are scripted; anything else is 200 OK. */
export class FakeTelegram {
  readonly requests: FakeRequest[] = [];
  private readonly scripts = new Map<string, FakeReply[]>();
  private server?: Server;
  private nextId = 100;
  url = '';

  /** Answer the next sends of `text` with `replies`, in order. */
  script(text: string, replies: FakeReply[]): void {
    this.scripts.set(text, [...replies]);
  }

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { chat_id: string; text: string };
        let reply: FakeReply;
        if (!/^\/bot[^/]+\/sendMessage$/.test(req.url ?? ''))
          reply = { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
        else
          reply = this.scripts.get(body.text)?.shift() ?? {
            status: 200,
            body: { ok: true, result: { message_id: this.nextId++, chat: { id: body.chat_id } } },
          };
        this.requests.push({ chat_id: String(body.chat_id), text: body.text, status: reply.status });
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.server?.close(() => r()) ?? r());
  }
}

/** One send as the adapter saw it, with the outbox clock's time. */
export interface AdapterSend {
  text: string;
  chat_id: string;
  at: number;
}

/** A minimal Telegram-like adapter over fetch (never throws for platform failures). */
export function telegramLikeAdapter(
  base: () => string,
  clock: { now(): number },
  opts: { account?: string; sends?: AdapterSend[]; beforeSend?: (m: OutboundMessage) => Promise<void> } = {},
): ChannelAdapter & { sends: AdapterSend[] } {
  const sends = opts.sends ?? [];
  return {
    channel: 'telegram',
    account: opts.account ?? 'default',
    capabilities: { display: 'text', buttons: true, max_length: 4096, length_unit: 'utf16', typing: true, media: false },
    sends,
    async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
      sends.push({ text: message.text, chat_id: target.chat_id, at: clock.now() });
      await opts.beforeSend?.(message);
      let res: Response;
      try {
        res = await fetch(`${base()}/botTEST:token/sendMessage`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ chat_id: target.chat_id, text: message.text, reply_to_message_id: message.reply_to ?? undefined }),
        });
      } catch (err) {
        return { ok: false, retryable: true, error: `network: ${(err as Error).message}`, code: 'network' };
      }
      const json = (await res.json()) as {
        ok: boolean;
        result?: { message_id: number };
        error_code?: number;
        description?: string;
        parameters?: { retry_after?: number };
      };
      if (json.ok) return { ok: true, message_ids: [String(json.result!.message_id)] };
      const retryAfter = json.parameters?.retry_after;
      return {
        ok: false,
        retryable: res.status === 429 || res.status >= 500,
        retry_after_ms: typeof retryAfter === 'number' ? retryAfter * 1000 : null,
        error: json.description ?? `HTTP ${res.status}`,
        code: json.error_code ?? res.status,
      };
    },
  };
}

/**
 * Server engine: wait until a started outbox's LISTEN is in place (so a delivery can come from
 * the notification sent on commit), then a little more for the wake that follows it.
 */
export async function outboxListening(db: Db): Promise<void> {
  await until(async () => {
    const { rows } = await db.query(
      `SELECT 1 FROM pg_stat_activity WHERE application_name = 'skillgate-test-listen' AND query LIKE 'LISTEN "skillgate_outbox"%'`,
    );
    return rows.length > 0;
  }, 'LISTEN skillgate_outbox');
  await new Promise((r) => setTimeout(r, 50));
}
