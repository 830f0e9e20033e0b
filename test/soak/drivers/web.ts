/**
 * Web chat traffic for the soak (docs/web-protocol.md): one `WS /ws` client per directory
 * contact, signed in with a bearer web token, behaving as the page does — a `user.message` is
 * kept until its `user.ack` and sent again (same `client_msg_id`) after a reconnect or an
 * error frame; reconnects resume from the highest stored `seq` seen, frames at or below it are
 * ignored; uploads go through `POST /api/uploads`. Stored frames (`assistant.message`,
 * `confirm.request`) are the deliveries.
 */
import { WebSocket } from 'ws';
import type { Ack, Button, ChannelDriver, OnDelivered, UploadFile } from './types.ts';

type Frame = Record<string, unknown> & { type: string };

interface Pending {
  frame: Record<string, unknown>;
  /** The id the ack names (client_msg_id, or the confirm frame's id / token). */
  ids: string[];
  resolve: (a: Ack) => void;
  deadline: number;
}

/** One contact's socket, reconnecting. */
class WebClient {
  #ws: WebSocket | null = null;
  #open = false;
  #lastSeq = 0;
  #closed = false;
  readonly #pending = new Map<string, Pending>();
  #backoff = 500;

  constructor(
    readonly chat: string,
    readonly wsUrl: () => string,
    readonly token: string,
    readonly onDelivered: OnDelivered,
  ) {
    this.#connect();
    setInterval(() => this.#expire(), 1000).unref();
  }

  #connect(): void {
    if (this.#closed) return;
    const ws = new WebSocket(this.wsUrl());
    this.#ws = ws;
    ws.on('open', () => {
      ws.send(
        JSON.stringify({ v: 1, type: 'hello', auth: { scheme: 'bearer', token: this.token }, resume: { last_server_seq: this.#lastSeq } }),
      );
    });
    ws.on('message', (raw) => {
      let f: Frame;
      try {
        f = JSON.parse(String(raw)) as Frame;
      } catch {
        return;
      }
      this.#frame(f);
    });
    ws.on('error', () => undefined);
    ws.on('close', () => {
      this.#open = false;
      if (this.#closed) return;
      const wait = this.#backoff * (0.75 + Math.random() * 0.5);
      this.#backoff = Math.min(this.#backoff * 2, 5000);
      setTimeout(() => this.#connect(), wait);
    });
  }

  #frame(f: Frame): void {
    if (f.type === 'hello.ok') {
      this.#open = true;
      this.#backoff = 500;
      for (const p of this.#pending.values()) this.#ws?.send(JSON.stringify(p.frame));
      return;
    }
    if (f.type === 'ping') {
      this.#ws?.send(JSON.stringify({ v: 1, type: 'pong' }));
      return;
    }
    if (f.type === 'user.ack') {
      const id = String(f.client_msg_id ?? '');
      for (const [k, p] of this.#pending) {
        if (p.ids.includes(id)) {
          this.#pending.delete(k);
          p.resolve({ acked: true, at: Date.now() });
        }
      }
      return;
    }
    if (f.type === 'error') {
      // not_ready / internal / rate_limited: the page sends the frame again later.
      const ref = String(f.ref ?? '');
      const retry = Number(f.retry_after_ms ?? 1000);
      for (const p of this.#pending.values()) {
        if (p.ids.includes(ref) || ref === '') setTimeout(() => this.#open && this.#ws?.send(JSON.stringify(p.frame)), retry);
      }
      return;
    }
    const seq = typeof f.seq === 'number' ? f.seq : null;
    if (seq !== null) {
      if (seq <= this.#lastSeq) return;
      this.#lastSeq = seq;
    }
    if (f.type === 'assistant.message') {
      this.onDelivered({ chat: this.chat, text: String(f.text ?? ''), buttons: [], at: Date.now() });
    } else if (f.type === 'confirm.request') {
      const token = String(f.confirm_token ?? '');
      const options = Array.isArray(f.options) ? (f.options as { id?: string; label?: string }[]) : [];
      this.onDelivered({
        chat: this.chat,
        text: String(f.prompt_md ?? ''),
        buttons: options.map((o) => ({ label: o.label ?? '', data: `${token} ${o.id ?? ''}` })),
        at: Date.now(),
      });
    }
  }

  #expire(): void {
    const now = Date.now();
    for (const [k, p] of this.#pending) {
      if (p.deadline < now) {
        this.#pending.delete(k);
        p.resolve({ acked: false, reason: 'no user.ack within 180 s' });
      }
    }
  }

  send(key: string, frame: Record<string, unknown>, ids: string[]): Promise<Ack> {
    return new Promise((resolve) => {
      this.#pending.set(key, { frame: { v: 1, ...frame }, ids, resolve, deadline: Date.now() + 180_000 });
      if (this.#open) this.#ws?.send(JSON.stringify({ v: 1, ...frame }));
    });
  }

  close(): void {
    this.#closed = true;
    this.#ws?.terminate();
  }
}

export class WebDriver implements ChannelDriver {
  readonly channel = 'web';
  readonly buttons = true;
  readonly uploads = true;
  readonly chats: string[];
  readonly #clients = new Map<string, WebClient>();
  readonly #tokens = new Map<string, string>();
  #seq = 0;

  /** `tokens`: contact key → web token (`skillgate web token`). */
  constructor(
    readonly gatewayUrl: () => string,
    tokens: ReadonlyMap<string, string>,
    onDelivered: OnDelivered,
  ) {
    this.chats = [...tokens.keys()].map((k) => `web:${k}`);
    for (const [key, token] of tokens) {
      this.#tokens.set(`web:${key}`, token);
      this.#clients.set(`web:${key}`, new WebClient(`web:${key}`, () => `${gatewayUrl().replace(/^http/, 'ws')}/ws`, token, onDelivered));
    }
  }

  #client(chat: string): WebClient {
    const c = this.#clients.get(chat);
    if (!c) throw new Error(`web driver: unknown chat ${chat}`);
    return c;
  }

  sendText(chat: string, text: string, attachments?: { upload_id: string }[]): Promise<Ack> {
    const id = `soak-${process.pid}-${++this.#seq}`;
    return this.#client(chat).send(id, { type: 'user.message', client_msg_id: id, text, ...(attachments ? { attachments } : {}) }, [id]);
  }

  async sendUpload(chat: string, text: string, file: UploadFile): Promise<Ack> {
    const end = Date.now() + 180_000;
    let last = '';
    for (;;) {
      try {
        const fd = new FormData();
        fd.append('file', new Blob([file.data], { type: file.mime }), file.name);
        const res = await fetch(`${this.gatewayUrl()}/api/uploads`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.#tokens.get(chat)}` },
          body: fd,
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await res.json().catch(() => ({}))) as { upload_id?: string };
        if (res.status === 201 && body.upload_id) return this.sendText(chat, text, [{ upload_id: body.upload_id }]);
        last = `HTTP ${res.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      if (Date.now() > end) return { acked: false, reason: `upload not accepted within 180 s (${last})` };
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  press(chat: string, button: Button): Promise<Ack> {
    const [token, choice] = button.data.split(' ') as [string, string];
    const id = `soak-press-${process.pid}-${++this.#seq}`;
    return this.#client(chat).send(id, { type: 'confirm.response', id, confirm_token: token, choice }, [id, token]);
  }

  beforeCrash(): void {}
  async afterRestart(): Promise<void> {}

  async close(): Promise<void> {
    for (const c of this.#clients.values()) c.close();
  }
}
