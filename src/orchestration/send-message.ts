/**
 * The built-in `send_message` skill (R-MSG-02..08, A-23, A-49; docs/messaging.md): a message to
 * specific people on two-way channels, through the outbox and the channel's adapter.
 *
 * - `to`: `<channel>[@<account>]:<id>` or a list (web ids are contact keys); a recipient whose
 *   channel or account is not on fails with a clear reason, the others still go; a web contact
 *   key that is not in the directory of the calling role's org (`directoryOrgId`) fails as an
 *   unknown recipient before anything is queued (other channels' ids are checked by their
 *   platform at send time — the gateway cannot know them);
 * - `message` (markdown unless `format: "text"`), optional `attach` (files in the session
 *   workspace) sent as media;
 * - every recipient's message is stored in one outbox transaction, one idempotency key each
 *   (derived from the caller's `idempotency_key` when given); the call then waits a bounded
 *   time: per recipient `sent` (the platform accepted it), `queued` (not yet, still owned by
 *   the outbox) or `failed` with the platform's reason;
 * - `ok` is true only when every recipient is `sent` (A-23: `sent` counts them); `partial`
 *   marks a mixed outcome. Never throws.
 */
import { randomUUID } from 'node:crypto';
import type { OutboundMessage } from '../channel/types.ts';
import { boundReply, REPLY_MAX_PARTS } from '../channel/long-reply.ts';
import { writeFullText, type FullTextFile } from '../envelope/offload.ts';
import type { OutboxItem } from '../outbox/types.ts';
import { checkAttachments } from './attach-files.ts';
import { awaitDelivery, DEFAULT_DELIVERY_WAIT_MS, langOf, messagingOf, type DeliveryOutcome } from './messaging.ts';
import { NOTIFY_CHANNEL } from './notify.ts';
import { parseRecipient, recipientList, unknownWebRecipient } from './recipients.ts';

/** One recipient's outcome. */
export interface RecipientResult {
  to: string;
  status: 'sent' | 'queued' | 'failed';
  error?: string;
  retrying?: boolean;
  outbox_ids?: string[];
}

const T = {
  'zh-CN': {
    unavailable: '消息发送不可用（本进程没有投递队列）。',
    no_to: '缺少 to：收件人写成 <渠道>:<ID>，如 feishu:ou_xxx、web:demo_worker，多人传列表。',
    no_message: '缺少 message（消息内容）。',
    bad_address: '收件人格式应为 <渠道>[@<账号>]:<ID>',
    use_notify: 'notify 渠道请用 notify 技能',
    channel_off: (c: string) => `渠道 ${c} 未开启`,
    account_off: (c: string, a: string) => `渠道 ${c} 没有账号 ${a}`,
    no_media: (c: string) => `渠道 ${c} 不支持发送附件`,
    unknown_web: (id: string) => `未知收件人：通讯录里没有 web 联系人 ${id}`,
    summary: (sent: number, queued: number, failed: number, total: number) =>
      `共 ${total} 位收件人：已送达 ${sent}，排队中 ${queued}，失败 ${failed}。`,
    store_failed: (why: string) => `消息未能入队：${why}`,
  },
  en: {
    unavailable: 'Messages cannot be sent here (no outbox in this process).',
    no_to: 'to is missing: <channel>:<id> such as feishu:ou_xxx or web:demo_worker, a list for several.',
    no_message: 'message is missing.',
    bad_address: 'a recipient must look like <channel>[@<account>]:<id>',
    use_notify: 'use the notify skill for the notify channel',
    channel_off: (c: string) => `channel ${c} is not on`,
    account_off: (c: string, a: string) => `channel ${c} has no account ${a}`,
    no_media: (c: string) => `channel ${c} cannot send attachments`,
    unknown_web: (id: string) => `unknown recipient: no web contact ${id} in the directory`,
    summary: (sent: number, queued: number, failed: number, total: number) =>
      `${total} recipients: ${sent} sent, ${queued} queued, ${failed} failed.`,
    store_failed: (why: string) => `The message could not be queued: ${why}`,
  },
};

function refusal(error: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ok: false,
    sent: 0,
    queued: 0,
    failed: 0,
    total: 0,
    results: [],
    error,
    user_message: error,
    error_type: 'recoverable',
    ...extra,
  };
}

/** Worst of several rows of one recipient (a long message split in parts). */
function combine(outcomes: DeliveryOutcome[]): DeliveryOutcome {
  return (
    outcomes.find((o) => o.status === 'failed') ??
    outcomes.find((o) => o.status === 'queued' && o.error) ??
    outcomes.find((o) => o.status === 'queued') ??
    outcomes[0] ?? { status: 'sent' }
  );
}

/**
 * Run `send_message` for a skill call. Never throws.
 * @returns `{ok, sent, queued, failed, total, partial, results: RecipientResult[], error?, user_message}`
 */
