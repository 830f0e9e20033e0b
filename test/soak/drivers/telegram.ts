/**
 * Telegram traffic for the soak: updates POSTed to `/webhooks/telegram` with the secret header
 * (redelivered until 200, as Telegram does), documents served by the loopback fake Bot API
 * (test/adapters/telegram/fake-telegram.ts), and the fake's recorded send* calls read back as
 * deliveries. Private chats, one per user id.
 */
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { htmlToText } from '../../../adapters/telegram/outbound.ts';
import { installTelegram, SECRET, TOKEN, telegramBody } from '../../adapters/telegram/fake-telegram.ts';
import { postUntilOk, type Ack, type Button, type ChannelDriver, type OnDelivered, type UploadFile } from './types.ts';

/** Gateway environment of the Telegram channel on `fake`. */
export function telegramEnv(fake: FakePlatform): Record<string, string> {
  return { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET, TELEGRAM_API_ROOT: fake.baseUrl, TELEGRAM_MODE: 'webhook' };
}

export class TelegramDriver implements ChannelDriver {
  readonly channel = 'telegram';
  readonly buttons = true;
  readonly uploads = true;
  readonly chats: string[];
  readonly #files = new Map<string, { file_path: string; data: Buffer }>();
  #seq = 0;
  #timer: NodeJS.Timeout | null = null;

  private constructor(
    readonly fake: FakePlatform,
    readonly gatewayUrl: () => string,
    users: number,
    readonly onDelivered: OnDelivered,
  ) {
    this.chats = Array.from({ length: users }, (_, i) => `telegram:${7_100_001 + i}`);
    installTelegram(fake, this.#files);
    this.#timer = setInterval(() => this.#drain(), 50);
  }

  /** Start the fake Bot API and the driver for `users` private chats. */
  static async start(gatewayUrl: () => string, users: number, onDelivered: OnDelivered): Promise<TelegramDriver> {
    return new TelegramDriver(await startFakePlatform(), gatewayUrl, users, onDelivered);
  }

  #drain(): void {
    for (const r of this.fake.requests.splice(0)) {
      const method = /^\/bot[^/]+\/(\w+)$/.exec(r.path)?.[1] ?? '';
      if (!/^send(Message|Document|Photo|Video|Audio|Voice)$/.test(method)) continue;
      const b = telegramBody(r);
      const raw = String((method === 'sendMessage' ? b.text : b.caption) ?? '');
      const text = b.parse_mode === 'HTML' ? htmlToText(raw) : raw;
      const markup = (typeof b.reply_markup === 'string' ? JSON.parse(b.reply_markup) : b.reply_markup) as
        | { inline_keyboard?: { text?: string; callback_data?: string }[][] }
        | undefined;
      const buttons: Button[] = (markup?.inline_keyboard ?? []).flat().map((x) => ({ label: x.text ?? '', data: x.callback_data ?? '' }));
      this.onDelivered({ chat: `telegram:${String(b.chat_id)}`, text, buttons, at: Date.now() });
    }
  }

  #post(update: Record<string, unknown>): Promise<Ack> {
    const body = JSON.stringify(update);
    return postUntilOk(`${this.gatewayUrl()}/webhooks/telegram`, () => ({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET },
      body,
    }));
  }

  #message(chat: string, extra: Record<string, unknown>): Record<string, unknown> {
    const n = 900_000 + ++this.#seq;
    const id = Number(chat.slice('telegram:'.length));
    return {
      update_id: n,
      message: {
        message_id: n,
        date: Math.floor(Date.now() / 1000),
        chat: { id, type: 'private', first_name: 'Soak' },
        from: { id, is_bot: false, first_name: 'Soak', language_code: 'zh-hans' },
        ...extra,
      },
    };
  }

  sendText(chat: string, text: string): Promise<Ack> {
    const command = /^\/\w+/.exec(text)?.[0];
    return this.#post(
      this.#message(chat, { text, ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command.length }] } : {}) }),
    );
  }

  sendUpload(chat: string, text: string, file: UploadFile): Promise<Ack> {
    const fileId = `soak_doc_${++this.#seq}`;
    this.#files.set(fileId, { file_path: `documents/${fileId}_${file.name}`, data: file.data });
    const command = /^\/\w+/.exec(text)?.[0];
    return this.#post(
      this.#message(chat, {
        caption: text,
        ...(command ? { caption_entities: [{ type: 'bot_command', offset: 0, length: command.length }] } : {}),
        document: {
          file_id: fileId,
          file_unique_id: `u${fileId}`,
          file_name: file.name,
          mime_type: file.mime,
          file_size: file.data.length,
        },
      }),
    );
  }

  press(chat: string, button: Button): Promise<Ack> {
    const n = 900_000 + ++this.#seq;
    const id = Number(chat.slice('telegram:'.length));
    return this.#post({
      update_id: n,
      callback_query: {
        id: `cq${n}`,
        from: { id, is_bot: false, first_name: 'Soak', language_code: 'zh-hans' },
        message: {
          message_id: n,
          from: { id: 10000099, is_bot: true, first_name: 'bot' },
          chat: { id, type: 'private', first_name: 'Soak' },
          date: Math.floor(Date.now() / 1000),
          text: 'x',
        },
        chat_instance: '-7000000000000000001',
        data: button.data,
      },
    });
  }

  beforeCrash(): void {}
  async afterRestart(): Promise<void> {}

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#drain();
    await this.fake.close();
  }
}
