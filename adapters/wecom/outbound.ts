/**
 * Sending through `message/send`
 * (developer.work.weixin.qq.com/document/path/90236, /90253):
 * - text only (capability `display: 'text'`, docs/results.md): markdown becomes faithful plain
 *   text with the shared renderer (src/channel/render `renderPlain`);
 * - split AFTER rendering with src/channel/chunk.ts: ≤ 2048 UTF-8 bytes per `text.content`,
 *   never inside a character, a table's header line repeated when a table is split;
 * - media uploaded first (`media/upload`, the Unicode file name kept), then sent by `media_id`
 *   (`image` for JPG/PNG ≤ 10 MB, `voice` for AMR ≤ 2 MB, `video` for MP4 ≤ 10 MB, else `file`);
 * - a confirmation becomes a `template_card` of type `button_interaction`, each button `key`
 *   `<option>:<token>` (≤ 1024 bytes, longer ones stored via src/channel/callback-payloads.ts);
 * - notices ask WeCom's duplicate check (`enable_duplicate_check`), so a redelivered event's
 *   identical notice reaches the member once;
 * - every failure returns `{ok:false, retryable, retry_after_ms?, error, code}` (never thrown):
 *   45009/45033 (rate limits, HTTP 200) and -1 are retryable with the advised wait (WeCom gives
 *   none; a `Retry-After` header is honoured, else 1 s), network and 5xx too; other codes are
 *   permanent. Nothing is retried here — the outbox backs off.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import {
  buttonPayload,
  type CallbackPayloads,
  cutOf,
  type OutboundConfirm,
  type OutboundMedia,
  type OutboundMessage,
  type OutboundTarget,
  PartCursor,
  renderPlain,
  type SendOptions,
  type SendResult,
  splitMessage,
  splitReply,
} from '../../src/channel/index.ts';
import { WecomApiError, type WecomApi } from './api.ts';
import { BUTTON_KEY_LIMIT, TEXT_LIMIT_BYTES } from './wire.ts';

/** What sending needs. */
export interface SendDeps {
  api: WecomApi;
  agentId: string;
  payloads: CallbackPayloads;
  now: () => Date;
}

const MB = 1024 * 1024;

/** The text chunks of a message: rendered to plain text, then split to 2048 bytes. */
export function textChunks(message: OutboundMessage): string[] {
  let text = message.text ?? '';
  if (text.trim() === '' && message.confirm) text = message.confirm.prompt_md;
  if (text.trim() === '') return [];
  const plain = message.format === 'markdown' || (message.confirm && text === message.confirm.prompt_md) ? renderPlain(text) : text;
  return splitReply(plain, TEXT_LIMIT_BYTES, 'bytes', { format: 'plain', ...cutOf(message) }).filter((c) => c.trim() !== '');
}

/** The `message/send` type for a media item (documented limits decide; else a file). */
export function mediaType(m: OutboundMedia): 'image' | 'voice' | 'video' | 'file' {
  const size = m.size ?? 0;
  const ext = extname(m.filename).toLowerCase();
  if (m.kind === 'image' && ['.jpg', '.jpeg', '.png'].includes(ext) && size <= 10 * MB) return 'image';
  if (m.kind === 'audio' && ext === '.amr' && size <= 2 * MB) return 'voice';
  if (m.kind === 'video' && ext === '.mp4' && size <= 10 * MB) return 'video';
  return 'file';
}

/** @param unknownSend a `message/send` request may have reached WeCom (not an upload) */
function failed(err: unknown, unknownSend = false): SendResult {
  if (err instanceof WecomApiError) {
    const ambiguous = unknownSend && err.unknown;
    return {
      ok: false,
      retryable: err.retryable,
      retry_after_ms: err.retryAfterMs,
      error: err.message,
      code: err.code,
      ...(ambiguous ? { ambiguous } : {}),
    };
  }
  return { ok: false, retryable: false, error: err instanceof Error ? err.message : String(err), code: null };
}

