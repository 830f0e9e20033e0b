/**
 * The Telegram channel (grammY 1.46 `Api` over the Bot API). One adapter per account
 * (`.env` TELEGRAM_* block = account `default`, more in `skillgate.config.yaml` `accounts:`;
 * config key `token` is an alias of `bot_token`). Mode `webhook` (default when a webhook secret
 * is set: `POST /webhooks/telegram/<account>`, registered with setWebhook when
 * SKILLGATE_PUBLIC_URL is set) or `polling` (getUpdates in `start`). `api_root` points the SDK
 * at another Bot API server (tests: a loopback fake).
 */
import { basename } from 'node:path';
import { Api, type ApiClientOptions } from 'grammy';
import type { Update } from 'grammy/types';
import {
  type AdapterCapabilities,
  type AdapterHost,
  apiRootSetting,
  AttachmentTooLargeError,
  type CallbackPayloads,
  type ChannelAccount,
  type ChannelFactory,
  createCallbackPayloads,
  type FetchedAttachment,
  type InboundAttachment,
  Lazy,
  type OutboundMessage,
  type OutboundTarget,
  perAccountChannel,
  type Queryable,
  requestFetch,
  requireSetting,
  type SendOptions,
  type SendResult,
  setting,
  settingError,
  type WebhookAdapter,
  type WebhookRequest,
  type WebhookResponse,
} from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { MalformedUpdateError, normalizeUpdate, type BotIdentity } from './inbound.ts';
import { failureOf, sendTelegram } from './outbound.ts';
import { ALLOWED_UPDATES, startPolling, type Poller } from './transport-polling.ts';
import { verifyTelegramWebhook } from './transport-webhook.ts';
import { DEFAULT_API_ROOT, DOWNLOAD_LIMIT_BYTES, SECRET_TOKEN_RE, TEXT_LIMIT } from './wire.ts';
import { tooLargeText, unsupportedText, expiredButtonText } from './texts.ts';

/** Settings of one Telegram account. */
export interface TelegramSettings {
  account: string;
  token: string;
  /** The setWebhook `secret_token`; required in webhook mode. */
  webhookSecret: string | null;
  mode: 'webhook' | 'polling';
  /** Bot API root without a trailing `/` (default https://api.telegram.org). */
  apiRoot: string;
  /**
   * Unused: a 429 is never waited out in the SDK any more (the outbox waits its retry_after
   * once, docs/operations-delivery.md). Kept so existing settings objects still type-check.
   */
  maxRetryDelayS?: number;
}

/** What the adapter uses besides its settings. */
export interface TelegramDeps {
  db: Queryable;
  log: Logger;
  now?: () => Date;
  /** `SKILLGATE_PUBLIC_URL`: webhook mode registers `<publicUrl>/webhooks/telegram/<account>`. */
  publicUrl?: string;
  /** Skip getMe (tests, or a known bot). */
  botInfo?: BotIdentity;
}

/**
 * Read one account's settings.
 * @throws ConfigError naming the key when the token is missing, the secret malformed, or
 *   webhook mode is asked for without a secret.
 */
export function telegramSettings(a: ChannelAccount): TelegramSettings {
  const token = requireSetting(a, 'bot_token', { aliases: ['token'], problem: 'the bot token is missing' });
  const secret = setting(a, 'webhook_secret') || null;
  if (secret !== null && !SECRET_TOKEN_RE.test(secret))
    throw settingError(a, 'webhook_secret', 'the webhook secret must be 1-256 of A-Z a-z 0-9 _ -');
  const mode = setting(a, 'mode').toLowerCase() || (secret ? 'webhook' : 'polling');
  if (mode !== 'webhook' && mode !== 'polling') throw settingError(a, 'mode', 'mode must be webhook or polling');
  if (mode === 'webhook' && !secret) throw settingError(a, 'webhook_secret', 'webhook mode needs a webhook secret');
  return { account: a.id, token, webhookSecret: secret, mode, apiRoot: apiRootSetting(a, 'api_root', DEFAULT_API_ROOT) };
}