export async function runSendMessage(input: Record<string, unknown>, ctx: Record<string, unknown>): Promise<Record<string, unknown>> {
  const lang = langOf(input, ctx);
  const t = T[lang];
  const m = messagingOf(ctx);
  if (!m) return refusal(t.unavailable, { error_type: 'config', non_retriable: true });
  const addresses = recipientList(input.to);
  if (!addresses) return refusal(t.no_to, { need_param: 'to' });
  const text = typeof input.message === 'string' ? input.message : '';
  if (text.trim() === '' && !input.attach) return refusal(t.no_message, { need_param: 'message' });
  const files = checkAttachments(input.attach, String(ctx.workspace_dir ?? ''), m.attachmentRoots ?? [], lang);
  if ('error' in files) return refusal(files.error);
  const format: OutboundMessage['format'] = input.format === 'text' ? 'plain' : 'markdown';
  const callKey = typeof input.idempotency_key === 'string' && input.idempotency_key.trim() ? input.idempotency_key.trim() : randomUUID();

  // The whole text, written once for every recipient whose copy is cut (null: no workspace, or it failed).
  let kept: Promise<FullTextFile | null> | undefined;
  const workspace = String(ctx.workspace_dir ?? '');
  const fullText = (): Promise<FullTextFile | null> =>
    (kept ??= workspace
      ? writeFullText(workspace, text, lang).catch((err: unknown) => {
          m.log?.warn(
            { err: err instanceof Error ? err.message : String(err), skill: 'send_message' },
            'the full text of a cut message could not be kept',
          );
          return null;
        })
      : Promise.resolve(null));
  const results: RecipientResult[] = [];
  const items: OutboxItem[] = [];
  const rowsOf = new Map<number, number[]>(); // results index → item indexes
  for (const to of addresses) {
    const r = parseRecipient(to);
    const idx = results.length;
    if (!r) {
      results.push({ to, status: 'failed', error: `${t.bad_address}: ${to}` });
      continue;
    }
    const account = r.account ?? 'default';
    if (r.channel === NOTIFY_CHANNEL) {
      results.push({ to, status: 'failed', error: t.use_notify });
      continue;
    }
    const adapter = m.adapterFor(r.channel, account);
    if (!adapter) {
      const anyAccount = m.adapterFor(r.channel, 'default');
      results.push({ to, status: 'failed', error: r.account && anyAccount ? t.account_off(r.channel, account) : t.channel_off(r.channel) });
      continue;
    }
    if (r.channel === 'web' && (await unknownWebRecipient(m.db, ctx, r.id, m.log))) {
      results.push({ to, status: 'failed', error: t.unknown_web(r.id) });
      continue;
    }
    if (files.files.length > 0 && !adapter.capabilities.media) {
      results.push({ to, status: 'failed', error: t.no_media(r.channel) });
      continue;
    }
    results.push({ to, status: 'queued' });
    // One row per recipient: bounded here, rendered and split by the adapter (docs/operations-delivery.md "Long replies").
    const cap = adapter.capabilities;
    let bounded = boundReply(text, cap.max_length, cap.length_unit, { lang, maxParts: REPLY_MAX_PARTS });
    // A cut message names the file with its whole text and, where files can be sent, attaches it.
    const full = bounded.cut ? await fullText() : null;
    if (full)
      bounded = boundReply(text, cap.max_length, cap.length_unit, {
        lang,
        maxParts: REPLY_MAX_PARTS,
        file: { name: full.filename, attached: cap.media },
      });
    const media = [
      ...files.files.map((f) => ({ kind: f.kind, path: f.path, filename: f.filename, mime_type: f.mime_type, size: f.size })),
      ...(full && cap.media
        ? [{ kind: 'file' as const, path: full.path, filename: full.filename, mime_type: 'text/markdown', size: full.size }]
        : []),
    ];
    rowsOf.set(idx, [items.length]);
    items.push({
      target: { channel: r.channel, account, chat_id: r.id, chat_type: 'direct' },
      message: {
        kind: 'reply',
        text: bounded.text,
        format,
        lang,
        ...(bounded.cut ? { omitted: bounded.omitted } : {}),
        ...(full ? { full_text_file: full.filename } : {}),
        ...(media.length ? { media } : {}),
        final: true,
      },
      idempotency_key: `send_message:${callKey}:${r.channel}:${account}:${r.id}`,
      origin: { skill: 'send_message', session_id: String(ctx.session_id ?? '') },
    });
  }

  if (items.length > 0) {
    let ids: string[];
    try {
      ids = await m.outbox.enqueue(m.db, items);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      m.log?.warn({ err: why, skill: 'send_message' }, 'send_message could not be queued');
      return refusal(t.store_failed(why), { error_type: 'transient' });
    }
    const wait = m.waitMs ?? DEFAULT_DELIVERY_WAIT_MS;
    const outcomes = await Promise.all(ids.map((id) => awaitDelivery(m.outbox, id, wait)));
    for (const [idx, rows] of rowsOf) {
      const o = combine(rows.map((i) => outcomes[i]!));
      const res = results[idx]!;
      res.status = o.status;
      res.outbox_ids = rows.map((i) => ids[i]!);
      if (o.error) res.error = o.error;
      if (o.retrying) res.retrying = true;
    }
  }

  const count = (s: RecipientResult['status']): number => results.filter((r) => r.status === s).length;
  const sent = count('sent');
  const queued = count('queued');
  const failed = count('failed');
  const total = results.length;
  const ok = sent === total;
  const summary = t.summary(sent, queued, failed, total);
  const out: Record<string, unknown> = {
    ok,
    sent,
    queued,
    failed,
    total,
    partial: sent > 0 && sent < total,
    results,
    user_message: summary,
  };
  if (!ok) {
    out.error = results
      .filter((r) => r.status !== 'sent')
      .map((r) => `${r.to}: ${r.error ?? r.status}`)
      .join('; ');
  }
  return out;
}
