/**
 * The DingTalk channel (docs/adapter-authoring.md): the enterprise-internal
 * robot in HTTP outgoing-callback mode. `dingtalkChannel` builds one adapter per configured
 * account (`.env` block `DINGTALK_*` = account `default`, more in `skillgate.config.yaml`).
 * Keys (env name without `DINGTALK_`, lower-cased): `app_key`, `app_secret` (required),
 * `robot_code` (default: the app key, which is the robot code of an internal app's robot),
 * `api_root` (default https://api.dingtalk.com), `oapi_root` (default https://oapi.dingtalk.com).
 *
 * Inbound: `handleWebhook` (transport-webhook.ts; verified on the raw request). Outbound: `send`
 * (outbound.ts: session webhook, then the Open API). Attachments: download codes exchanged for
 * a short-lived URL, then fetched.
 */
import {
  type AdapterCapabilities,
  type ChannelAccount,
  type ChannelFactory,
  type ChannelFactoryContext,
  createCallbackPayloads,
  createReplayGuard,
  type FetchedAttachment,
  type InboundAttachment,
  type InboundMessage,
  perAccountChannel,
  type Queryable,
  requireSetting,
  setting,
  type WebhookAdapter,
  webhookPath,
} from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { createDingtalkApi } from './api.ts';
import { DINGTALK_TEXT_LIMIT, sendDingtalk } from './outbound.ts';
import { SessionBook } from './sessions.ts';
import { handleDingtalkWebhook } from './transport-webhook.ts';

export { callbackSign, checkCallbackHeaders } from './verify.ts';

/** Default new API root. */
export const DINGTALK_DEFAULT_API_ROOT = 'https://api.dingtalk.com';
/** Default old API root (media upload, session webhooks). */
export const DINGTALK_DEFAULT_OAPI_ROOT = 'https://oapi.dingtalk.com';

/**
 * Capabilities: rich (DingTalk markdown, D-22), buttons (as `dtmd` send-message links, see
 * outbound.ts), media; 4000 code points per message (no documented maximum).
 */
export const DINGTALK_CAPABILITIES: AdapterCapabilities = {
  display: 'rich',
  buttons: true,
  max_length: DINGTALK_TEXT_LIMIT,
  length_unit: 'chars',
  typing: false,
  media: true,
};

export { UNSUPPORTED_NOTICE } from './transport-webhook.ts';

/** Settings of one DingTalk account. */
export interface DingtalkAdapterOptions {
  account: string;
  appKey: string;
  appSecret: string;
  robotCode: string;
  apiRoot?: string;
  oapiRoot?: string;
  /** Callback payload store (button references). */
  db: Queryable;
  log: Logger;
  /** Wall clock, ms (replay window, token and session-webhook expiry; tests inject one). */
  now?: () => number;
}

/** Create the adapter of one account. */
export function createDingtalkAdapter(o: DingtalkAdapterOptions): WebhookAdapter {
  const now = o.now ?? Date.now;
  const oapiRoot = (o.oapiRoot ?? DINGTALK_DEFAULT_OAPI_ROOT).replace(/\/+$/, '');
  const api = createDingtalkApi({
    apiRoot: o.apiRoot ?? DINGTALK_DEFAULT_API_ROOT,
    oapiRoot,
    appKey: o.appKey,
    appSecret: o.appSecret,
    now,
  });
  const book = new SessionBook();
  const payloads = createCallbackPayloads(o.db, 'dingtalk', o.account, () => new Date(now()));
  const replays = createReplayGuard(o.db, 'dingtalk', o.account, now);
  const deps = { api, robotCode: o.robotCode, book, payloads, now, log: o.log };

  const adapter: WebhookAdapter = {
    channel: 'dingtalk',
    account: o.account,
    capabilities: DINGTALK_CAPABILITIES,
    send: (target, message, opts) => sendDingtalk(deps, target, message, opts),
    async fetchAttachment(att: InboundAttachment, _msg: InboundMessage): Promise<FetchedAttachment> {
      const code = att.platform_ref.download_code;
      if (typeof code !== 'string' || code === '') throw new Error('dingtalk attachment without a download code');
      const link = await api.postNew<{ downloadUrl?: string }>('/v1.0/robot/messageFiles/download', {
        downloadCode: code,
        robotCode: o.robotCode,
      });
      if (!link.ok) throw new Error(link.error);
      if (typeof link.value.downloadUrl !== 'string') throw new Error('dingtalk messageFiles/download answer without downloadUrl');
      const got = await api.getBytes(link.value.downloadUrl);
      if (!got.ok) throw new Error(got.error);
      return { data: got.value.data, filename: att.filename ?? got.value.filename, mime_type: got.value.mime };
    },
    handleWebhook: (req, host) =>
      handleDingtalkWebhook(req, host, {
        account: o.account,
        appSecret: o.appSecret,
        now,
        log: o.log,
        book,
        oapiRoot,
        payloads,
        replays,
      }),
  };
  return adapter;
}

/** Options of one account from its settings. @throws ConfigError naming the missing key */
export function dingtalkOptions(a: ChannelAccount, ctx: Pick<ChannelFactoryContext, 'db' | 'log' | 'now'>): DingtalkAdapterOptions {
  const appKey = requireSetting(a, 'app_key');
  const appSecret = requireSetting(a, 'app_secret');
  const now = ctx.now;
  return {
    account: a.id,
    appKey,
    appSecret,
    robotCode: setting(a, 'robot_code') || appKey,
    apiRoot: setting(a, 'api_root') || DINGTALK_DEFAULT_API_ROOT,
    oapiRoot: setting(a, 'oapi_root') || DINGTALK_DEFAULT_OAPI_ROOT,
    db: ctx.db,
    log: ctx.log.child({ channel: 'dingtalk', account: a.id }),
    now: now ? () => now().getTime() : undefined,
  };
}

/** The channel factory (registered in `adapters/index.ts`). */
export const dingtalkChannel: ChannelFactory = perAccountChannel('dingtalk', 'app_key', (a, ctx) => ({
  adapter: createDingtalkAdapter(dingtalkOptions(a, ctx)),
  report: { webhook: webhookPath('dingtalk', a.id) },
  msg: `dingtalk account ${a.id} on (robot callback webhook)`,
}));
