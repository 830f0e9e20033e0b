/**
 * `WS /ws` (docs/web-protocol.md): one connection = one signed-in contact's conversation.
 * The first frame must be `hello` (bearer token, demo identity when demo is on, or the
 * sign-in cookie sent at upgrade); then `user.message`, `confirm.response`, `stop`, `ping`.
 * Each client frame counts against 20 frames / 10 s per connection.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket, type RawData } from 'ws';
import {
  acceptedIdentity,
  bearerOf,
  type InboundMessage,
  isDemoContact,
  readCookie,
  sameOrigin,
  storableText,
  verifyWebToken,
} from '../../src/channel/index.ts';
import { COOKIE_NAME } from './auth.ts';
import { displayNameOf, type WebContext } from './context.ts';
import { ensureConversation, lastSeq } from './frames.ts';
import type { HubConn } from './hub.ts';
import { confirmResponseToInbound, stopToInbound, userMessageToInbound, type WebSender } from './inbound.ts';
import { conversationIdFor } from './conversation.ts';
import { findOwnUpload, type StoredUpload } from './uploads.ts';
import {
  CLOSE,
  HEARTBEAT_S,
  HISTORY_FRAMES,
  LIMITS,
  MAX_CLIENT_FRAME_BYTES,
  PROTOCOL_VERSION,
  RATE_WINDOW_MS,
  parseClientFrame,
  transientFrameId,
  type ClientFrame,
  type ServerFrame,
  type TransientFrame,
  type WebErrorCode,
} from './wire.ts';

/** How long a socket may stay without `hello`, ms. */
const HELLO_TIMEOUT_MS = 10_000;

