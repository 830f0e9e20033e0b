/**
 * The Discord channel (discord.js 14.28). One adapter per account (`.env` DISCORD_*
 * block = account `default`, more in `skillgate.config.yaml` `accounts:`; config key `token`
 * is an alias of `bot_token`). Messages arrive over the gateway (transport-gateway.ts); button
 * presses over the gateway too, or over the HTTP interactions endpoint
 * `POST /webhooks/discord/<account>` when `public_key` is set (Ed25519, verify.ts). Sending uses
 * REST (outbound.ts). `api_root` (DISCORD_API_ROOT, including `/api`) points REST — and so the
 * gateway URL lookup — at another server (tests: a loopback fake).
 * Settings: `bot_token`, `api_root`, `message_content` (`on` default | `off` = mention-only mode
 * without the privileged intent), `public_key`, `max_retry_delay_s` (default 5).
 */
import type { KeyObject } from 'node:crypto';
import { Routes, type REST } from 'discord.js';
import {
  type AdapterCapabilities,
  type AdapterHost,
  apiRootSetting,
  type CallbackPayloads,
  type ChannelAccount,
  type ChannelFactory,
  createCallbackPayloads,
  type FetchedAttachment,
  type InboundAttachment,
  Lazy,
  numberSetting,
  type OutboundMessage,
  type OutboundTarget,
  perAccountChannel,
  type Queryable,
  requireSetting,
  type SendOptions,
  type SendResult,
  setting,
  settingError,
  storableCopy,
  type WebhookAdapter,
  type WebhookRequest,
  type WebhookResponse,
} from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { normalizeDispatch, normalizeInteraction, type BotIdentity, type Normalized } from './inbound.ts';
import { createRest, failureOf, sendDiscord } from './outbound.ts';
import { expiredButtonText } from './texts.ts';
import { SessionKeeper } from './session.ts';
import { connectGateway, type Gateway } from './transport-gateway.ts';
import { publicKeyFromHex, verifyInteractionRequest } from './verify.ts';
import {
  CALLBACK_DEFERRED_UPDATE,
  CALLBACK_MESSAGE,
  CALLBACK_PONG,
  DEFAULT_API_ROOT,
  FLAG_EPHEMERAL,
  INTERACTION_PING,
  TEXT_LIMIT,
} from './wire.ts';

/** Settings of one Discord account. */
export interface DiscordSettings {
  account: string;
  token: string;
  /** REST root including `/api`. */
  apiRoot: string;
  /** Ask for the privileged MessageContent intent (false = mention-only mode). */
  messageContent: boolean;
  /** The application's Ed25519 public key (hex) for the HTTP interactions endpoint, or null (endpoint off). */
  publicKey: string | null;
  /** Longest 429 wait REST sits out, ms; longer ones go to the outbox. */
  maxRetryDelayMs: number;
}

/** What the adapter uses besides its settings. */
export interface DiscordDeps {
  db: Queryable;
  log: Logger;
  now?: () => Date;
  /** Our bot user when known (tests); otherwise from READY or `GET /users/@me`. */
  botInfo?: BotIdentity;
}

/**
 * Read one account's settings.
 * @throws ConfigError naming the key when the token is missing, message_content is not on/off,
 *   or the public key is not 64 hex characters.
 */
export function discordSettings(a: ChannelAccount): DiscordSettings {
  const token = requireSetting(a, 'bot_token', { aliases: ['token'], problem: 'the bot token is missing' });
  const mc = (setting(a, 'message_content') || 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(mc)) throw settingError(a, 'message_content', 'message_content must be on or off');
  const publicKey = setting(a, 'public_key') || null;
  if (publicKey !== null && !/^[0-9a-fA-F]{64}$/.test(publicKey))
    throw settingError(a, 'public_key', 'the public key must be 64 hex characters');
  return {
    account: a.id,
    token,
    apiRoot: apiRootSetting(a, 'api_root', DEFAULT_API_ROOT),
    messageContent: ['on', 'true', '1'].includes(mc),
    publicKey,
    maxRetryDelayMs: numberSetting(a, 'max_retry_delay_s', 5) * 1000,
  };
}

/** One Discord bot account. */
export class DiscordAdapter implements WebhookAdapter {
  readonly channel = 'discord';
  readonly account: string;
  readonly capabilities: AdapterCapabilities = {
    display: 'rich',
    buttons: true,
    max_length: TEXT_LIMIT,
    length_unit: 'utf16',
    typing: true,
    media: true,
  };
  /** Every post carries `nonce` + `enforce_nonce` (adapters/discord/outbound.ts `partNonce`). */
  readonly sendIdempotency = 'platform_key' as const;
  readonly rest: REST;
  /** The gateway is one shard (0) per account, owned by one replica (docs/operations-delivery.md). */
  readonly longConnection = { shard: '0' };
  readonly #s: DiscordSettings;
  readonly #d: DiscordDeps;
  readonly #payloads: CallbackPayloads;
  readonly #now: () => Date;
  readonly #key: KeyObject | null;
  readonly #bot: Lazy<BotIdentity>;
  #gateway: Gateway | undefined;

