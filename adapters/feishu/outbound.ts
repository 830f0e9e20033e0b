/**
 * Sending to Feishu / Lark (open.feishu.cn im-v1
 * message create / reply, image create, file create; docs/results.md).
 *
 * One {@link OutboundMessage} becomes, in order: the text — `plain` as `text` messages,
 * `markdown` as JSON 2.0 cards with a markdown component (extra tables degraded, see
 * `./render.ts`), a confirmation request as card buttons — split after
 * rendering so each request body stays under the platform's byte limits, then one message per
 * media item, each uploaded just before (multipart with its filename; the API's `code` kept on
 * the result). A failed upload never withholds the text: a permanent one is replaced by a
 * line naming the file, a retryable one ends the attempt after the parts already sent.
 *
 * Idempotency: every API call carries `uuid` = a hash of the outbox row's key (or of the whole
 * message when none is given) + the part index, so an outbox retry never duplicates a part that
 * already went out (Feishu drops a repeated uuid within ~1 h). A reply whose target was
 * withdrawn or deleted (230011 / 231003, or a "withdrawn" message) is sent again as a new
 * message under the same uuid. A card the platform rejects (230099, e.g. 11310 "card table
 * number over limit") is retried once as plain text.
 *
 * Errors: `code != 0` answers and non-2xx are failures; HTTP 429
 * and the rate-limit codes are retryable with `retry_after_ms` from `x-ogw-ratelimit-reset`;
 * network errors and 5xx are retryable; other 4xx are permanent.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type * as lark from '@larksuiteoapi/node-sdk';
import { renderFeishuCardMd, escapeFeishuMd } from './render.ts';
import {
  cutOf,
  type OutboundMedia,
  type OutboundMessage,
  type OutboundTarget,
  renderPlain,
  type SendOptions,
  type SendResult,
  splitReply,
} from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { apiCall, uploadMultipart, type ApiResult } from './api.ts';
import { bodyBytes, cardBody, textBody, type FeishuBody } from './cards.ts';
import {
  CARD_BODY_LIMIT,
  FEISHU_CODES,
  FILE_UPLOAD_LIMIT,
  IMAGE_UPLOAD_LIMIT,
  RATE_LIMIT_CODES,
  TARGET_GONE_CODES,
  TEXT_BODY_LIMIT,
} from './wire.ts';

/** What sending needs. */
export interface OutboundDeps {
  client: lark.Client;
  log: Logger;
  /** Native tables per card (default FEISHU_CARD_TABLE_LIMIT). */
  tableLimit?: number;
  /** Reads a media file (default fs.readFile). */
  readFile?: (path: string) => Promise<Buffer>;
}

/** Options of one send (the channel contract's): `idempotencyKey` (default: a hash of the message), `partsDone`. */
export type { SendOptions };

/** Rendered-text budget per message (exported for the contract probes), UTF-8 bytes, leaving room for JSON escaping of the content. */
export const CARD_TEXT_BUDGET = Math.floor(CARD_BODY_LIMIT * 0.6);
export const TEXT_BUDGET = Math.floor(TEXT_BODY_LIMIT * 0.6);

/** `receive_id_type` from the id's shape (oc_ chat, ou_ open_id, on_ union_id, an e-mail). */
export function receiveIdType(id: string): 'chat_id' | 'open_id' | 'union_id' | 'email' {
  if (id.startsWith('ou_')) return 'open_id';
  if (id.startsWith('on_')) return 'union_id';
  if (/^[^@\s]+@[^@\s]+$/.test(id)) return 'email';
  return 'chat_id';
}

/** The uuid of part `i` (≤ 50 chars, the API's limit). */
export function partUuid(base: string, i: number): string {
  return `${base}-${i}`;
}

/** Base of the idempotency uuids of one message (40 hex chars). */
export function baseUuid(target: OutboundTarget, message: OutboundMessage, key?: string | null): string {
  const source = key
    ? `key:${target.channel}:${target.account}:${key}`
    : `msg:${JSON.stringify([target.channel, target.account, target.chat_id, target.thread_id ?? null, message])}`;
  return createHash('sha256').update(source).digest('hex').slice(0, 40);
}

/** A failed API result as a {@link SendResult}. */
export function classify(r: Extract<ApiResult<unknown>, { ok: false }>, what: string): Extract<SendResult, { ok: false }> {
  const error = `${what}: ${r.code ?? r.status ?? 'network'} ${r.msg}`.trim();
  if (r.status === 429 || (r.code !== null && RATE_LIMIT_CODES.has(r.code))) {
    const reset = Number(r.headers['x-ogw-ratelimit-reset']);
    return {
      ok: false,
      retryable: true,
      retry_after_ms: Number.isFinite(reset) && reset >= 0 ? Math.round(reset * 1000) : null,
      error,
      code: r.code ?? 429,
    };
  }
  if (r.code === FEISHU_CODES.TOKEN_INVALID || r.code === FEISHU_CODES.TOKEN_EXPIRED)
    return { ok: false, retryable: true, error, code: r.code };
  // No answer after the request was written (or a 5xx): Feishu may have posted it; the retry's
  // `uuid` lets Feishu answer with that message instead of posting a second one.
  if (r.status === null || r.status >= 500)
    return { ok: false, retryable: true, error, code: r.code ?? r.status, ...(r.unknown ? { ambiguous: true } : {}) };
  return { ok: false, retryable: false, error, code: r.code ?? r.status };
}

