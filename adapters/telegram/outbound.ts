/**
 * Sending to Telegram (Bot API #sendmessage,
 * #html-style, #sending-files, #inlinekeyboardmarkup):
 * - markdown → Telegram HTML (./render.ts), `parse_mode: HTML`;
 *   plain text is sent without a parse mode;
 * - chunked AFTER rendering with src/channel/chunk.ts: 4096 UTF-16 units per text, tags kept
 *   balanced, never inside a surrogate pair; the first chunk replies to `reply_to`;
 * - a chunk the API refuses to parse ("can't parse entities") is resent as its visible text;
 * - media uploaded as multipart (grammY InputFile) with the original Unicode file name;
 *   captions ≤ 1024 (longer ones go as a text message first);
 * - a confirmation becomes an inline keyboard on the last message; each `callback_data`
 *   (`confirm:<token>`) ≤ 64 bytes, longer ones stored via src/channel/callback-payloads.ts;
 *   `confirm.prompt_md` is the text when the message has none;
 * - every failure returns `{ok:false, retryable, retry_after_ms?, error}` (never thrown).
 *   Rate limits: a 429 is not retried here; it goes back to the outbox as `retry_after_ms`,
 *   which waits it once and paces the chat and the account (src/outbox/pacing.ts). 5xx and
 *   network errors are not retried here either (the outbox backs off).
 */
import { GrammyError, HttpError, InputFile, type Api } from 'grammy';
import type { InlineKeyboardMarkup, ReplyParameters } from 'grammy/types';
import {
  type CallbackPayloads,
  cutOf,
  type OutboundConfirm,
  type OutboundMedia,
  type OutboundMessage,
  type OutboundTarget,
  PartCursor,
  type SendOptions,
  sendPhaseOfError,
  sendPhaseOfStatus,
  type SendResult,
  splitMessage,
} from '../../src/channel/index.ts';
import { runReplyJob, type ReplyJob, type ReplyJobResult } from './reply-job.ts';
import { runReplyJobOffThread } from './reply-off-thread.ts';
import { CALLBACK_DATA_LIMIT, CAPTION_LIMIT, TEXT_LIMIT, isEntityParseError, isRetryable, type ApiFailure } from './wire.ts';

/** What sending needs. */
export interface SendDeps {
  api: Api;
  payloads: CallbackPayloads;
  now: () => Date;
}

/** A Bot API failure, from whatever grammY threw. Non-API errors (a missing file) are permanent. */
export function failureOf(err: unknown): ApiFailure {
  if (err instanceof GrammyError) {
    const unknown = sendPhaseOfStatus(err.error_code) === 'unknown';
    return {
      code: err.error_code,
      description: err.description,
      retry_after_s: err.parameters?.retry_after,
      ...(unknown ? { unknown } : {}),
    };
  }
  if (err instanceof HttpError)
    return { code: null, description: err.message, ...(sendPhaseOfError(err) === 'unknown' ? { unknown: true } : {}) };
  return { code: 0, description: err instanceof Error ? err.message : String(err) };
}

/** {@link SendResult} of a failure. */
export function failed(f: ApiFailure): SendResult {
  return {
    ok: false,
    retryable: isRetryable(f),
    retry_after_ms: f.retry_after_s !== undefined ? f.retry_after_s * 1000 : null,
    error: f.description || `telegram error ${f.code ?? 'network'}`,
    code: f.code,
    ...(f.unknown ? { ambiguous: true } : {}),
  };
}

/**
 * The visible text of a Telegram-HTML chunk: links as `text (url)` (just the text when it is the
 * URL), other tags dropped, the four named entities and numeric ones decoded.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<a href="([^"]*)">([\s\S]*?)<\/a>/g, (_m, href: string, inner: string) => {
      const url = href.replace(/&quot;/g, '"').replace(/&amp;/g, '&');
      const text = inner.replace(/<[^<>]*>/g, '');
      return text === href || text === url ? inner : `${inner} (${href})`;
    })
    .replace(/<[^<>]*>/g, '')
    .replace(/&(lt|gt|quot|amp|#\d+|#x[0-9a-fA-F]+);/g, (m, e: string) => {
      if (e === 'lt') return '<';
      if (e === 'gt') return '>';
      if (e === 'quot') return '"';
      if (e === 'amp') return '&';
      const cp = e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    });
}

/**
 * A file name for grammY's multipart writer, which puts it unquoted after `filename=`: quoted
 * here (RFC 7578 quoted-string, `"` and `\` escaped) so names with spaces or `;` survive; the
 * UTF-8 bytes are kept as they are (RFC 7578 §4.2 allows them; no percent-encoding, no `?`).
 */