async function buttonCard(deps: SendDeps, confirm: OutboundConfirm): Promise<Record<string, unknown>> {
  // Keep a stored reference a little past the token's own expiry; the core answers "expired".
  const expiresAt = new Date(Math.max(new Date(confirm.expires_at).getTime() || 0, deps.now().getTime()) + 3600_000);
  const buttons = [];
  for (const o of confirm.options) {
    const key = await deps.payloads.encode(buttonPayload(o.id, confirm.token), { limitBytes: BUTTON_KEY_LIMIT, expiresAt });
    buttons.push({ text: o.label.slice(0, 10), style: o.style === 'danger' ? 3 : o.id === 'confirm' ? 1 : 2, key });
  }
  return {
    card_type: 'button_interaction',
    main_title: { title: confirm.kind === 'choice' ? '请选择 / Please choose' : '请确认 / Please confirm' },
    task_id: `sg_${randomBytes(12).toString('hex')}`,
    button_list: buttons,
  };
}

/**
 * Deliver one {@link OutboundMessage} to the member `target.chat_id` (UserID): text chunks, then
 * media, then the button card. Never throws for a platform failure. Parts delivered by an
 * earlier attempt (`opts.partsDone`) are skipped (a skipped medium is not uploaded again); a
 * failure after some parts went out reports them (`parts_done`, src/channel/parts.ts) so the
 * outbox's retry resumes there.
 */
export async function sendWecom(
  deps: SendDeps,
  target: OutboundTarget,
  message: OutboundMessage,
  opts: SendOptions = {},
): Promise<SendResult> {
  const agentid = /^\d+$/.test(deps.agentId) ? Number(deps.agentId) : deps.agentId;
  const common = {
    touser: target.chat_id,
    agentid,
    ...(message.kind === 'notice' ? { enable_duplicate_check: 1, duplicate_check_interval: 1800 } : {}),
  };
  // A notice repeats the same request JSON on every attempt, which WeCom's duplicate check drops;
  // other messages have no key: a part whose earlier send had an unknown outcome shows the marker.
  const cursor = new PartCursor(opts.partsDone, message.kind === 'notice' ? null : opts.resendMarker);
  let unknownSend = false;
  const post = async (payload: Record<string, unknown>): Promise<string> => {
    try {
      const a = await deps.api.postJson('/cgi-bin/message/send', { ...common, ...payload });
      return typeof a.msgid === 'string' ? a.msgid : String(a.msgid ?? '');
    } catch (err) {
      unknownSend = err instanceof WecomApiError && err.unknown;
      throw err;
    }
  };
  const send = (payload: Record<string, unknown> | (() => Promise<Record<string, unknown>>)) =>
    cursor.part(async () => post(typeof payload === 'function' ? await payload() : payload));
  /** A text part, the resend marker in front when it is due (alone first when the two would not fit). */
  const sendText = (content: string) => {
    const marked = cursor.marked(content);
    if (Buffer.byteLength(marked) <= TEXT_LIMIT_BYTES) return send({ msgtype: 'text', text: { content: marked } });
    return cursor.part(async () => {
      await post({ msgtype: 'text', text: { content: marked.slice(0, marked.length - content.length) } });
      return post({ msgtype: 'text', text: { content } });
    });
  };
  try {
    const card = message.confirm ? await buttonCard(deps, message.confirm) : null;
    for (const content of textChunks(message)) await sendText(content);
    for (const m of message.media ?? []) {
      const type = mediaType(m);
      await send(async () => {
        const data = await readFile(m.path);
        const mediaId = await deps.api.uploadMedia(type, { filename: m.filename, data, mimeType: m.mime_type });
        return { msgtype: type, [type]: { media_id: mediaId } };
      });
      const caption = (m.caption ?? '').trim();
      if (caption !== '') for (const content of splitMessage(caption, TEXT_LIMIT_BYTES, 'bytes')) await sendText(content);
    }
    if (card) await send({ msgtype: 'template_card', template_card: card });
    return { ok: true, message_ids: cursor.ids };
  } catch (err) {
    return cursor.fail(failed(err, unknownSend));
  }
}
