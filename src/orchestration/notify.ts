/**
 * The built-in `notify` skill (R-MSG-01..08, A-23; docs/messaging.md): one-way delivery through
 * the Apprise API, THROUGH THE OUTBOX.
 *
 * - `target`: an admin-configured alias (`skillgate notify target add ops …`) or a bare Apprise URL;
 * - `message` (required), `title`, `type` (info|success|warning|failure), `format`, `attach`
 *   (files in the session workspace, sent as multipart);
 * - the notification is one outbox row (channel `notify`, account `default`) with one
 *   idempotency key (the caller's `idempotency_key`, else a fresh one per call): delivered at
 *   least once, a repeated key is stored once;
 * - the call waits a bounded time for the row; the result's truth is `sent` (A-23: `ok`
 *   equals it). A failure is `sent: false` with the Apprise API's reason, never a throw.
 *
 * The outbox reaches the Apprise API through {@link createNotifyAdapter}, the adapter of the
 * pseudo channel `notify` (the gateway registers it with the others when APPRISE_API_URL is set).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ChannelAdapter, OutboundMessage, OutboundTarget, SendOptions, SendResult } from '../channel/types.ts';
import type { Dispatcher } from 'undici';
import { sendToApprise, type AppriseRequest, type AppriseType } from './apprise-client.ts';
import { checkAttachments } from './attach-files.ts';
import { awaitDelivery, DEFAULT_DELIVERY_WAIT_MS, langOf, messagingOf } from './messaging.ts';
import { resolveNotifyTarget, type NotifyDestination } from './notify-targets.ts';

/** The pseudo channel of Apprise notifications in the outbox. */
export const NOTIFY_CHANNEL = 'notify';
/** Its one account. */
export const NOTIFY_ACCOUNT = 'default';

/** An outbox message of the notify channel: the Apprise request rides along (plain JSON). */
export interface NotifyOutboundMessage extends OutboundMessage {
  apprise: AppriseRequest;
}

/**
 * The adapter the outbox sends `notify` rows through: it posts the row's Apprise request to
 * the Apprise API (see apprise-client.ts for status → retry rules).
 */
export function createNotifyAdapter(opts: { baseUrl: string; timeoutMs?: number; dispatcher?: Dispatcher }): ChannelAdapter {
  return {
    channel: NOTIFY_CHANNEL,
    account: NOTIFY_ACCOUNT,
    capabilities: { display: 'text', buttons: false, max_length: 1_000_000, length_unit: 'chars', typing: false, media: true },
    async send(_target: OutboundTarget, message: OutboundMessage, sendOpts?: SendOptions): Promise<SendResult> {
      const stored = (message as Partial<NotifyOutboundMessage>).apprise;
      if (!stored || typeof stored !== 'object')
        return { ok: false, retryable: false, error: 'not a notify message (no Apprise request)', code: 'bad_message' };
      // Apprise has no idempotency key: a resend after an unknown outcome shows the marker.
      const req = sendOpts?.resendMarker ? { ...stored, body: `${sendOpts.resendMarker}${stored.body}` } : stored;
      return sendToApprise(req, { baseUrl: opts.baseUrl, timeoutMs: opts.timeoutMs, dispatcher: opts.dispatcher });
    },
  };
}

const TYPES = new Set<AppriseType>(['info', 'success', 'warning', 'failure']);

const T = {
  'zh-CN': {
    unavailable: '通知服务不可用（本进程没有投递队列）。',
    no_apprise: '通知未配置：请设置 APPRISE_API_URL（Apprise API 地址）。',
    no_message: '缺少 message（通知内容）。',
    no_target: '缺少 target：填管理员配置的通知别名（如 ops）或 Apprise URL。',
    unknown_target: (t: string, known: string[]) =>
      `没有名为「${t}」的通知目标${known.length ? `；可用：${known.join('、')}` : '；请管理员先用 skillgate notify target add 配置'}。`,
    sent: (l: string) => `已通知 ${l}。`,
    failed: (l: string, why: string) => `通知 ${l} 失败：${why}`,
    retrying: (l: string, why: string) => `通知 ${l} 暂未送达（${why}），系统会自动重试。`,
    queued: (l: string) => `通知 ${l} 已排队，尚未确认送达。`,
    store_failed: (why: string) => `通知未能入队：${why}`,
  },
  en: {
    unavailable: 'Notifications are not available here (no outbox in this process).',
    no_apprise: 'Notifications are not configured: set APPRISE_API_URL (the Apprise API URL).',
    no_message: 'message (the notification text) is missing.',
    no_target: 'target is missing: an alias the admin configured (e.g. ops) or an Apprise URL.',
    unknown_target: (t: string, known: string[]) =>
      `No notify target named "${t}"${known.length ? `; known: ${known.join(', ')}` : '; an admin adds one with skillgate notify target add'}.`,
    sent: (l: string) => `Notified ${l}.`,
    failed: (l: string, why: string) => `Notifying ${l} failed: ${why}`,
    retrying: (l: string, why: string) => `Notifying ${l} has not succeeded yet (${why}); it will be retried.`,
    queued: (l: string) => `The notification to ${l} is queued, not yet confirmed.`,
    store_failed: (why: string) => `The notification could not be queued: ${why}`,
  },
};

