/**
 * The Feishu / Lark channel part 2; docs/adapter-authoring.md: `feishuChannel` builds
 * one adapter per configured account (`.env` block `FEISHU_*` = account `default`, more in
 * `skillgate.config.yaml`). Keys (env name without `FEISHU_`, lower-cased): `app_id`,
 * `app_secret` (required), `encrypt_key`, `verification_token`, `domain` (any base URL; default
 * https://open.feishu.cn), `mode` (`webhook` | `ws`; default `ws` when neither an encrypt key
 * nor a verification token is set), `bot_open_id` (optional; else GET /open-apis/bot/v3/info),
 * `bot_user_id` / `bot_union_id` (optional: mentions naming the bot only by those),
 * `at_all_addresses_bot` (optional, default false: whether `@_all` addresses the bot).
 *
 * Inbound: webhook (`handleWebhook`, verified here on the raw body) or the SDK's long connection
 * (`start`). Outbound: `send` through the SDK client (cards for markdown, uploads first).
 */
import * as lark from '@larksuiteoapi/node-sdk';
import {
  type AdapterCapabilities,
  type AdapterHost,
  type ChannelAccount,
  type ChannelFactory,
  type FetchedAttachment,
  type InboundAttachment,
  type InboundMessage,
  type OutboundMessage,
  type OutboundTarget,
  perAccountChannel,
  requireSetting,
  type SendResult,
  setting,
  settingError,
  settingName,
  type WebhookAdapter,
  webhookPath,
  type WebhookRequest,
  type WebhookResponse,
} from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { createFeishuClient, createLookups } from './api.ts';
import type { FeishuBotIds, FeishuLookups } from './inbound.ts';
import { sendFeishu, type SendOptions } from './outbound.ts';
import { fetchResource } from './resource.ts';
import { handleFeishuWebhook } from './transport-webhook.ts';
import { startWsTransport, type WsTransport } from './transport-ws.ts';

export { handleFeishuWebhook } from './transport-webhook.ts';
export { eventSignature, encryptEvent, decryptEvent } from './verify.ts';

/** Default Open API base (`lark.Domain.Feishu`). */
export const FEISHU_DEFAULT_DOMAIN = 'https://open.feishu.cn';

/**
 * Capabilities: rich (cards), buttons, media. `max_length` (UTF-8 bytes) sizes the core's bound
 * of a reply; the adapter splits once, after rendering, to the request-body limits.
 */
export const FEISHU_CAPABILITIES: AdapterCapabilities = {
  display: 'rich',
  buttons: true,
  max_length: 16_000,
  length_unit: 'bytes',
  typing: false,
  media: true,
};

/** Settings of one Feishu account. */
export interface FeishuAdapterOptions {
  account: string;
  appId: string;
  appSecret: string;
  encryptKey?: string;
  verificationToken?: string;
  /** Any base URL (default {@link FEISHU_DEFAULT_DOMAIN}). */
  domain?: string;
  mode: 'webhook' | 'ws';
  botOpenId?: string;
  /** The bot's user_id / union_id, for mentions that name it only by those. */
  botIds?: FeishuBotIds;
  /** `@_all` addresses the bot (default false). */
  atAllAddressesBot?: boolean;
  log: Logger;
  /** ms since the epoch (replay window; tests inject one). */
  now?: () => number;
  /** Lookups override (tests); default: the contact/bot/chat APIs through the SDK client. */
  lookups?: FeishuLookups;
  /** Native tables per card. */
  tableLimit?: number;
}

/** A Feishu adapter: webhook receiver, long-connection receiver, sender. */
export interface FeishuAdapter extends WebhookAdapter {
  readonly channel: 'feishu';
  readonly mode: 'webhook' | 'ws';
  /** Deliver one message; `opts.idempotencyKey` = the outbox row's key when the caller has one. */
  send(target: OutboundTarget, message: OutboundMessage, opts?: SendOptions): Promise<SendResult>;
}

export { UNSUPPORTED_NOTICE } from './dispatch.ts';