/** One Telegram bot account as a {@link WebhookAdapter} (polling accounts answer webhooks 404). */
export class TelegramAdapter implements WebhookAdapter {
  readonly channel = 'telegram';
  readonly account: string;
  readonly capabilities: AdapterCapabilities = {
    display: 'rich',
    buttons: true,
    max_length: TEXT_LIMIT,
    length_unit: 'utf16',
    typing: true,
    media: true,
  };
  readonly api: Api;
  /** getUpdates allows one consumer per bot: polling runs on one replica (docs/operations-delivery.md). */
  readonly longConnection: { shard?: string } | null;
  readonly #s: TelegramSettings;
  readonly #d: TelegramDeps;
  readonly #payloads: CallbackPayloads;
  readonly #now: () => Date;
  readonly #bot: Lazy<BotIdentity>;
  #poller: Poller | undefined;

  constructor(settings: TelegramSettings, deps: TelegramDeps) {
    this.account = settings.account;
    this.longConnection = settings.mode === 'polling' ? {} : null;
    this.#s = settings;
    this.#d = deps;
    this.#now = deps.now ?? (() => new Date());
    // Node's http directly instead of grammY's node-fetch: the same call for about half the CPU.
    this.api = new Api(settings.token, { apiRoot: settings.apiRoot, fetch: requestFetch as unknown as ApiClientOptions['fetch'] });
    // No SDK retries: a 429 goes back to the outbox with its retry_after, which waits it once
    // and paces the chat and account (src/outbox/pacing.ts); 5xx/network errors back off there too.
    this.#payloads = createCallbackPayloads(deps.db, 'telegram', settings.account, this.#now);
    this.#bot = new Lazy(() => this.api.getMe().then((me) => ({ id: me.id, username: me.username })), deps.botInfo);
  }

  /** Our bot's id and username (getMe once; retried on the next call after a failure). */
  bot(): Promise<BotIdentity> {
    return this.#bot.get();
  }