export function multipartFilename(name: string): string {
  return `"${name.replace(/[\r\n]+/g, ' ').replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

async function keyboard(deps: SendDeps, confirm: OutboundConfirm): Promise<InlineKeyboardMarkup> {
  // Keep the reference a little past the token's own expiry so a late press still reaches the
  // core, which then answers "expired" itself.
  const expiresAt = new Date(Math.max(new Date(confirm.expires_at).getTime() || 0, deps.now().getTime()) + 3600_000);
  const row = [];
  for (const o of confirm.options) {
    row.push({
      text: o.label,
      callback_data: await deps.payloads.encode(`${o.id}:${confirm.token}`, { limitBytes: CALLBACK_DATA_LIMIT, expiresAt }),
    });
  }
  // A question's options are one per row (their labels are longer than 确认 / 取消).
  return { inline_keyboard: confirm.kind === 'choice' ? row.map((b) => [b]) : [row] };
}

interface Common {
  message_thread_id?: number;
  reply_parameters?: ReplyParameters;
  reply_markup?: InlineKeyboardMarkup;
}

/** Send one text chunk: HTML first; on an entity parse error, its visible text without a parse mode. */
async function sendChunk(api: Api, chatId: string, chunk: { text: string; html: boolean }, common: Common): Promise<number> {
  if (!chunk.html) return (await api.sendMessage(chatId, chunk.text, common)).message_id;
  try {
    return (await api.sendMessage(chatId, chunk.text, { ...common, parse_mode: 'HTML' })).message_id;
  } catch (err) {
    if (!isEntityParseError(failureOf(err))) throw err;
    // The visible text may gain link URLs: split again; only the first part replies / the last carries buttons.
    const parts = splitMessage(htmlToText(chunk.text), TEXT_LIMIT, 'utf16').filter((p) => p.trim() !== '');
    let id = 0;
    for (const [i, part] of parts.entries()) {
      const c: Common = { ...common };
      if (i > 0) delete c.reply_parameters;
      if (i < parts.length - 1) delete c.reply_markup;
      id = (await api.sendMessage(chatId, part, c)).message_id;
    }
    return id;
  }
}

async function sendMedia(api: Api, chatId: string, m: OutboundMedia, caption: string | undefined, common: Common): Promise<number> {
  const file = new InputFile(m.path, multipartFilename(m.filename));
  const extra = caption ? { ...common, caption } : common;
  const isImage = m.kind === 'image' && /^image\/(jpeg|png|webp)$/i.test(m.mime_type ?? 'image/jpeg') && (m.size ?? 0) <= 10 * 1024 * 1024;
  if (isImage) return (await api.sendPhoto(chatId, file, extra)).message_id;
  if (m.kind === 'video') return (await api.sendVideo(chatId, file, extra)).message_id;
  if (m.kind === 'audio') return (await api.sendAudio(chatId, file, extra)).message_id;
  return (await api.sendDocument(chatId, file, extra)).message_id;
}

/** The text of a message as it is sent, rendered (Telegram HTML, or plain) once and split once. */
function replyJob(message: OutboundMessage): ReplyJob | null {
  let md = message.text ?? '';
  if (md.trim() === '' && message.confirm) md = message.confirm.prompt_md;
  if (md.trim() === '') return null;
  const html = message.format === 'markdown';
  return {
    dialect: html ? 'telegram' : 'none',
    text: md,
    max: TEXT_LIMIT,
    unit: 'utf16',
    split: { format: html ? 'html' : 'plain', ...cutOf(message) },
  };
}

/**
 * Whether a rendered part shows anything ({@link htmlToText} not blank). Text between tags
 * decides at once (the renderer writes only the four named entities, never a blank one); only
 * a part of nothing but markup is decoded, where a link may still show its target.
 */
function hasVisibleText(part: string): boolean {
  return part.replace(/<[^<>]*>/g, '').trim() !== '' || htmlToText(part).trim() !== '';
}

/** The parts of a job's result worth sending (an HTML part of only tags is left out). */
function chunksOf(job: ReplyJob | null, result: ReplyJobResult): { text: string; html: boolean }[] {
  if (!job) return [];
  const html = job.dialect === 'telegram';
  return (html ? result.parts.filter(hasVisibleText) : result.parts).map((t) => ({ text: t, html }));
}

/** The text chunks of a message, rendered once then split once (empty list when there is no text). */
export function textChunks(message: OutboundMessage): { text: string; html: boolean }[] {
  const job = replyJob(message);
  return job ? chunksOf(job, runReplyJob(job)) : [];
}

/**
 * Deliver one {@link OutboundMessage}: text chunks, then media, the keyboard on the last one.
 * Never throws for a platform failure. Parts delivered by an earlier attempt (`opts.partsDone`)
 * are skipped; a failure after some parts went out reports them (`parts_done`, src/channel/parts.ts)
 * so the outbox's retry resumes there. Telegram has no idempotency key: a part whose earlier send
 * had an unknown outcome (`opts.resendMarker`) is resent with the marker in front.
 */
export async function sendTelegram(
  deps: SendDeps,
  target: OutboundTarget,
  message: OutboundMessage,
  opts: SendOptions = {},
): Promise<SendResult> {
  const cursor = new PartCursor(opts.partsDone, opts.resendMarker);
  try {
    // A long reply is rendered and split in the render worker, away from the event loop.
    const job = replyJob(message);
    const chunks = job ? chunksOf(job, await runReplyJobOffThread(job)) : [];
    const media = message.media ?? [];
    let markup: InlineKeyboardMarkup | undefined;
    try {
      markup = message.confirm ? await keyboard(deps, message.confirm) : undefined;
    } catch (err) {
      // the database could not store a long payload: worth retrying later
      return failed({ code: null, description: `storing button payloads failed: ${(err as Error).message}` });
    }
    const thread = target.thread_id && /^\d+$/.test(target.thread_id) ? { message_thread_id: Number(target.thread_id) } : {};
    const replyTo = message.reply_to && /^\d+$/.test(message.reply_to) ? Number(message.reply_to) : null;
    const total = chunks.length + media.length;
    let index = 0;
    const common = (): Common => {
      const c: Common = { ...thread };
      if (index === 0 && replyTo !== null) c.reply_parameters = { message_id: replyTo, allow_sending_without_reply: true };
      if (index === total - 1 && markup) c.reply_markup = markup;
      index++;
      return c;
    };
    for (const chunk of chunks) {
      const c = common();
      // Telegram has no idempotency key: a part an earlier attempt may have delivered shows the marker.
      const text = cursor.marked(chunk.text);
      await cursor.part(() =>
        text.length <= TEXT_LIMIT
          ? sendChunk(deps.api, target.chat_id, { ...chunk, text }, c)
          : deps.api
              .sendMessage(target.chat_id, text.slice(0, text.length - chunk.text.length), { ...thread })
              .then(() => sendChunk(deps.api, target.chat_id, chunk, c)),
      );
    }
    for (const m of media) {
      const caption = (m.caption ?? '').trim();
      if (caption.length > CAPTION_LIMIT) {
        for (const part of splitMessage(caption, TEXT_LIMIT, 'utf16')) {
          const text = cursor.marked(part);
          await cursor.part(
            async () => (await deps.api.sendMessage(target.chat_id, text.length <= TEXT_LIMIT ? text : part, { ...thread })).message_id,
          );
        }
      }
      const c = common();
      const short = caption && caption.length <= CAPTION_LIMIT ? caption : '';
      const marked = cursor.marked(short);
      await cursor.part(() => sendMedia(deps.api, target.chat_id, m, (marked.length <= CAPTION_LIMIT ? marked : short) || undefined, c));
    }
    return { ok: true, message_ids: cursor.ids };
  } catch (err) {
    return cursor.fail(failed(failureOf(err)));
  }
}
