/**
 * The WeCom (企业微信) self-built app channel (docs/adapter-authoring.md):
 * `wecomChannel` builds one adapter per configured account (`.env` block `WECOM_*` = account
 * `default`, more in `skillgate.config.yaml`). Keys (env name without `WECOM_`, lower-cased):
 * `corp_id`, `agent_id`, `secret`, `token`, `aes_key` (the 43-character EncodingAESKey) — all
 * required — and `api_root` (default https://qyapi.weixin.qq.com).
 *
 * Inbound: the callback URL `/webhooks/wecom[/<account>]` (`GET` URL verification, `POST`
 * encrypted XML; `handleWebhook`). Outbound: `message/send` as plain text (display `text`),
 * 2048-byte chunks, media uploaded first, confirmations as button cards.
 */
import {
  type AdapterCapabilities,
  type ChannelAccount,
  type ChannelFactory,
  createCallbackPayloads,
  type Db,
  type FetchedAttachment,
  type InboundAttachment,
  type InboundMessage,
  perAccountChannel,
  requireSetting,
  setting,
  settingError,
  settingName,
  type WebhookAdapter,
  webhookPath,
} from '../../src/channel/index.ts';
import { wecomAesKey } from './crypto.ts';
import type { Logger } from '../../src/log/logger.ts';
import { WecomApi } from './api.ts';
import { sendWecom } from './outbound.ts';
import { handleWecomWebhook } from './transport-webhook.ts';
import { TEXT_LIMIT_BYTES, WECOM_DEFAULT_API_ROOT } from './wire.ts';

export { WecomApi, WecomApiError } from './api.ts';

/** Text-only display (docs/results.md), button cards, media; limits in UTF-8 bytes. */
export const WECOM_CAPABILITIES: AdapterCapabilities = {
  display: 'text',
  buttons: true,
  max_length: TEXT_LIMIT_BYTES,
  length_unit: 'bytes',
  typing: false,
  media: true,
};

export { UNSUPPORTED_NOTICE } from './transport-webhook.ts';

/** Settings of one WeCom account. */
export interface WecomAdapterOptions {
  account: string;
  corpId: string;
  agentId: string;
  secret: string;
  /** Callback Token. */
  token: string;
  /** EncodingAESKey (43 characters). */
  aesKey: string;
  /** Default {@link WECOM_DEFAULT_API_ROOT}. */
  apiRoot?: string;
  db: Db;
  log: Logger;
  /** Wall clock (replay window, token expiry, button references); tests inject one. */
  now?: () => Date;
}

/** A WeCom adapter. */
export interface WecomAdapter extends WebhookAdapter {
  readonly channel: 'wecom';
  /** The API client (token cache). */
  readonly api: WecomApi;
}

const NAME_TTL_MS = 3600_000;
const NAME_CACHE_MAX = 2000;

/** Create the adapter of one account. @throws RangeError when the AES key is malformed */
export function createWecomAdapter(o: WecomAdapterOptions): WecomAdapter {
  const now = o.now ?? (() => new Date());
  const key = wecomAesKey(o.aesKey);
  const api = new WecomApi({
    corpId: o.corpId,
    secret: o.secret,
    apiRoot: (o.apiRoot ?? WECOM_DEFAULT_API_ROOT).replace(/\/+$/, ''),
    now: () => now().getTime(),
  });
  const payloads = createCallbackPayloads(o.db, 'wecom', o.account, now);
  const names = new Map<string, { name: string; at: number }>();

  async function displayName(userId: string): Promise<string> {
    const hit = names.get(userId);
    if (hit && now().getTime() - hit.at < NAME_TTL_MS) return hit.name;
    const name = await api.userName(userId);
    if (name === null) return hit?.name ?? '';
    if (names.size >= NAME_CACHE_MAX) names.delete(names.keys().next().value as string);
    names.set(userId, { name, at: now().getTime() });
    return name;
  }

  const adapter: WecomAdapter = {
    channel: 'wecom',
    account: o.account,
    capabilities: WECOM_CAPABILITIES,
    api,
    send: (target, message, opts) => sendWecom({ api, agentId: o.agentId, payloads, now }, target, message, opts),
    async fetchAttachment(att: InboundAttachment, _msg: InboundMessage): Promise<FetchedAttachment> {
      const mediaId = att.platform_ref.media_id;
      if (typeof mediaId !== 'string' || mediaId === '') throw new Error('wecom attachment without media_id');
      const got = await api.getMedia(mediaId);
      return { data: got.data, filename: att.filename ?? got.filename, mime_type: got.mimeType ?? att.mime_type ?? null };
    },
    handleWebhook: (req, host) =>
      handleWecomWebhook(req, host, {
        account: o.account,
        token: o.token,
        key,
        corpId: o.corpId,
        now: () => now().getTime(),
        displayName,
        payloads,
      }),
  };
  return adapter;
}

/** Options of one account from its settings. @throws ConfigError naming the missing or malformed key */
export function wecomOptions(a: ChannelAccount, db: Db, log: Logger, now?: () => Date): WecomAdapterOptions {
  const [corpId, agentId, secret, token, aesKey] = ['corp_id', 'agent_id', 'secret', 'token', 'aes_key'].map((k) => requireSetting(a, k));
  try {
    wecomAesKey(aesKey!);
  } catch {
    throw settingError(a, 'aes_key', `${settingName(a, 'aes_key')} must be the 43-character EncodingAESKey`);
  }
  return {
    account: a.id,
    corpId: corpId!,
    agentId: agentId!,
    secret: secret!,
    token: token!,
    aesKey: aesKey!,
    apiRoot: setting(a, 'api_root') || WECOM_DEFAULT_API_ROOT,
    db,
    log: log.child({ channel: 'wecom', account: a.id }),
    now,
  };
}

/** The channel factory (registered in `adapters/index.ts`). */
export const wecomChannel: ChannelFactory = perAccountChannel('wecom', 'corp_id', (a, ctx) => ({
  adapter: createWecomAdapter(wecomOptions(a, ctx.db, ctx.log, ctx.now)),
  report: { webhook: webhookPath('wecom', a.id) },
  msg: `wecom account ${a.id} on (callback URL)`,
}));
