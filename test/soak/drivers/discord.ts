/**
 * Discord traffic for the soak: MESSAGE_CREATE dispatches pushed over the loopback fake gateway
 * (test/adapters/discord/fake-discord.ts) — one DM channel per user — and the fake REST's
 * create-message calls read back as deliveries. The gateway protocol has no per-message
 * acknowledgement; the fake keeps every dispatch of the session for a RESUME, so a dispatch is
 * acknowledged once the fake took it, also while the killed gateway is down: the restarted one
 * resumes the stored session and gets it replayed (docs/reliability.md "What is counted").
 */
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { installDiscord, messageBody, startFakeGateway, TOKEN, type FakeGateway } from '../../adapters/discord/fake-discord.ts';
import type { Ack, ChannelDriver, OnDelivered } from './types.ts';

/** Gateway environment of the Discord channel on `rest`. */
export function discordEnv(rest: FakePlatform): Record<string, string> {
  return { DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_ROOT: `${rest.baseUrl}/api` };
}

/** IDENTIFYs and RESUMEs the fake received. */
const sessionStarts = (gw: FakeGateway): number => gw.received.filter((f) => f.op === 2 || f.op === 6).length;

export class DiscordDriver implements ChannelDriver {
  readonly channel = 'discord';
  readonly buttons = false;
  readonly uploads = false;
  readonly chats: string[];
  /** DM channel id → chat name. */
  readonly #byChannel = new Map<string, string>();
  #seq = 0n;
  #startsBefore = 0;
  readonly #timer: NodeJS.Timeout;

  private constructor(
    readonly rest: FakePlatform,
    readonly gw: FakeGateway,
    users: number,
    readonly onDelivered: OnDelivered,
  ) {
    this.chats = Array.from({ length: users }, (_, i) => `discord:${544964240998600001n + BigInt(i)}`);
    for (const c of this.chats) this.#byChannel.set(this.#dmChannel(c), c);
    this.#timer = setInterval(() => this.#drain(), 50);
  }

  /** Start the fake REST API + gateway and the driver for `users` DM chats. */
  static async start(users: number, onDelivered: OnDelivered): Promise<DiscordDriver> {
    const gw = await startFakeGateway();
    const rest = await startFakePlatform();
    installDiscord(rest, () => gw.url);
    return new DiscordDriver(rest, gw, users, onDelivered);
  }

  /** Resolves once a gateway process has identified (the first start). */
  identified(): Promise<void> {
    return this.gw.identified;
  }

  #dmChannel(chat: string): string {
    return String(BigInt(chat.slice('discord:'.length)) + 41_000_000_000n);
  }

  #drain(): void {
    for (const r of this.rest.requests.splice(0)) {
      const m = /^\/api\/v10\/channels\/([^/]+)\/messages$/.exec(r.path);
      if (r.method !== 'POST' || !m) continue;
      const b = messageBody(r);
      const embeds = Array.isArray(b.embeds) ? (b.embeds as { description?: string; title?: string }[]) : [];
      const text = [typeof b.content === 'string' ? b.content : '', ...embeds.flatMap((e) => [e.title ?? '', e.description ?? ''])].join(
        '\n',
      );
      this.onDelivered({ chat: this.#byChannel.get(m[1]!) ?? `discord:?${m[1]}`, text, buttons: [], at: Date.now() });
    }
  }

  async sendText(chat: string, text: string): Promise<Ack> {
    const id = String(1_500_000_000_000_000_000n + ++this.#seq);
    const author = chat.slice('discord:'.length);
    this.gw.push({
      op: 0,
      t: 'MESSAGE_CREATE',
      d: {
        type: 0,
        id,
        channel_id: this.#dmChannel(chat),
        channel_type: 1,
        author: {
          id: author,
          username: `soak_${author.slice(-4)}`,
          discriminator: '0',
          global_name: 'Soak',
          avatar: null,
          public_flags: 0,
        },
        content: text,
        mentions: [],
        attachments: [],
        embeds: [],
        timestamp: new Date().toISOString(),
      },
    });
    return { acked: true, at: Date.now() };
  }

  sendUpload(): Promise<Ack> {
    return Promise.reject(new Error('discord driver: uploads are not driven'));
  }

  press(chat: string): Promise<Ack> {
    return this.sendText(chat, '确认');
  }

  beforeCrash(): void {
    this.#startsBefore = sessionStarts(this.gw);
  }

  /** Wait until the restarted gateway has resumed (or identified anew). */
  async afterRestart(): Promise<void> {
    const end = Date.now() + 60_000;
    while (sessionStarts(this.gw) <= this.#startsBefore && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#drain();
    await this.gw.close();
    await this.rest.close();
  }
}
