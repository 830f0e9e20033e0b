/**
 * Sending to DingTalk.
 *
 * Route per conversation: the callback's session webhook while it is valid (until
 * `sessionWebhookExpiredTime` minus {@link SESSION_MARGIN_MS}, on the injectable clock), else the
 * robot Open API: `/v1.0/robot/oToMessages/batchSend` (`userIds` = the single-chat partner's
 * staff id: the target's `chat_id` itself when it is not a `cid…` conversation id, else the one
 * remembered from the callback or, after a restart, stored with the outbox target as
 * `target.route.staff_id`) or `/v1.0/robot/groupMessages/send` (`openConversationId`). A
 * session webhook that fails for any reason but a rate limit is abandoned for the Open API.
 *
 * Content: markdown through {@link renderDingtalkMd} with the required `title`
 * ({@link dingtalkTitle}), split after rendering to {@link DINGTALK_TEXT_LIMIT} code points
 * (no documented maximum; the fixtures suggest ≤ 4000), fences kept balanced. A markdown message
 * refused as permanent is sent once more as plain text (the chunk's plain rendering). Files:
 * uploaded to the old media API, then `sampleImageMsg` (`photoURL` = the media id; assumption:
 * DingTalk accepts a media id there as its docs' sample does) or `sampleFile` `{mediaId,
 * fileName, fileType}` — through the Open API only (session webhooks carry no files).
 *
 * Confirmations: DingTalk robots have no callback buttons over these APIs, so the buttons are
 * markdown links `dtmd://dingtalkclient/sendMessage?content=…` (DingTalk's message-link
 * protocol: tapping one makes the user send that text to the robot). The text is `确认 <ref>` /
 * `取消 <ref>` with `<ref>` the `confirm:<token>` payload stored through
 * `src/channel/callback-payloads.ts`; the webhook maps such a text back to a callback. Groups only
 * deliver @robot messages, so a group prompt also says to answer `@robot 确认`.
 *
 * Failures: never thrown; `{ok:false, retryable, retry_after_ms}` by status and code (api.ts).
 */
import { extname } from 'node:path';
import { readFile } from 'node:fs/promises';
import {
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
  splitReply,
} from '../../src/channel/index.ts';
import { dingtalkTitle, renderDingtalkMd } from './render.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { ApiFailure, ApiOutcome, DingtalkApi } from './api.ts';
import { BUTTON_WORDS } from './inbound.ts';
import type { SessionBook, SessionRoute } from './sessions.ts';
import type { OpenApiMessage, SessionMessage } from './wire.ts';

/** Longest text of one message, code points (outbound-expectations.md §5: "suggested ≤ 4 000"). */
export const DINGTALK_TEXT_LIMIT = 4000;
/** A session webhook is not used in its last 30 s (a reply must not race its expiry). */
export const SESSION_MARGIN_MS = 30_000;
/** Longest button payload (the `content` of a `dtmd` link), UTF-8 bytes: our own bound. */
export const BUTTON_PAYLOAD_LIMIT = 64;
/** How long a stored button reference lives when the confirm carries no usable expiry. */
const BUTTON_TTL_MS = 10 * 60_000;

/** What sending needs. */
export interface SendDeps {
  api: DingtalkApi;
  robotCode: string;
  book: SessionBook;
  payloads: CallbackPayloads;
  now: () => number;
  log: Logger;
}

/** One message to deliver: markdown (with its plain fallback) or plain text. */
type Part = { kind: 'markdown'; title: string; text: string; plain: string } | { kind: 'text'; text: string };

/** A `dtmd` link making the user send `content` to the robot. */
function sendLink(label: string, content: string): string {
  return `[${label}](dtmd://dingtalkclient/sendMessage?content=${encodeURIComponent(content)})`;
}

