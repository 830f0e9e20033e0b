/**
 * Test rig of the web channel: a real express server on 127.0.0.1:0 with the channel's router
 * and `WS /ws`, a recording AdapterHost that answers each message by calling `channel.send`
 * (echo), and a ws client that collects frames.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { WebSocket } from 'ws';
import type { AdapterHost, InboundMessage, NoticeEvent, OutboundMessage } from '../../src/channel/types.ts';
import type { Db } from '../../src/store/db.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createWebChannel, type WebChannel } from '../../adapters/web/index.ts';
import { staticDirectory } from '../../src/web-auth/directory.ts';

export const CONTACTS = [
  { contact_key: 'demo_reporter', name: '报修人' },
  { contact_key: 'demo_worker', name: '维修工' },
  { contact_key: 'alice', name: 'Alice' },
];

/** A host that records inbound messages, dedupes by key and (optionally) answers. */
export class EchoHost implements AdapterHost {
  readonly received: InboundMessage[] = [];
  readonly #seen = new Set<string>();
  /** What to answer a message with (null: no answer). */
  answer: (msg: InboundMessage) => OutboundMessage | null = (msg) =>
    msg.kind === 'message'
      ? { kind: 'reply', text: `echo: ${msg.raw_input}`, format: 'markdown', reply_to: msg.message_id, final: true }
      : null;
  channel: WebChannel | undefined;

  /** Notices asked for (AdapterHost.notice), in order. */
  readonly notices: OutboundMessage[] = [];

  async notice(_event: NoticeEvent, message: OutboundMessage): Promise<void> {
    this.notices.push(message);
  }

  async receive(msg: InboundMessage): Promise<'accepted' | 'duplicate' | 'ignored'> {
    if (this.#seen.has(msg.dedupe_key)) return 'duplicate';
    this.#seen.add(msg.dedupe_key);
    this.received.push(msg);
    const out = this.answer(msg);
    if (out && this.channel) {
      setImmediate(() => void this.channel!.send({ channel: 'web', account: 'default', chat_id: msg.chat.id }, out));
    }
    return 'accepted';
  }
}

/** A started web channel on a real server. */
export interface Rig {
  channel: WebChannel;
  host: EchoHost;
  server: Server;
  url: string;
  wsUrl: string;
  dataDir: string;
  close(): Promise<void>;
}

/** Start a web channel on `db` (migrated) with an echo host. */
export async function startRig(
  db: Db,
  opts: { demo?: boolean; orgId?: string; clock?: () => number; dataDir?: string; renderHtml?: (md: string) => string } = {},
): Promise<Rig> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'sg-web-')));
  const log = createLogger({ level: 'silent' });
  const channel = createWebChannel({
    db,
    log,
    dataDir,
    orgId: opts.orgId ?? 'demo',
    roleId: 'default',
    demo: opts.demo ?? true,
    directory: staticDirectory(CONTACTS),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.renderHtml ? { renderHtml: opts.renderHtml } : {}),
  });
  const host = new EchoHost();
  host.channel = channel;
  await channel.start!(host);
  const app = express();
  app.use(channel.router);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  channel.attach(server);
  const port = (server.address() as AddressInfo).port;
  return {
    channel,
    host,
    server,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    dataDir,
    async close() {
      await channel.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      if (!opts.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

type Frame = Record<string, unknown> & { type: string };

/** A ws client that keeps every frame it received. */
export class Client {
  readonly frames: Frame[] = [];
  closeCode: number | null = null;
  readonly #waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  readonly #closed: Promise<number>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString()) as Frame;
      this.frames.push(f);
      for (const w of [...this.#waiters]) {
        if (w.pred(f)) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve(f);
        }
      }
    });
    this.#closed = new Promise((r) =>
      ws.on('close', (code) => {
        this.closeCode = code;
        r(code);
      }),
    );
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const ws = new WebSocket(url, { headers });
    const c = new Client(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return c;
  }

  send(frame: Record<string, unknown>): void {
    this.ws.send(JSON.stringify({ v: 1, ...frame }));
  }

  /** The first frame (already received or future) matching `pred`. */
  next(pred: (f: Frame) => boolean): Promise<Frame> {
    const have = this.frames.find(pred);
    if (have) return Promise.resolve(have);
    return new Promise((resolve) => this.#waiters.push({ pred, resolve }));
  }

  /** Wait until `n` frames match `pred`. */
  async count(pred: (f: Frame) => boolean, n: number): Promise<Frame[]> {
    for (;;) {
      const got = this.frames.filter(pred);
      if (got.length >= n) return got;
      await new Promise<void>((resolve) => this.#waiters.push({ pred, resolve: () => resolve() }));
    }
  }

  closed(): Promise<number> {
    return this.#closed;
  }

  close(): void {
    this.ws.close();
  }
}

/** Open a client and complete `hello` with `auth` (and `resume`). */
export async function signedIn(rig: Rig, auth: Record<string, unknown>, resume?: number): Promise<{ c: Client; hello: Frame }> {
  const c = await Client.open(rig.wsUrl);
  c.send({ type: 'hello', id: 'c_1', auth, ...(resume !== undefined ? { resume: { last_server_seq: resume } } : {}) });
  const hello = await c.next((f) => f.type === 'hello.ok' || f.type === 'error');
  return { c, hello };
}