/** True when the reply target is gone (withdrawn or deleted). */
export function targetGone(r: Extract<ApiResult<unknown>, { ok: false }>): boolean {
  return (r.code !== null && TARGET_GONE_CODES.has(r.code)) || /withdrawn|recalled/i.test(r.msg);
}

function cardRejected(r: Extract<ApiResult<unknown>, { ok: false }>): boolean {
  return r.code === FEISHU_CODES.CARD_CONTENT_FAILED || /11310|table number over limit/i.test(r.msg);
}

/** `file_type` of the file-upload API from the name (pdf/doc/xls/ppt/mp4/opus, else stream). */
export function fileTypeOf(filename: string): 'opus' | 'mp4' | 'pdf' | 'doc' | 'xls' | 'ppt' | 'stream' {
  const ext = extname(filename).toLowerCase();
  if (ext === '.opus') return 'opus';
  if (ext === '.mp4') return 'mp4';
  if (ext === '.pdf') return 'pdf';
  if (ext === '.doc' || ext === '.docx') return 'doc';
  if (ext === '.xls' || ext === '.xlsx') return 'xls';
  if (ext === '.ppt' || ext === '.pptx') return 'ppt';
  return 'stream';
}

/** Upload one media item; @returns the message body that shows it, or a failure. */
async function upload(deps: OutboundDeps, m: OutboundMedia): Promise<FeishuBody | Extract<SendResult, { ok: false }>> {
  let data: Buffer;
  try {
    data = await (deps.readFile ?? readFile)(m.path);
  } catch (err) {
    return {
      ok: false,
      retryable: false,
      error: `media ${m.filename}: cannot read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      code: 'media_unreadable',
    };
  }
  if (data.length === 0) return { ok: false, retryable: false, error: `media ${m.filename}: empty file`, code: 'media_empty' };
  if (m.kind === 'image' && data.length <= IMAGE_UPLOAD_LIMIT) {
    const r = await uploadMultipart<{ image_key?: string } | null>(
      deps.client,
      '/open-apis/im/v1/images',
      { image_type: 'message' },
      'image',
      data,
      m.filename,
    );
    if (!r.ok) return classify(r, `upload ${m.filename}`);
    if (!r.data?.image_key)
      return { ok: false, retryable: false, error: `upload ${m.filename}: no image_key in the answer`, code: 'no_key' };
    return { msg_type: 'image', content: { image_key: r.data.image_key } };
  }
  if (data.length > FILE_UPLOAD_LIMIT)
    return {
      ok: false,
      retryable: false,
      error: `media ${m.filename}: ${data.length} bytes is over the 30 MB upload limit`,
      code: 'media_too_large',
    };
  const fileType = fileTypeOf(m.filename);
  const r = await uploadMultipart<{ file_key?: string } | null>(
    deps.client,
    '/open-apis/im/v1/files',
    { file_type: fileType, file_name: m.filename },
    'file',
    data,
    m.filename,
  );
  if (!r.ok) return classify(r, `upload ${m.filename}`);
  const fileKey = r.data?.file_key;
  if (!fileKey) return { ok: false, retryable: false, error: `upload ${m.filename}: no file_key in the answer`, code: 'no_key' };
  if (m.kind === 'audio' && fileType === 'opus') return { msg_type: 'audio', content: { file_key: fileKey } };
  if (m.kind === 'video' && fileType === 'mp4') return { msg_type: 'media', content: { file_key: fileKey } };
  return { msg_type: 'file', content: { file_key: fileKey } };
}

/** The text parts of a message, rendered and split within the byte budgets. */
export function textParts(message: OutboundMessage, tableLimit?: number): FeishuBody[] {
  const confirm = message.confirm ?? null;
  if (message.format === 'plain' && !confirm) {
    return splitReply(message.text, TEXT_BUDGET, 'bytes', { format: 'plain', ...cutOf(message) }).map(textBody);
  }
  let md = message.format === 'markdown' ? renderFeishuCardMd(message.text, { tableLimit }).markdown : escapeFeishuMd(message.text);
  if (confirm) {
    const prompt = renderFeishuCardMd(confirm.prompt_md, { tableLimit: 0 }).markdown;
    if (prompt !== '' && !md.includes(prompt)) md = md === '' ? prompt : `${md}\n\n${prompt}`;
  }
  const chunks = md === '' ? [''] : splitReply(md, CARD_TEXT_BUDGET, 'bytes', { format: 'markdown', ...cutOf(message) });
  return chunks.map((c, i) => cardBody(c, i === chunks.length - 1 ? confirm : null));
}

/** The plain-text stand-in of a rejected card (a confirmation's prompt kept; its buttons cannot be). */
function plainFallback(message: OutboundMessage): FeishuBody[] {
  let text = message.format === 'markdown' ? renderPlain(message.text) : message.text;
  const prompt = message.confirm ? renderPlain(message.confirm.prompt_md) : '';
  if (prompt !== '' && !text.includes(prompt)) text = text === '' ? prompt : `${text}\n\n${prompt}`;
  return splitReply(text === '' ? ' ' : text, TEXT_BUDGET, 'bytes', { format: 'plain', ...cutOf(message) }).map(textBody);
}

/** Send one body: reply to `replyTo` (falling back to a new message when the target is gone) or create. */
async function sendBody(
  deps: OutboundDeps,
  target: OutboundTarget,
  body: FeishuBody,
  uuid: string,
  replyTo: string | null,
): Promise<ApiResult<{ message_id?: string }>> {
  const content = JSON.stringify(body.content);
  if (replyTo) {
    const r = await apiCall<{ message_id?: string }>(() =>
      deps.client.im.message.reply({ path: { message_id: replyTo }, data: { msg_type: body.msg_type, content, uuid } }),
    );
    if (r.ok || !targetGone(r)) return r;
    deps.log.info({ channel: 'feishu', reply_to: replyTo, code: r.code }, 'reply target withdrawn or deleted; sending as a new message');
  }
  return apiCall<{ message_id?: string }>(() =>
    deps.client.im.message.create({
      params: { receive_id_type: receiveIdType(target.chat_id) },
      data: { receive_id: target.chat_id, msg_type: body.msg_type, content, uuid },
    }),
  );
}

/**
 * Deliver `message` to `target`. Never throws for platform failures (see the module doc).
 * Parts delivered by an earlier attempt (`opts.partsDone`, src/channel/parts.ts) are skipped
 * and their media not uploaded again; a failure after some parts went out reports them
 * (`parts_done`) so the outbox's retry resumes there (each part also carries its own `uuid`,
 * which Feishu deduplicates for an hour).
 */
export async function sendFeishu(
  deps: OutboundDeps,
  target: OutboundTarget,
  message: OutboundMessage,
  opts: SendOptions = {},
): Promise<SendResult> {
  const base = baseUuid(target, message, opts.idempotencyKey);
  const done = Number.isInteger(opts.partsDone) && (opts.partsDone as number) > 0 ? (opts.partsDone as number) : 0;
  const hasText = message.text.trim() !== '' || !!message.confirm;
  const textBodies = hasText ? textParts(message, deps.tableLimit) : [];
  // Text parts first, then one part per media item, uploaded when its turn comes: a failed
  // attachment never withholds the text. A permanent upload failure becomes a short text part
  // naming the file; a retryable one ends this attempt (the retry resumes there).
  const media = message.media ?? [];
  const mediaBodies: (FeishuBody | OutboundMedia)[] = media.map((m) => m);
  // 2. Text parts, then media.
  const parts = [...textBodies, ...mediaBodies];
  const ids: string[] = [];
  const progress = (f: Extract<SendResult, { ok: false }>, i: number): SendResult =>
    i > 0 ? { ...f, parts_done: i, message_ids: ids } : f;
  let replyTo = done > 0 ? null : (message.reply_to ?? null);
  for (let i = done; i < parts.length; i++) {
    let body: FeishuBody;
    const part = parts[i]!;
    if ('path' in part) {
      const b = await upload(deps, part);
      if ('ok' in b) {
        if (b.retryable) return progress(b, i);
        deps.log.warn(
          { channel: 'feishu', file: part.filename, code: b.code, err: b.error },
          'attachment upload failed for good; sending its name instead',
        );
        body = textBody(`附件未能发送 / Attachment not sent: ${part.filename} (${b.code ?? 'error'})`);
      } else body = b;
    } else body = part;
    const limit = body.msg_type === 'text' ? TEXT_BODY_LIMIT : CARD_BODY_LIMIT;
    if (bodyBytes(body) > limit)
      return progress(
        { ok: false, retryable: false, error: `part ${i} is ${bodyBytes(body)} bytes, over the ${limit}-byte limit`, code: 'too_large' },
        i,
      );
    let r = await sendBody(deps, target, body, partUuid(base, i), replyTo);
    if (!r.ok && body.msg_type === 'interactive' && cardRejected(r)) {
      deps.log.warn({ channel: 'feishu', code: r.code, msg: r.msg }, 'card rejected; sending as plain text');
      for (const [j, tb] of plainFallback(message).entries()) {
        r = await sendBody(deps, target, tb, partUuid(`${base}t${j}`, i), replyTo);
        if (!r.ok) break;
        if (r.data?.message_id) ids.push(r.data.message_id);
        replyTo = null;
      }
      if (!r.ok) return progress(classify(r, 'send'), i);
      // The fallback carried every text part at once; skip the remaining card parts.
      while (i + 1 < parts.length && !('path' in parts[i + 1]!) && (parts[i + 1] as FeishuBody).msg_type === 'interactive') i++;
      continue;
    }
    if (!r.ok) return progress(classify(r, replyTo ? 'reply' : 'send'), i);
    if (r.data?.message_id) ids.push(r.data.message_id);
    replyTo = null; // only the first part is a threaded reply
  }
  return { ok: true, message_ids: ids };
}
