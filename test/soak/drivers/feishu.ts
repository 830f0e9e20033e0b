/**
 * Feishu traffic for the soak: signed, encrypted `im.message.receive_v1` events POSTed to
 * `/webhooks/feishu` (redelivered until 200, as Feishu does), replies read from the loopback
 * fake Open API (test/adapters/feishu/open-api.ts). A send whose `uuid` the fake has seen is
 * the platform's own deduplication (it sends nothing), so it is not a delivery. One p2p chat
 * per open_id. Confirmations are answered with the text 「确认」.
 */
import { startFakePlatform, type FakePlatform, type RecordedRequest } from '../../../adapters/contract/index.ts';
import { SECRETS, encryptedRequest } from '../../adapters/feishu/helpers.ts';
import { contentOf, installOpenApi } from '../../adapters/feishu/open-api.ts';
import { postUntilOk, type Ack, type ChannelDriver, type OnDelivered } from './types.ts';

/** Gateway environment of the Feishu channel (webhook mode) on `fake`. */
export function feishuEnv(fake: FakePlatform): Record<string, string> {
  return {
    FEISHU_APP_ID: SECRETS.app_id,
    FEISHU_APP_SECRET: 'feishu-app-secret',
    FEISHU_ENCRYPT_KEY: SECRETS.encrypt_key,
    FEISHU_VERIFICATION_TOKEN: SECRETS.verification_token,
    FEISHU_DOMAIN: fake.baseUrl,
    FEISHU_MODE: 'webhook',
  };
}

/** Every string inside a message's content (text, post paragraphs, card markdown), in order. */
export function contentStrings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) contentStrings(x, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'tag' && k !== 'value') contentStrings(x, out);
  return out;
}

export class FeishuDriver implements ChannelDriver {
  readonly channel = 'feishu';
  readonly buttons = false;
  readonly uploads = false;
  readonly chats: string[];
  /** Feishu chat_id / open_id / message_id → chat name. */
  readonly #where = new Map<string, string>();
  readonly #uuids = new Set<string>();
  #seq = 0;
  readonly #timer: NodeJS.Timeout;

  private constructor(
    readonly fake: FakePlatform,
    readonly gatewayUrl: () => string,
    users: number,
    readonly onDelivered: OnDelivered,
  ) {
    this.chats = Array.from({ length: users }, (_, i) => `feishu:ou_soak_${String(i + 1).padStart(4, '0')}`);
    for (const c of this.chats) {
      const open = c.slice('feishu:'.length);
      this.#where.set(open, c);
      this.#where.set(this.#chatId(c), c);
    }
    installOpenApi(fake);
    this.#timer = setInterval(() => this.#drain(), 50);
  }

  /** Start the fake Open API and the driver for `users` p2p chats. */
  static async start(gatewayUrl: () => string, users: number, onDelivered: OnDelivered): Promise<FeishuDriver> {
    return new FeishuDriver(await startFakePlatform(), gatewayUrl, users, onDelivered);
  }

  #chatId(chat: string): string {
    return `oc_soak_p2p_${chat.slice('feishu:ou_soak_'.length)}`;
  }

  #drain(): void {
    for (const r of this.fake.requests.splice(0)) {
      if (r.method !== 'POST' || !/^\/open-apis\/im\/v1\/messages(\/[^/]+\/reply)?$/.test(r.path)) continue;
      this.#deliver(r);
    }
  }

  #deliver(r: RecordedRequest): void {
    const c = contentOf(r);
    if (!c) return;
    if (c.uuid) {
      if (this.#uuids.has(c.uuid)) return;
      this.#uuids.add(c.uuid);
    }
    const replyTo = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(r.path)?.[1];
    const receiveId = (r.json as { receive_id?: string } | undefined)?.receive_id;
    const chat = this.#where.get(replyTo ?? receiveId ?? '') ?? `feishu:?${replyTo ?? receiveId}`;
    this.onDelivered({ chat, text: contentStrings(c.content).join('\n'), buttons: [], at: Date.now() });
  }

  sendText(chat: string, text: string): Promise<Ack> {
    const n = ++this.#seq;
    const now = Date.now();
    const openId = chat.slice('feishu:'.length);
    const messageId = `om_soak_${process.pid}_${n}`;
    this.#where.set(messageId, chat);
    const event = {
      schema: '2.0',
      header: {
        event_id: `soak_evt_${process.pid}_${n}`,
        token: SECRETS.verification_token,
        create_time: String(now),
        event_type: 'im.message.receive_v1',
        tenant_key: 'tenant_test_0001',
        app_id: SECRETS.app_id,
      },
      event: {
        sender: {
          sender_id: { open_id: openId, union_id: `on_${openId}`, user_id: `u_${openId}` },
          sender_type: 'user',
          tenant_key: 'tenant_test_0001',
        },
        message: {
          message_id: messageId,
          create_time: String(now),
          chat_id: this.#chatId(chat),
          chat_type: 'p2p',
          message_type: 'text',
          content: JSON.stringify({ text }),
        },
      },
    };
    const plain = JSON.stringify(event);
    // Each delivery attempt is signed afresh (as Feishu does), within the replay window.
    return postUntilOk(`${this.gatewayUrl()}/webhooks/feishu`, () => {
      const req = encryptedRequest(plain, { timestampS: Math.floor(Date.now() / 1000), nonce: `n${n}-${Date.now()}` });
      return { method: 'POST', headers: req.headers as Record<string, string>, body: req.body };
    });
  }

  sendUpload(): Promise<Ack> {
    return Promise.reject(new Error('feishu driver: uploads are not driven'));
  }

  press(chat: string): Promise<Ack> {
    return this.sendText(chat, '确认');
  }

  beforeCrash(): void {}
  async afterRestart(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#drain();
    await this.fake.close();
  }
}