function refusal(error: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ok: false, sent: false, status: 'failed', error, user_message: error, error_type: 'recoverable', ...extra };
}

/** The outbox chat id of a destination: the alias, or a hash of the URLs (URLs may hold secrets). */
function chatIdOf(target: string, d: NotifyDestination, isAlias: boolean): string {
  if (isAlias) return `alias:${target}`;
  const material = d.kind === 'urls' ? d.urls.join(' ') : `${d.key}:${d.tag ?? ''}`;
  return `url:${createHash('sha256').update(material).digest('hex').slice(0, 16)}`;
}

/**
 * Run `notify` for a skill call. Never throws.
 * @returns `{ok, sent, status: 'sent'|'queued'|'failed', target, outbox_id?, error?, retrying?, user_message}`
 */
export async function runNotify(input: Record<string, unknown>, ctx: Record<string, unknown>): Promise<Record<string, unknown>> {
  const lang = langOf(input, ctx);
  const t = T[lang];
  const m = messagingOf(ctx);
  if (!m) return refusal(t.unavailable, { error_type: 'config', non_retriable: true });
  if (!m.adapterFor(NOTIFY_CHANNEL, NOTIFY_ACCOUNT)) return refusal(t.no_apprise, { error_type: 'config', non_retriable: true });
  const message = typeof input.message === 'string' ? input.message : '';
  if (message.trim() === '' && !input.attach) return refusal(t.no_message, { need_param: 'message' });
  const target = typeof input.target === 'string' ? input.target.trim() : '';
  if (!target) return refusal(t.no_target, { need_param: 'target' });

  try {
    const resolved = await resolveNotifyTarget(m.db, target);
    if ('unknown' in resolved) return refusal(t.unknown_target(target, resolved.unknown));
    const files = checkAttachments(input.attach, String(ctx.workspace_dir ?? ''), m.attachmentRoots ?? [], lang);
    if ('error' in files) return refusal(files.error);
    const d = resolved.destination;
    const type = typeof input.type === 'string' && TYPES.has(input.type as AppriseType) ? (input.type as AppriseType) : 'info';
    const format = input.format === 'text' || input.format === 'html' ? input.format : 'markdown';
    const apprise: AppriseRequest = {
      ...(d.kind === 'urls' ? { urls: d.urls } : { key: d.key, tag: d.tag }),
      ...(typeof input.title === 'string' && input.title.trim() ? { title: input.title.trim() } : {}),
      body: message,
      type,
      format,
      ...(files.files.length ? { attach: files.files.map((f) => ({ path: f.path, filename: f.filename })) } : {}),
    };
    const outbound: NotifyOutboundMessage = {
      kind: 'notice',
      text: message,
      format: format === 'text' ? 'plain' : 'markdown',
      media: files.files.map((f) => ({ kind: f.kind, path: f.path, filename: f.filename, mime_type: f.mime_type, size: f.size })),
      final: true,
      apprise,
    };
    const key = typeof input.idempotency_key === 'string' && input.idempotency_key.trim() ? input.idempotency_key.trim() : randomUUID();
    const [id] = await m.outbox.enqueue(m.db, [
      {
        target: { channel: NOTIFY_CHANNEL, account: NOTIFY_ACCOUNT, chat_id: chatIdOf(target, d, resolved.label === target) },
        message: outbound,
        idempotency_key: `notify:${key}`,
        origin: { skill: 'notify', target: resolved.label, session_id: String(ctx.session_id ?? '') },
      },
    ]);
    const outcome = await awaitDelivery(m.outbox, id!, m.waitMs ?? DEFAULT_DELIVERY_WAIT_MS);
    const base = { target: resolved.label, outbox_id: id, status: outcome.status, attachments: files.files.length };
    if (outcome.status === 'sent') return { ok: true, sent: true, ...base, user_message: t.sent(resolved.label) };
    if (outcome.status === 'failed') {
      const why = outcome.error ?? 'failed';
      return { ok: false, sent: false, ...base, error: why, user_message: t.failed(resolved.label, why) };
    }
    if (outcome.error) {
      return {
        ok: false,
        sent: false,
        ...base,
        retrying: true,
        error: outcome.error,
        user_message: t.retrying(resolved.label, outcome.error),
      };
    }
    return { ok: false, sent: false, ...base, user_message: t.queued(resolved.label) };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    m.log?.warn({ err: why, skill: 'notify' }, 'notify could not be queued');
    return refusal(t.store_failed(why), { error_type: 'transient' });
  }
}