  constructor(settings: DiscordSettings, deps: DiscordDeps) {
    this.account = settings.account;
    this.#s = settings;
    this.#d = deps;
    this.#now = deps.now ?? (() => new Date());
    this.rest = createRest(settings.token, settings.apiRoot, settings.maxRetryDelayMs);
    this.#payloads = createCallbackPayloads(deps.db, 'discord', settings.account, this.#now);
    this.#key = settings.publicKey ? publicKeyFromHex(settings.publicKey) : null;
    this.#bot = new Lazy(
      () =>
        (this.rest.get(Routes.user('@me')) as Promise<{ id: string; username: string }>).then((u) => ({ id: u.id, username: u.username })),
      deps.botInfo,
    );
  }

  /** Our bot user (READY, else `GET /users/@me` once; retried on the next call after a failure). */
  bot(): Promise<BotIdentity> {
    return this.#bot.get();
  }

  /**
   * Connect to the gateway, resuming the stored session when the host keeps one
   * (adapters/discord/session.ts). @throws the login error (logged with the intent fix when it is 4014). */
  async start(host: AdapterHost): Promise<void> {
    const log = this.#d.log.child({ channel: 'discord', account: this.account });
    this.#gateway = await connectGateway({
      token: this.#s.token,
      apiRoot: this.#s.apiRoot,
      messageContent: this.#s.messageContent,
      log,
      session: host.connectionState
        ? new SessionKeeper({ state: host.connectionState, shardId: Number(this.longConnection.shard), log })
        : undefined,
      onReady: (u) => this.#bot.set(u),
      onDispatch: (frame) => this.processDispatch(frame, host),
    });
  }

  async stop(): Promise<void> {
    await this.#gateway?.stop();
    this.#gateway = undefined;
  }

  /**
   * The HTTP interactions endpoint: Ed25519-verified, PING answered with PONG, button presses
   * answered inline (deferred update; an expired button gets an ephemeral notice). 404 when the
   * account has no public key.
   */
  async handleWebhook(req: WebhookRequest, host: AdapterHost): Promise<WebhookResponse> {
    if (!this.#key) return { status: 404, body: 'interactions endpoint not enabled for this account' };
    const v = verifyInteractionRequest(req, this.#key, this.#now());
    if (!v.ok) return v.response;
    const body = v.body as { type?: unknown };
    if (body.type === INTERACTION_PING) return { status: 200, body: { type: CALLBACK_PONG } };
    const n = normalizeInteraction(body, this.account, this.#now());
    return { status: 200, body: await this.#handle(n, host, 'inline') };
  }

  /**
   * Handle one gateway dispatch frame `{op, t, s, d}` (the gateway transport calls this; tests
   * call it with fixtures). Button presses are answered over REST. Never throws for bad input.
   * @throws when the host could not store the event.
   */
  async processDispatch(frame: unknown, host: AdapterHost): Promise<void> {
    const t = (frame as { t?: unknown })?.t;
    if (t !== 'MESSAGE_CREATE' && t !== 'INTERACTION_CREATE') return;
    const n = normalizeDispatch(frame, this.account, await this.bot(), this.#now());
    await this.#handle(n, host, 'rest');
  }

  /** Hand a normalized event to the host; answer an interaction inline (returned) or over REST. */
  async #handle(n: Normalized, host: AdapterHost, answer: 'inline' | 'rest'): Promise<Record<string, unknown>> {
    let reply: Record<string, unknown> = { type: CALLBACK_DEFERRED_UPDATE };
    if (n.type === 'message') await host.receive(storableCopy(n.msg));
    else if (n.type === 'callback') {
      const msg = n.build(await this.#payloads.decode(n.customId));
      if (!msg) reply = { type: CALLBACK_MESSAGE, data: { content: expiredButtonText(n.lang), flags: FLAG_EPHEMERAL } };
      else await host.receive(storableCopy(msg));
    } else this.#d.log.debug({ reason: n.reason }, 'discord: event ignored');
    const interaction = n.type === 'message' ? undefined : n.interaction;
    if (interaction && answer === 'rest') {
      this.rest
        .post(Routes.interactionCallback(interaction.id, interaction.token), { body: reply, auth: false })
        .catch((err: unknown) => this.#d.log.warn({ err: failureOf(err).description }, 'discord: interaction callback failed'));
    }
    return reply;
  }

  send(target: OutboundTarget, message: OutboundMessage, opts?: SendOptions): Promise<SendResult> {
    return sendDiscord({ rest: this.rest, payloads: this.#payloads, now: this.#now }, target, message, opts);
  }

  async typing(target: OutboundTarget): Promise<void> {
    await this.rest.post(Routes.channelTyping(target.chat_id)).catch(() => undefined);
  }

  /**
   * Download an attachment from its signed CDN URL (`platform_ref.url`; the link expires, so the
   * core fetches promptly). @throws Error when the URL is missing or the download fails.
   */
  async fetchAttachment(att: InboundAttachment): Promise<FetchedAttachment> {
    const url = att.platform_ref.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new Error('discord attachment without a url');
    const res = await fetch(url);
    if (!res.ok) throw new Error(`discord attachment download failed: HTTP ${res.status}`);
    return {
      data: Buffer.from(await res.arrayBuffer()),
      filename: att.filename,
      mime_type: att.mime_type ?? res.headers.get('content-type'),
    };
  }
}

/** Build the adapter of one account. */
export function createDiscordAdapter(settings: DiscordSettings, deps: DiscordDeps): DiscordAdapter {
  return new DiscordAdapter(settings, deps);
}

/** The Discord channel factory (register it in adapters/index.ts). Off when no account is configured. */
export const discordChannel: ChannelFactory = perAccountChannel('discord', 'bot_token', (a, ctx) => {
  const s = discordSettings(a);
  const adapter = createDiscordAdapter(s, { db: ctx.db, log: ctx.log, now: ctx.now });
  return {
    adapter,
    report: { api_root: s.apiRoot, message_content: s.messageContent, interactions_endpoint: s.publicKey !== null },
    msg: 'discord account on',
  };
});