/** Create the adapter of one account. */
export function createFeishuAdapter(o: FeishuAdapterOptions): FeishuAdapter {
  const domain = (o.domain ?? FEISHU_DEFAULT_DOMAIN).replace(/\/+$/, '');
  const client = createFeishuClient({ appId: o.appId, appSecret: o.appSecret, domain, log: o.log });
  const look = o.lookups ?? createLookups(client, { botOpenId: o.botOpenId });
  const now = o.now ?? Date.now;
  const inbound = { bot: o.botIds, atAllAddressesBot: o.atAllAddressesBot };
  let ws: WsTransport | undefined;

  const adapter: FeishuAdapter = {
    channel: 'feishu',
    account: o.account,
    mode: o.mode,
    // Feishu splits events between an app's connections: one replica holds it (docs/operations-delivery.md).
    longConnection: o.mode === 'ws' ? {} : null,
    capabilities: FEISHU_CAPABILITIES,
    // Every part carries `uuid` (adapters/feishu/outbound.ts): Feishu drops a repeated one.
    sendIdempotency: 'platform_key',
    send: (target, message, opts) => sendFeishu({ client, log: o.log, tableLimit: o.tableLimit }, target, message, opts),
    fetchAttachment: (att: InboundAttachment, _msg: InboundMessage): Promise<FetchedAttachment> => fetchResource(client, att),
    handleWebhook: (req: WebhookRequest, host: AdapterHost): Promise<WebhookResponse> =>
      handleFeishuWebhook(req, host, {
        account: o.account,
        look,
        log: o.log,
        inbound,
        encryptKey: o.encryptKey,
        verificationToken: o.verificationToken,
        now,
      }),
    async start(host: AdapterHost): Promise<void> {
      if (o.mode !== 'ws' || ws) return;
      ws = await startWsTransport({ account: o.account, look, log: o.log, inbound, appId: o.appId, appSecret: o.appSecret, domain }, host);
    },
    async stop(): Promise<void> {
      ws?.close();
      ws = undefined;
    },
  };

  return adapter;
}

/** Options of one account from its settings. @throws ConfigError naming the missing key */
export function feishuOptions(a: ChannelAccount, log: Logger, now?: () => Date): FeishuAdapterOptions {
  const v = a.values;
  const appId = requireSetting(a, 'app_id');
  const appSecret = requireSetting(a, 'app_secret');
  const encryptKey = setting(a, 'encrypt_key') || undefined;
  const verificationToken = setting(a, 'verification_token') || undefined;
  const mode = (setting(a, 'mode') || (encryptKey || verificationToken ? 'webhook' : 'ws')).toLowerCase();
  if (mode !== 'webhook' && mode !== 'ws') throw settingError(a, 'mode', `${settingName(a, 'mode')} must be webhook or ws`);
  if (mode === 'webhook' && !encryptKey && !verificationToken) {
    throw settingError(
      a,
      'verification_token',
      `webhook mode needs ${settingName(a, 'verification_token')} or ${settingName(a, 'encrypt_key')}`,
    );
  }
  const domain = v.domain === 'lark' ? lark.Domain.Lark : v.domain === 'feishu' ? lark.Domain.Feishu : v.domain;
  return {
    account: a.id,
    appId,
    appSecret,
    encryptKey,
    verificationToken,
    domain: typeof domain === 'string' && domain !== '' ? domain : FEISHU_DEFAULT_DOMAIN,
    mode,
    botOpenId: v.bot_open_id || undefined,
    botIds: { user_id: v.bot_user_id || undefined, union_id: v.bot_union_id || undefined },
    atAllAddressesBot: /^(1|true|yes|on)$/i.test(String(v.at_all_addresses_bot ?? '')),
    log: log.child({ channel: 'feishu', account: a.id }),
    now: now ? () => now().getTime() : undefined,
  };
}

/** The channel factory (registered in `adapters/index.ts`). */
export const feishuChannel: ChannelFactory = perAccountChannel('feishu', 'app_id', (a, ctx) => {
  const adapter = createFeishuAdapter(feishuOptions(a, ctx.log, ctx.now));
  const ws = adapter.mode === 'ws';
  return {
    adapter,
    report: { mode: adapter.mode, webhook: ws ? undefined : webhookPath('feishu', a.id) },
    msg: `feishu account ${a.id} on (${ws ? 'long connection' : 'webhook'})`,
  };
});