/** Sliding-window counter of one connection's frames. */
export class FrameRateLimit {
  readonly #times: number[] = [];
  #refusedInWindow = 0;
  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Count a frame at `now`; `{ok:false, retryAfterMs, abusive}` when over the limit. */
  hit(now: number): { ok: true } | { ok: false; retryAfterMs: number; abusive: boolean } {
    while (this.#times.length > 0 && this.#times[0]! <= now - this.windowMs) this.#times.shift();
    if (this.#times.length === 0) this.#refusedInWindow = 0;
    if (this.#times.length < this.max) {
      this.#times.push(now);
      return { ok: true };
    }
    this.#refusedInWindow++;
    return { ok: false, retryAfterMs: Math.max(1, this.#times[0]! + this.windowMs - now), abusive: this.#refusedInWindow > this.max };
  }
}

function transient<T extends TransientFrame['type']>(
  type: T,
  body: Omit<Extract<TransientFrame, { type: T }>, 'v' | 'type' | 'id' | 'ts'>,
  now: number,
): TransientFrame {
  return {
    v: PROTOCOL_VERSION,
    type,
    id: transientFrameId(),
    ts: new Date(now).toISOString(),
    ...body,
  } as TransientFrame;
}

/**
 * Client frames allowed per socket per 10 s: `SKILLGATE_WEB_MAX_FRAMES_PER_10S` when set to a
 * positive integer (load tests; the gateway bench lifts it so it measures the pipeline, not this
 * anti-abuse limit), else {@link LIMITS}.max_frames_per_10s (20, docs/web-protocol.md; `hello.ok`
 * states that documented value either way).
 */
export function frameLimit(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.SKILLGATE_WEB_MAX_FRAMES_PER_10S);
  return Number.isInteger(n) && n > 0 ? n : LIMITS.max_frames_per_10s;
}

/** The ws side of a web channel. */
export class WebSocketEndpoint {
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  readonly #servers: { server: Server; onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void }[] = [];
  #heartbeat: NodeJS.Timeout | undefined;
  readonly #lastSeen = new Map<WebSocket, number>();

  constructor(private readonly ctx: WebContext) {}

  /** Handle upgrades of `server` on path `/ws` (other paths are left to other handlers). */
  attach(server: Server): void {
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/ws') return;
      if (!sameOrigin(req)) {
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, req));
    };
    server.on('upgrade', onUpgrade);
    this.#servers.push({ server, onUpgrade });
    this.#heartbeat ??= setInterval(() => this.#sweep(), HEARTBEAT_S * 1000);
    this.#heartbeat.unref();
  }

  /** Close every socket and stop listening for upgrades. */
  async close(): Promise<void> {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    for (const { server, onUpgrade } of this.#servers) server.off('upgrade', onUpgrade);
    this.#servers.length = 0;
    for (const ws of this.#wss.clients) ws.close(CLOSE.going_away, 'server closing');
    await new Promise<void>((r) => this.#wss.close(() => r()));
  }

  #sweep(): void {
    const deadline = Date.now() - 3 * HEARTBEAT_S * 1000;
    for (const [ws, seen] of this.#lastSeen) if (seen < deadline) ws.close(CLOSE.timeout, 'heartbeat missed');
  }

  #onConnection(ws: WebSocket, req: IncomingMessage): void {
    const ctx = this.ctx;
    const cookieToken = bearerOf(req) ?? readCookie(req.headers.cookie, COOKIE_NAME);
    const limit = new FrameRateLimit(frameLimit(), RATE_WINDOW_MS);
    let sender: WebSender | null = null;
    let conn: HubConn | null = null;
    let helloStarted = false;
    // Client frames are handled one at a time, in arrival order.
    let queue: Promise<void> = Promise.resolve();
    this.#lastSeen.set(ws, Date.now());

    // Frames written in one event-loop turn (a reply and its status, an ack and an echo) leave
    // in one write: the socket is corked at the first and uncorked when the turn ends.
    const socket = req.socket;
    let corked = false;
    const uncork = (): void => {
      corked = false;
      socket.uncork();
    };
    const write = (frame: ServerFrame): boolean => {
      if (ws.readyState !== ws.OPEN) return false;
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(uncork);
      }
      ws.send(JSON.stringify(frame));
      return true;
    };
    const sendError = (code: WebErrorCode, message: string, ref?: string | null, extra: { retry_after_ms?: number } = {}): void => {
      const f = transient('error', { code, message, ref: ref ?? null, ...extra }, ctx.clock());
      if (conn) void ctx.hub.enqueue(conn, async () => void write(f));
      else write(f);
    };
    const helloTimer = setTimeout(() => {
      if (!sender) ws.close(CLOSE.unauthorized, 'hello expected');
    }, HELLO_TIMEOUT_MS);
    helloTimer.unref();

    ws.on('close', () => {
      clearTimeout(helloTimer);
      this.#lastSeen.delete(ws);
      if (conn) ctx.hub.remove(conn);
    });
    ws.on('error', (err) => ctx.log.debug({ err: err.message }, 'web: socket error'));
    ws.on('message', (data: RawData, isBinary: boolean) => {
      this.#lastSeen.set(ws, Date.now());
      const rate = limit.hit(ctx.clock());
      if (!rate.ok) {
        sendError('rate_limited', 'too many frames', null, { retry_after_ms: rate.retryAfterMs });
        if (rate.abusive) ws.close(CLOSE.rate_limited, 'rate limited');
        return;
      }
      if (isBinary) {
        sendError('bad_frame', 'frames are JSON text');
        return;
      }
      const parsed = parseClientFrame(data.toString('utf8'));
      if (!parsed.ok) {
        sendError('bad_frame', parsed.error, parsed.id);
        return;
      }
      queue = queue.then(() =>
        handle(parsed.frame).catch((err: unknown) => {
          ctx.log.error({ err: (err as Error).message }, 'web: frame handling failed');
          sendError('internal', 'the server could not handle this frame; retry', parsed.frame.id);
        }),
      );
    });

    const authenticate = async (f: Extract<ClientFrame, { type: 'hello' }>): Promise<string | null> => {
      const auth = f.auth ?? { scheme: 'cookie' as const };
      const byToken = async (token: string) =>
        acceptedIdentity(await verifyWebToken(ctx.db, ctx.orgId, token, ctx.clock()), ctx.demo)?.contactKey ?? null;
      if (auth.scheme === 'bearer') return byToken(auth.token);
      if (auth.scheme === 'cookie') return cookieToken ? byToken(cookieToken) : null;
      if (!ctx.demo || !isDemoContact(auth.contact)) return null;
      try {
        return (await ctx.directory.find(ctx.orgId, auth.contact)) ? auth.contact : null;
      } catch (err) {
        ctx.log.warn({ err: (err as Error).message }, 'web: demo sign-in lookup failed');
        return null;
      }
    };

    const receive = async (msg: InboundMessage, ackId: string): Promise<string | null> => {
      const host = ctx.host();
      if (!host) {
        sendError('not_ready', 'the gateway is starting; retry', ackId);
        return null;
      }
      const status = await host.receive(msg);
      const f = transient('user.ack', { client_msg_id: ackId, status }, ctx.clock());
      void ctx.hub.enqueue(conn!, async () => void write(f));
      return status;
    };

    const handle = async (f: ClientFrame): Promise<void> => {
      if (f.type === 'ping') {
        const pong = transient('pong', {}, ctx.clock());
        if (conn) void ctx.hub.enqueue(conn, async () => void write(pong));
        else write(pong);
        return;
      }
      if (f.type === 'pong') return;
      if (f.type === 'hello') {
        if (helloStarted) {
          sendError('bad_frame', 'hello was already sent', f.id);
          return;
        }
        helloStarted = true;
        const contactKey = await authenticate(f);
        if (!contactKey) {
          write(transient('error', { code: 'unauthorized', message: 'sign-in refused', ref: f.id ?? null }, ctx.clock()));
          ws.close(CLOSE.unauthorized, 'unauthorized');
          return;
        }
        const conversationId = conversationIdFor(ctx.orgId, contactKey);
        const locale = typeof f.client?.locale === 'string' ? f.client.locale : '';
        sender = {
          contactKey,
          displayName: await displayNameOf(ctx, contactKey),
          conversationId,
          lang: /^en\b/i.test(locale) ? 'en' : 'zh-CN',
        };
        clearTimeout(helloTimer);
        await ensureConversation(ctx.db, conversationId, ctx.orgId, contactKey);
        const c: HubConn = { conversationId, deliveredSeq: 0, chain: Promise.resolve(), write };
        conn = c;
        ctx.hub.add(c);
        const s = sender;
        const resume = f.resume?.last_server_seq;
        await ctx.hub.enqueue(c, async () => {
          const last = await lastSeq(ctx.db, conversationId);
          const from =
            typeof resume === 'number' && Number.isInteger(resume) && resume >= 0 && resume <= last
              ? resume
              : Math.max(0, last - HISTORY_FRAMES);
          write(
            transient(
              'hello.ok',
              {
                seq: last,
                conversation_id: conversationId,
                user: { id: s.contactKey, display_name: s.displayName },
                limits: LIMITS,
                heartbeat_s: HEARTBEAT_S,
              },
              ctx.clock(),
            ),
          );
          c.deliveredSeq = from;
          await ctx.hub.catchUp(c);
        });
        return;
      }
      if (!sender || !conn) {
        sendError('unauthorized', 'send hello first', f.id);
        return;
      }
      const now = new Date(ctx.clock()).toISOString();
      if (f.type === 'user.message') {
        if (f.text.length > LIMITS.max_text_chars) {
          sendError('text_too_long', `text longer than ${LIMITS.max_text_chars} characters`, f.client_msg_id);
          return;
        }
        const refs = f.attachments ?? [];
        if (refs.length > LIMITS.max_attachments) {
          sendError('bad_frame', `at most ${LIMITS.max_attachments} attachments`, f.client_msg_id);
          return;
        }
        const uploads: StoredUpload[] = [];
        for (const r of refs) {
          const u = await findOwnUpload(ctx.db, { dataDir: ctx.dataDir, orgId: ctx.orgId, contactKey: sender.contactKey, id: r.upload_id });
          if (!u) {
            sendError('unknown_upload', 'unknown upload', f.client_msg_id);
            return;
          }
          uploads.push(u);
        }
        const accepted = await receive(userMessageToInbound(sender, f, uploads, now), f.client_msg_id);
        if (accepted === 'accepted') {
          // history after a reload (and the user's other tabs) shows the user's side too
          await ctx.hub.append({
            conversationId: sender.conversationId,
            orgId: ctx.orgId,
            contactKey: sender.contactKey,
            body: {
              type: 'user.echo',
              client_msg_id: f.client_msg_id,
              text: storableText(f.text), // as the inbox stored it (src/channel/storable.ts)
              attachments: uploads.map((u) => ({ filename: u.filename })),
            },
            nowMs: ctx.clock(),
          });
        }
        return;
      }
      if (f.type === 'confirm.response') {
        await receive(confirmResponseToInbound(sender, f, now), f.id ?? f.confirm_token);
        return;
      }
      // stop
      const stopId = (f.client_msg_id ?? f.id ?? 'stop_' + randomBytes(9).toString('base64url')).slice(0, 100);
      await receive(stopToInbound(sender, stopId, now), stopId);
    };
  }
}
