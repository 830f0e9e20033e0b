/**
 * A loopback Bot API for long polling (https://core.telegram.org/bots/api#getupdates) shared by
 * several gateway processes: `getUpdates` holds the request until an update is queued or its
 * `timeout` passes, and, as Telegram does, answers **409 Conflict** to a second consumer while
 * one is waiting — counted in `conflicts`. An update is confirmed (dropped from the queue) once a
 * call asks for a greater `offset`. `sendMessage` and the other methods answer like the Bot API
 * and are recorded.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const POLL_TOKEN = '10000077:POLL_token_do_not_use';
export const POLL_BOT = { id: 10000077, username: 'poll_gateway_bot' };

/** One sendMessage the fake received. */
export interface SentMessage {
  chat_id: string;
  text: string;
  /** The message id it answers (reply_parameters / reply_to_message_id), or null. */
  reply_to: number | null;
}

/** The running fake. */
export interface FakePolling {
  apiRoot: string;
  /** Queue a private text message from user `chat`; @returns its message id. */
  push(chat: number, text: string): number;
  /** getUpdates calls answered 409 because another consumer was waiting. */
  conflicts(): number;
  /** getUpdates calls received (all, in order) with the time they arrived (ms since the epoch). */
  polls(): number[];
  sent(): SentMessage[];
  close(): Promise<void>;
}

interface Waiter {
  res: ServerResponse;
  offset: number;
  timer: NodeJS.Timeout;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (!raw) return {};
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return Object.fromEntries(new URLSearchParams(raw));
  }
}

/** Start the fake on 127.0.0.1. */
export async function startFakePolling(): Promise<FakePolling> {
  let nextUpdate = 1;
  let nextMessage = 100;
  let nextSent = 90_000;
  const queue: Array<{ update_id: number; message: Record<string, unknown> }> = [];
  const sent: SentMessage[] = [];
  const polls: number[] = [];
  let conflicts = 0;
  let waiter: Waiter | undefined;

  const pending = (offset: number) => queue.filter((u) => u.update_id >= offset);
  const answer = (w: Waiter) => {
    clearTimeout(w.timer);
    if (waiter === w) waiter = undefined;
    json(w.res, 200, { ok: true, result: pending(w.offset) });
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url?.split('?')[0] ?? '');
      const body = await readBody(req);
      if (!m) return json(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      if (m[1] !== POLL_TOKEN) return json(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const ok = (result: unknown) => json(res, 200, { ok: true, result });
      switch (m[2]) {
        case 'getMe':
          return ok({ id: POLL_BOT.id, is_bot: true, first_name: 'Poll Bot', username: POLL_BOT.username });
        case 'getUpdates': {
          polls.push(Date.now());
          if (waiter && !waiter.res.destroyed) {
            conflicts++;
            return json(res, 409, {
              ok: false,
              error_code: 409,
              description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
            });
          }
          const offset = Number(body.offset ?? 0);
          // Confirm what the consumer has seen.
          for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.update_id < offset) queue.splice(i, 1);
          const w: Waiter = { res, offset, timer: setTimeout(() => answer(w), Math.min(Number(body.timeout ?? 0), 25) * 1000) };
          if (pending(offset).length > 0) return answer(w);
          waiter = w;
          res.on('close', () => {
            clearTimeout(w.timer);
            if (waiter === w) waiter = undefined;
          });
          return;
        }
        case 'sendMessage': {
          const rp = body.reply_parameters as { message_id?: number } | string | undefined;
          const parsed = typeof rp === 'string' ? (JSON.parse(rp) as { message_id?: number }) : rp;
          const replyTo = parsed?.message_id ?? (body.reply_to_message_id !== undefined ? Number(body.reply_to_message_id) : null);
          sent.push({ chat_id: String(body.chat_id), text: String(body.text ?? ''), reply_to: replyTo ?? null });
          return ok({
            message_id: nextSent++,
            date: Math.floor(Date.now() / 1000),
            chat: { id: Number(body.chat_id), type: 'private' },
            text: String(body.text ?? ''),
          });
        }
        default:
          return ok(true);
      }
    })().catch((err: unknown) => json(res, 500, { ok: false, error_code: 500, description: String(err) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    apiRoot: `http://127.0.0.1:${port}`,
    push(chat, text) {
      const message_id = nextMessage++;
      queue.push({
        update_id: nextUpdate++,
        message: {
          message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chat, type: 'private', first_name: `u${chat}` },
          from: { id: chat, is_bot: false, first_name: `u${chat}` },
          text,
        },
      });
      if (waiter) answer(waiter);
      return message_id;
    },
    conflicts: () => conflicts,
    polls: () => [...polls],
    sent: () => [...sent],
    async close() {
      if (waiter) answer(waiter);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