async function confirmPart(deps: SendDeps, confirm: OutboundConfirm, withPrompt: boolean, group: boolean): Promise<Part> {
  const exp = Date.parse(confirm.expires_at);
  const expiresAt = new Date(Number.isFinite(exp) && exp > deps.now() ? exp : deps.now() + BUTTON_TTL_MS);
  const links: string[] = [];
  for (const o of confirm.options) {
    // A question's option sends its number, which the turn matches like a typed answer.
    if (confirm.kind === 'choice') {
      links.push(sendLink(o.label, o.id));
      continue;
    }
    const word = BUTTON_WORDS[o.id as keyof typeof BUTTON_WORDS];
    const ref = await deps.payloads.encode(`${o.id}:${confirm.token}`, {
      limitBytes: BUTTON_PAYLOAD_LIMIT - Buffer.byteLength(`${word} `),
      expiresAt,
    });
    links.push(sendLink(o.label, `${word} ${ref}`));
  }
  const prompt = withPrompt ? renderDingtalkMd(confirm.prompt_md) : '';
  const hint = group ? (confirm.kind === 'choice' ? '群聊中请 @我 并回复序号。' : '群聊中请 @我 并回复「确认」或「取消」。') : '';
  const text = [prompt, links.join('　'), hint].filter((s) => s !== '').join('\n\n');
  return {
    kind: 'markdown',
    title: withPrompt
      ? dingtalkTitle(confirm.prompt_md, confirm.kind === 'choice' ? '请选择' : '请确认')
      : confirm.kind === 'choice'
        ? '请选择'
        : '请确认',
    text,
    plain: renderPlain(text),
  };
}

/** The parts of `message` in order (text chunks, then the confirmation). */
export async function composeParts(deps: SendDeps, target: OutboundTarget, message: OutboundMessage): Promise<Part[]> {
  const parts: Part[] = [];
  const confirm = message.confirm ?? null;
  if (message.text.trim() !== '') {
    if (message.format === 'markdown') {
      const title = dingtalkTitle(message.text);
      for (const chunk of splitReply(renderDingtalkMd(message.text), DINGTALK_TEXT_LIMIT, 'chars', {
        format: 'markdown',
        ...cutOf(message),
      })) {
        if (chunk.trim() !== '') parts.push({ kind: 'markdown', title, text: chunk, plain: renderPlain(chunk) });
      }
    } else {
      for (const chunk of splitReply(message.text, DINGTALK_TEXT_LIMIT, 'chars', { format: 'plain', ...cutOf(message) })) {
        if (chunk.trim() !== '') parts.push({ kind: 'text', text: chunk });
      }
    }
  }
  if (confirm) parts.push(await confirmPart(deps, confirm, message.text.trim() === '', target.chat_type === 'group'));
  return parts;
}

function sessionBody(p: Part): SessionMessage {
  return p.kind === 'markdown'
    ? { msgtype: 'markdown', markdown: { title: p.title, text: p.text } }
    : { msgtype: 'text', text: { content: p.text } };
}

function openApiMessage(p: Part): OpenApiMessage {
  return p.kind === 'markdown'
    ? { msgKey: 'sampleMarkdown', msgParam: { title: p.title, text: p.text } }
    : { msgKey: 'sampleText', msgParam: { content: p.text } };
}

/** The Open API address of a target: `{userIds}` or `{openConversationId}`, or a failure. */
function openApiAddress(
  target: OutboundTarget,
  route: SessionRoute | undefined,
): { path: string; address: Record<string, unknown> } | ApiFailure {
  const direct = target.chat_type === 'direct' || (target.chat_type === undefined && (route?.staffId ?? target.route?.staff_id) != null);
  if (!direct) return { path: '/v1.0/robot/groupMessages/send', address: { openConversationId: target.chat_id } };
  const staffId = target.chat_id.startsWith('cid') ? (route?.staffId ?? target.route?.staff_id ?? null) : target.chat_id;
  if (!staffId) {
    return {
      ok: false,
      status: 0,
      retryable: false,
      error: `no staff id known for single chat ${target.chat_id} (its session webhook expired)`,
      code: 'no_staff_id',
    };
  }
  return { path: '/v1.0/robot/oToMessages/batchSend', address: { userIds: [staffId] } };
}

/** Message id of an Open API answer (`processQueryKey`), when given. */
function queryKey(v: Record<string, unknown>): string | null {
  return typeof v.processQueryKey === 'string' ? v.processQueryKey : null;
}

/** A part the platform refused (carried out of {@link PartCursor.part}). */
class PartFailed extends Error {
  constructor(readonly failure: ApiFailure) {
    super(failure.error);
  }
}

/**
 * Deliver one message: text parts, the confirmation, then media. Parts delivered by an earlier
 * attempt (`opts.partsDone`) are skipped; a failure after some parts went out reports them
 * (`parts_done`, src/channel/parts.ts) so the outbox's retry resumes there.
 */
