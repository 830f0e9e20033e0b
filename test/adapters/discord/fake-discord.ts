/**
 * A fake Discord on loopback, speaking the real wire format:
 * - REST v10 on the contract kit's fake (`/api/v10/...`, `Authorization: Bot <token>`): create
 *   message (JSON or multipart `payload_json` + `files[n]`), enforcing what the real API refuses
 *   (content over 2000 → 400/50035, custom_id over 100, a nonce over 25, empty message, wrong
 *   token → 401) and honouring `nonce` + `enforce_nonce` (a repeat returns the first message),
 *   interaction callbacks, typing, `GET /users/@me`, `GET /gateway/bot` (the fake gateway's URL),
 *   CDN files;
 * - a gateway (`ws` server): HELLO, IDENTIFY → READY, heartbeat → ACK, then dispatches pushed by
 *   the test, numbered per session; RESUME → the missed dispatches + RESUMED, or op 9 for an
 *   unknown session (https://discord.com/developers/docs/events/gateway).
 */
import { generateKeyPairSync, sign as edSign, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { FakePlatform, FakeReply, RecordedRequest } from '../../../adapters/contract/index.ts';

export const TOKEN = 'TEST.discord.token_do_not_use';
export const BOT = { id: '754679440998531171', username: 'test-gateway-bot' };
export const DM_CHANNEL = '586907280998531075';
export const GUILD = '335249040998531073';
export const GUILD_CHANNEL = '335249460428931074';
export const USER = {
  id: '544964240998531073',
  username: 'test_user',
  discriminator: '0',
  global_name: 'Test User',
  avatar: null,
  public_flags: 0,
};

/** An Ed25519 application key pair (the public key as Discord shows it: 64 hex chars). */
export function appKeys(): { publicHex: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return { publicHex: der.subarray(der.length - 32).toString('hex'), privateKey };
}

/** Signing headers of an interactions-endpoint delivery at `at`. */
export function signInteraction(privateKey: KeyObject, body: Buffer, at: Date): Record<string, string> {
  const ts = String(Math.floor(at.getTime() / 1000));
  return {
    'X-Signature-Ed25519': edSign(null, Buffer.concat([Buffer.from(ts), body]), privateKey).toString('hex'),
    'X-Signature-Timestamp': ts,
  };
}

/** The JSON body of a create-message request (JSON, or multipart `payload_json`). */
export function messageBody(r: RecordedRequest): Record<string, unknown> {
  if (r.json && typeof r.json === 'object') return r.json as Record<string, unknown>;
  try {
    return JSON.parse(r.fields.payload_json ?? '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Custom ids of the buttons a request carried. */
export function customIds(r: RecordedRequest): string[] {
  const rows = messageBody(r).components;
  if (!Array.isArray(rows)) return [];
  return rows.flatMap((row: { components?: { custom_id?: string }[] }) => (row.components ?? []).map((c) => c.custom_id ?? ''));
}

let nextId = 1400000000000000000n;

function apiError(status: number, code: number, message: string): FakeReply {
  return { status, json: { code, message } };
}

/** What the REST routes remember. */
export interface DiscordState {
  /** Every message created, in order (a request answered from a nonce creates none). */
  messages: Record<string, unknown>[];
}

/** Install the REST routes on the kit's fake; returns what they remember. */
export function installDiscord(fake: FakePlatform, gatewayUrl: () => string = () => 'ws://127.0.0.1:9'): DiscordState {
  const state: DiscordState = { messages: [] };
  /** Messages created with `enforce_nonce`, by `<channel>:<nonce>` (the fake keeps them for its life). */
  const created = new Map<string, Record<string, unknown>>();
  const authed = (r: RecordedRequest) => r.headers.authorization === `Bot ${TOKEN}`;
  fake.route('POST', '/api/v10/channels/:channel/messages', (r) => {
    if (!authed(r)) return apiError(401, 0, '401: Unauthorized');
    const b = messageBody(r);
    const content = typeof b.content === 'string' ? b.content : '';
    const files = r.parts.filter((p) => p.filename !== null);
    if (content.length > 2000)
      return {
        status: 400,
        json: {
          code: 50035,
          message: 'Invalid Form Body',
          errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
        },
      };
    if (content === '' && files.length === 0 && !b.components) return apiError(400, 50006, 'Cannot send an empty message');
    if (customIds(r).some((c) => c.length < 1 || c.length > 100))
      return { status: 400, json: { code: 50035, message: 'Invalid Form Body' } };
    const nonce = typeof b.nonce === 'string' || typeof b.nonce === 'number' ? String(b.nonce) : null;
    if (nonce !== null && nonce.length > 25) return { status: 400, json: { code: 50035, message: 'Invalid Form Body' } };
    // `enforce_nonce`: the same author's nonce seen within the window returns that message.
    const seen = nonce !== null && b.enforce_nonce === true ? created.get(`${r.params.channel}:${nonce}`) : undefined;
    if (seen) return { json: seen };
    nextId += 1n;
    const message = {
      id: String(nextId),
      channel_id: r.params.channel,
      content,
      attachments: files.map((f, i) => ({ id: String(i), filename: f.filename })),
      ...(nonce !== null ? { nonce } : {}),
    };
    if (nonce !== null && b.enforce_nonce === true) created.set(`${r.params.channel}:${nonce}`, message);
    state.messages.push(message);
    return { json: message };
  });
  fake.route('POST', '/api/v10/interactions/:id/:token/callback', { status: 204 });
  fake.route('POST', '/api/v10/channels/:channel/typing', { status: 204 });
  fake.route('GET', '/api/v10/users/@me', { json: { ...BOT, discriminator: '0099', global_name: null, bot: true } });
  fake.route('GET', '/api/v10/gateway/bot', () => ({
    json: { url: gatewayUrl(), shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } },
  }));
  return state;
}

/** A MESSAGE_CREATE dispatch frame. */
export function messageCreate(p: {
  id: string;
  content: string;
  chat: 'direct' | 'group';
  author?: Record<string, unknown>;
  mentions?: Record<string, unknown>[];
  attachments?: Record<string, unknown>[];
  s?: number;
}): Record<string, unknown> {
  const group = p.chat === 'group';
  return {
    op: 0,
    t: 'MESSAGE_CREATE',
    s: p.s ?? 2,
    d: {
      type: 0,
      id: p.id,
      channel_id: group ? GUILD_CHANNEL : DM_CHANNEL,
      ...(group ? { guild_id: GUILD, member: { nick: 'Test User (Ops)', roles: [] } } : { channel_type: 1 }),
      author: p.author ?? USER,
      content: p.content,
      mentions: p.mentions ?? [],
      attachments: p.attachments ?? [],
      embeds: [],
      timestamp: '2026-01-01T00:00:00.000000+00:00',
    },
  };
}

/** A running fake gateway. */
export interface FakeGateway {
  url: string;
  /** Frames received from the client (IDENTIFY, RESUME, heartbeats …). */
  received: Record<string, unknown>[];
  /** Resolves when a client has identified. */
  identified: Promise<void>;
  /**
   * Push one frame to the current session. A dispatch (`op` 0 object) gets the session's next
   * sequence number and is kept for a RESUME; it is sent when a client is connected, else only
   * kept (as Discord does while a resumable client is away). Raw text (fuzzing) and other ops go
   * to every connected socket as they are.
   */
  push(frame: Record<string, unknown> | string): void;
  /** The current session id (the last IDENTIFY's), or null. */
  sessionId(): string | null;
  /** Open client sockets. */
  connected(): number;
  /** Whether session `id` may still be resumed. */
  resumable(id: string): boolean;
  /** End every session (a later RESUME gets op 9 `d: false`). */
  invalidateSessions(): void;
  close(): Promise<void>;
}

/** A session as the fake keeps it. */
interface FakeSession {
  id: string;
  seq: number;
  /** Every dispatch sent in this session, for replay. */
  sent: { s: number; text: string }[];
  socket: WebSocket | null;
}

/**
 * Start a fake gateway on 127.0.0.1 with READY flags `appFlags`. Sessions as Discord keeps them
 * (https://discord.com/developers/docs/events/gateway#resuming): IDENTIFY opens a new session
 * (READY with `session_id` and `resume_gateway_url`); RESUME with the token, a known
 * `session_id` and a `seq` it has sent replays every later dispatch, then RESUMED; an unknown
 * session (or a `seq` ahead of it) gets op 9 `d: false`. A client closing with 1000/1001 ends
 * its session; any other close (a dropped connection) keeps it resumable.
 */
export async function startFakeGateway(appFlags = 1 << 18): Promise<FakeGateway> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as AddressInfo).port;
  const url = `ws://127.0.0.1:${port}`;
  const received: Record<string, unknown>[] = [];
  const sockets = new Set<WebSocket>();
  const sessions = new Map<string, FakeSession>();
  let current: FakeSession | null = null;
  let made = 0;
  let identify!: () => void;
  const identified = new Promise<void>((r) => (identify = r));
  const dispatch = (session: FakeSession, t: string, d: unknown, extra: Record<string, unknown> = {}): void => {
    const s = ++session.seq;
    const text = JSON.stringify({ ...extra, op: 0, t, s, d });
    session.sent.push({ s, text });
    session.socket?.send(text);
  };
  const attach = (session: FakeSession, ws: WebSocket): void => {
    if (session.socket && session.socket !== ws) session.socket.terminate();
    for (const other of sessions.values()) if (other.socket === ws) other.socket = null;
    session.socket = ws;
  };
  wss.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', (code) => {
      sockets.delete(ws);
      for (const session of sessions.values()) {
        if (session.socket !== ws) continue;
        session.socket = null;
        if (code === 1000 || code === 1001) sessions.delete(session.id);
      }
    });
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 45_000 } }));
    ws.on('message', (raw) => {
      let f: Record<string, unknown>;
      try {
        f = JSON.parse(String(raw)) as Record<string, unknown>;
      } catch {
        return;
      }
      received.push(f);
      if (f.op === 1) ws.send(JSON.stringify({ op: 11 }));
      if (f.op === 2) {
        const session: FakeSession = { id: `sess-${++made}`, seq: 0, sent: [], socket: null };
        sessions.set(session.id, session);
        current = session;
        attach(session, ws);
        dispatch(session, 'READY', {
          v: 10,
          user: { ...BOT, discriminator: '0099', bot: true, global_name: null, avatar: null },
          guilds: [],
          session_id: session.id,
          resume_gateway_url: url,
          application: { id: BOT.id, flags: appFlags },
          shard: [0, 1],
        });
        identify();
      }
      if (f.op === 6) {
        const d = (f.d ?? {}) as { token?: unknown; session_id?: unknown; seq?: unknown };
        if (d.token !== TOKEN) return void ws.close(4004, 'Authentication failed.');
        const session = typeof d.session_id === 'string' ? sessions.get(d.session_id) : undefined;
        const seq = typeof d.seq === 'number' ? d.seq : -1;
        if (!session || seq < 0 || seq > session.seq) return void ws.send(JSON.stringify({ op: 9, d: false }));
        attach(session, ws);
        for (const m of session.sent) if (m.s > seq) ws.send(m.text);
        dispatch(session, 'RESUMED', {});
      }
    });
  });
  return {
    url,
    received,
    identified,
    push(frame) {
      if (typeof frame !== 'string' && frame.op === 0 && current && sessions.has(current.id)) {
        const { t, d, op: _op, s: _s, ...extra } = frame;
        return dispatch(current, String(t), d, extra);
      }
      const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
      for (const s of sockets) s.send(text);
    },
    sessionId: () => current?.id ?? null,
    connected: () => sockets.size,
    resumable: (id) => sessions.has(id),
    invalidateSessions() {
      sessions.clear();
    },
    async close() {
      for (const s of sockets) s.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
}