  async start(host: AdapterHost): Promise<void> {
    const log = this.#d.log.child({ channel: 'telegram', account: this.account });
    if (this.#s.mode === 'polling') {
      const process = async (u: Update, h: AdapterHost) => {
        try {
          await this.processUpdate(u, h);
        } catch (err) {
          if (!(err instanceof MalformedUpdateError)) throw err;
          log.warn({ update_id: u.update_id, err: err.message }, 'telegram: malformed update skipped');
        }
      };
      this.#poller = startPolling({ api: this.api, host, log, process });
      log.info({ mode: 'polling' }, 'telegram: polling for updates');
      return;
    }
    if (!this.#d.publicUrl) {
      log.info({ mode: 'webhook' }, 'telegram: webhook mode; SKILLGATE_PUBLIC_URL is not set, register the webhook yourself');
      return;
    }
    const url = `${this.#d.publicUrl.replace(/\/+$/, '')}/webhooks/telegram/${encodeURIComponent(this.account)}`;
    try {
      await this.api.setWebhook(url, { secret_token: this.#s.webhookSecret!, allowed_updates: [...ALLOWED_UPDATES] });
      log.info({ mode: 'webhook', url }, 'telegram: webhook registered');
    } catch (err) {
      log.error({ err: failureOf(err).description, url }, 'telegram: setWebhook failed; updates will not arrive until it succeeds');
    }
  }

  async stop(): Promise<void> {
    await this.#poller?.stop();
    this.#poller = undefined;
  }

  async handleWebhook(req: WebhookRequest, host: AdapterHost): Promise<WebhookResponse> {
    if (this.#s.mode !== 'webhook' || !this.#s.webhookSecret) return { status: 404, body: 'webhook not enabled for this account' };
    const v = verifyTelegramWebhook(req, this.#s.webhookSecret);
    if (!v.ok) return v.response;
    try {
      await this.processUpdate(v.update, host);
    } catch (err) {
      if (err instanceof MalformedUpdateError) return { status: 400, body: err.message };
      throw err;
    }
    return { status: 200 };
  }

  /**
   * Normalize one verified update and hand it to the host; answer button presses and
   * unsupported content. @throws when the host could not store it (the platform redelivers);
   *   MalformedUpdateError for an update with wrongly typed fields.
   */
  async processUpdate(update: Update, host: AdapterHost): Promise<void> {
    const bot = await this.bot();
    const n = normalizeUpdate(update, this.account, bot, this.#now());
    const log = this.#d.log;
    switch (n.type) {
      case 'message':
        await host.receive(n.msg);
        return;
      case 'callback': {
        const msg = n.build(await this.#payloads.decode(n.data));
        const text = msg ? undefined : expiredButtonText(update.callback_query?.from);
        this.api
          .answerCallbackQuery(n.callback_id, text ? { text } : {})
          .catch((err: unknown) => log.warn({ err: failureOf(err).description }, 'telegram: answerCallbackQuery failed'));
        if (msg) await host.receive(msg);
        return;
      }
      case 'unsupported':
        // Queued once per update by the core (outbox, keyed by the update id): a redelivered
        // update does not repeat it, a failed send is retried.
        await host.notice(
          {
            channel: 'telegram',
            account: this.account,
            dedupe_key: n.dedupe_key,
            message_id: String(n.message_id),
            chat: { id: n.chat_id, type: 'direct', thread_id: n.thread_id },
          },
          { kind: 'notice', text: unsupportedText(n.what, n.lang), format: 'plain' },
        );
        return;
      case 'ignore':
        if (n.callback_id) this.api.answerCallbackQuery(n.callback_id).catch(() => undefined);
        log.debug({ reason: n.reason, update_id: update.update_id }, 'telegram: update ignored');
        return;
    }
  }

  send(target: OutboundTarget, message: OutboundMessage, opts?: SendOptions): Promise<SendResult> {
    return sendTelegram({ api: this.api, payloads: this.#payloads, now: this.#now }, target, message, opts);
  }

  async typing(target: OutboundTarget): Promise<void> {
    const thread = target.thread_id && /^\d+$/.test(target.thread_id) ? { message_thread_id: Number(target.thread_id) } : {};
    await this.api.sendChatAction(target.chat_id, 'typing', thread).catch(() => undefined);
  }

  /**
   * getFile + download from `<api_root>/file/bot<token>/<file_path>`.
   * @throws Error with a zh-CN / English text for the user when the file is over 20 MB (the
   *   cloud Bot API limit), or the API/download error otherwise.
   */
  async fetchAttachment(att: InboundAttachment): Promise<FetchedAttachment> {
    if ((att.size ?? 0) > DOWNLOAD_LIMIT_BYTES)
      throw new AttachmentTooLargeError(att.filename, DOWNLOAD_LIMIT_BYTES, tooLargeText(att.filename));
    const fileId = att.platform_ref.file_id;
    if (typeof fileId !== 'string' || fileId === '') throw new Error('telegram attachment without file_id');
    let path: string | undefined;
    let size: number | undefined;
    try {
      const f = await this.api.getFile(fileId);
      path = f.file_path;
      size = f.file_size;
    } catch (err) {
      const f = failureOf(err);
      if (f.code === 400 && /too big/i.test(f.description))
        throw new AttachmentTooLargeError(att.filename, DOWNLOAD_LIMIT_BYTES, tooLargeText(att.filename));
      throw new Error(`telegram getFile failed: ${f.description}`);
    }
    if ((size ?? 0) > DOWNLOAD_LIMIT_BYTES)
      throw new AttachmentTooLargeError(att.filename, DOWNLOAD_LIMIT_BYTES, tooLargeText(att.filename));
    if (!path) throw new Error('telegram getFile returned no file_path');
    const url = `${this.#s.apiRoot}/file/bot${this.#s.token}/${path.split('/').map(encodeURIComponent).join('/')}`;
    const res = await fetch(url);
    if (!res.ok) throw new Error(`telegram file download failed: HTTP ${res.status}`);
    const data = Buffer.from(await res.arrayBuffer());
    if (data.length > DOWNLOAD_LIMIT_BYTES)
      throw new AttachmentTooLargeError(att.filename, DOWNLOAD_LIMIT_BYTES, tooLargeText(att.filename));
    return { data, filename: att.filename ?? basename(path), mime_type: att.mime_type ?? null };
  }
}

/** Build the adapter of one account. */
export function createTelegramAdapter(settings: TelegramSettings, deps: TelegramDeps): TelegramAdapter {
  return new TelegramAdapter(settings, deps);
}

/** The Telegram channel factory (register it in adapters/index.ts). */
export const telegramChannel: ChannelFactory = perAccountChannel('telegram', 'bot_token', (a, ctx) => {
  const s = telegramSettings(a);
  const adapter = createTelegramAdapter(s, { db: ctx.db, log: ctx.log, now: ctx.now, publicUrl: ctx.publicUrl });
  return { adapter, report: { mode: s.mode, api_root: s.apiRoot }, msg: 'telegram account on' };
});