export async function sendDingtalk(
  deps: SendDeps,
  target: OutboundTarget,
  message: OutboundMessage,
  opts: SendOptions = {},
): Promise<SendResult> {
  const route = deps.book.get(target.chat_id);
  let session = route?.webhook && deps.now() < route.expiresAt - SESSION_MARGIN_MS ? route.webhook : null;
  // DingTalk's send APIs take no idempotency key: a part whose earlier send had an unknown outcome shows the marker.
  const cursor = new PartCursor(opts.partsDone, opts.resendMarker);

  async function viaOpenApi(msg: OpenApiMessage): Promise<ApiOutcome<Record<string, unknown>>> {
    const where = openApiAddress(target, route);
    if ('ok' in where) return where;
    return deps.api.postNew<Record<string, unknown>>(where.path, {
      robotCode: deps.robotCode,
      ...where.address,
      msgKey: msg.msgKey,
      msgParam: JSON.stringify(msg.msgParam),
    });
  }

  async function deliver(p: Part): Promise<ApiOutcome<Record<string, unknown>>> {
    if (session) {
      const r = await deps.api.postSession(session, sessionBody(p));
      // An unknown outcome may have posted it: never post it a second way in the same attempt.
      if (r.ok || (r.retryable && r.retry_after_ms != null) || r.unknown) return r;
      deps.log.info({ error: r.error }, 'dingtalk session webhook refused; falling back to the Open API');
      session = null;
    }
    return viaOpenApi(openApiMessage(p));
  }

  let parts: Part[];
  try {
    parts = await composeParts(deps, target, message);
  } catch (err) {
    return { ok: false, retryable: true, error: `could not store a button payload: ${(err as Error).message}` };
  }
  try {
    for (const part of parts) {
      const p: Part =
        part.kind === 'text'
          ? { ...part, text: cursor.marked(part.text) }
          : { ...part, text: cursor.marked(part.text), plain: cursor.marked(part.plain) };
      await cursor.part(async () => {
        let r = await deliver(p);
        if (!r.ok && !r.retryable && p.kind === 'markdown') {
          deps.log.info({ error: r.error }, 'dingtalk refused the markdown message; resending as plain text');
          r = await deliver({ kind: 'text', text: p.plain.trim() === '' ? p.text : p.plain });
        }
        if (!r.ok) throw new PartFailed(r);
        return queryKey(r.value);
      });
    }
    for (const m of message.media ?? []) {
      await cursor.part(async () => {
        const r = await sendMedia(deps, m, viaOpenApi);
        if (!r.ok) throw new PartFailed(r);
        return queryKey(r.value);
      });
    }
  } catch (err) {
    if (err instanceof PartFailed) return cursor.fail(failure(err.failure));
    throw err;
  }
  return { ok: true, message_ids: cursor.ids };
}

async function sendMedia(
  deps: SendDeps,
  m: OutboundMedia,
  viaOpenApi: (msg: OpenApiMessage) => Promise<ApiOutcome<Record<string, unknown>>>,
): Promise<ApiOutcome<Record<string, unknown>>> {
  let data: Buffer;
  try {
    data = await readFile(m.path);
  } catch (err) {
    return { ok: false, status: 0, retryable: false, error: `cannot read ${m.filename}: ${(err as Error).message}` };
  }
  const image = m.kind === 'image';
  const up = await deps.api.uploadMedia(image ? 'image' : 'file', m.filename, data, m.mime_type ?? 'application/octet-stream');
  if (!up.ok) return up;
  if (image) return viaOpenApi({ msgKey: 'sampleImageMsg', msgParam: { photoURL: up.value } });
  const fileType = extname(m.filename).slice(1).toLowerCase() || 'file';
  return viaOpenApi({ msgKey: 'sampleFile', msgParam: { mediaId: up.value, fileName: m.filename, fileType } });
}

function failure(r: ApiFailure): Extract<SendResult, { ok: false }> {
  const ambiguous = r.unknown === true;
  return {
    ok: false,
    retryable: r.retryable,
    retry_after_ms: r.retry_after_ms ?? null,
    error: r.error,
    code: r.code ?? null,
    ...(ambiguous ? { ambiguous } : {}),
  };
}
