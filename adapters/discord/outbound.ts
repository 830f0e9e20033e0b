/**
 * Sending to Discord ("Create Message",
 * "Uploading Files", "Allowed Mentions", components) through discord.js's REST client:
 * - markdown → Discord markdown (./render.ts), chunked AFTER rendering with
 *   src/channel/chunk.ts: 2000 UTF-16 units, a code fence open at a cut is closed and reopened
 *   (the reopened fence line counts against the limit); the first chunk replies to `reply_to`;
 * - `allowed_mentions: {parse: []}`: text never pings anyone;
 * - a chunk refused as "Invalid Form Body" (50035) is resent once as plain text (plain
 *   rendering, embeds suppressed);
 * - files as multipart `files[n]` + `payload_json` with `attachments[{id, filename}]`, the
 *   original Unicode file name kept;
 * - a confirmation becomes a row of buttons on the last message; each `custom_id`
 *   (`confirm:<token>`) ≤ 100, longer ones stored via src/channel/callback-payloads.ts;
 * - every failure returns `{ok:false, retryable, retry_after_ms?, error}` (never thrown). REST
 *   waits out a 429 only when it is at most `maxRetryDelayMs`; longer ones reject at once and go to
 *   the outbox with `retry_after_ms`. 5xx/network errors are not retried here (`retries: 0`).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DiscordAPIError, HTTPError, RateLimitError, REST, Routes, type RawFile } from 'discord.js';
import {
  type CallbackPayloads,
  cutOf,
  type OutboundConfirm,
  type OutboundMessage,
  type OutboundTarget,
  PartCursor,
  renderPlain,
  type SendOptions,
  sendPhaseOfError,
  sendPhaseOfStatus,
  type SendResult,
  splitMessage,
  splitReply,
} from '../../src/channel/index.ts';
import { renderDiscordMarkdown } from './render.ts';
import {
  BUTTON_STYLE,
  COMPONENT_BUTTON,
  COMPONENT_ROW,
  CUSTOM_ID_LIMIT,
  FLAG_SUPPRESS_EMBEDS,
  TEXT_LIMIT,
  isContentRejected,
  isRetryable,
  type ApiFailure,
} from './wire.ts';

/** What sending needs. */
export interface SendDeps {
  rest: REST;
  payloads: CallbackPayloads;
  now: () => Date;
}

/** A REST client for `apiRoot` (including `/api`), bounded as described in the module doc. */
export function createRest(token: string, apiRoot: string, maxRetryDelayMs: number): REST {
  return new REST({
    api: apiRoot,
    version: '10',
    retries: 0,
    timeout: 15_000,
    offset: 0,
    rejectOnRateLimit: (r) => r.retryAfter > maxRetryDelayMs,
  }).setToken(token);
}

/** The failure in whatever discord.js's REST threw. Non-API errors (an unreadable file) are permanent. */
export function failureOf(err: unknown): ApiFailure {
  if (err instanceof RateLimitError)
    return { status: 429, description: `rate limited on ${err.route} (${err.retryAfter} ms)`, retry_after_ms: err.retryAfter };
  const unknown = (s: number | null): { unknown?: true } => (sendPhaseOfStatus(s) === 'unknown' ? { unknown: true } : {});
  if (err instanceof DiscordAPIError) return { status: err.status, code: err.code, description: err.message, ...unknown(err.status) };
  if (err instanceof HTTPError) return { status: err.status, description: err.message || `HTTP ${err.status}`, ...unknown(err.status) };
  const e = err as { name?: string; code?: string; message?: string };
  const phase = sendPhaseOfError(err);
  if (phase || /fetch failed|ECONN|socket/i.test(`${e?.message ?? ''} ${e?.code ?? ''}`)) {
    return { status: null, description: e.message ?? 'network failure', ...(phase === 'unknown' ? { unknown: true } : {}) };
  }
  return { status: 0, description: err instanceof Error ? err.message : String(err) };
}

/**
 * The `nonce` of post `sub` of part `part` of the outbox row `key` (≤ 25 chars, Discord's
 * limit): sent with `enforce_nonce`, so a repeat within Discord's window (a few minutes)
 * returns the first message instead of posting another. Null without a key (not the outbox).
 */
export function partNonce(target: OutboundTarget, key: string | null | undefined, part: number, sub = 0): string | null {
  if (!key) return null;
  return createHash('sha256').update(`${target.account}:${key}:${part}:${sub}`).digest('hex').slice(0, 25);
}

/** {@link SendResult} of a failure. */
export function failed(f: ApiFailure): SendResult {
  return {
    ok: false,
    retryable: isRetryable(f),
    retry_after_ms: f.retry_after_ms ?? null,
    error: f.description || `discord error ${f.status ?? 'network'}`,
    code: f.code ?? f.status,
    ...(f.unknown ? { ambiguous: true } : {}),
  };
}

/** One text chunk to send: rendered Discord markdown, or plain text. */
export interface TextChunk {
  text: string;
  markdown: boolean;
}

/** The text chunks of a message, rendered then split (empty list when there is no text). */
export function textChunks(message: OutboundMessage): TextChunk[] {
  let md = message.text ?? '';
  if (md.trim() === '' && message.confirm) md = message.confirm.prompt_md;
  if (md.trim() === '') return [];
  const markdown = message.format === 'markdown';
  const text = markdown ? renderDiscordMarkdown(md) : md;
  return splitReply(text, TEXT_LIMIT, 'utf16', { format: markdown ? 'markdown' : 'plain', ...cutOf(message) })
    .filter((c) => c.trim() !== '')
    .map((t) => ({ text: t, markdown }));
}

/** Visible text of a rendered chunk, for the plain resend (markdown syntax removed). */
function plainOf(chunk: string): string {
  return renderPlain(chunk.replace(/\\([\\`*_~|[\]()>#<-])/g, (_m, c: string) => c));
}

async function buttons(deps: SendDeps, confirm: OutboundConfirm): Promise<unknown[]> {
  // Keep a stored reference a little past the token's expiry so a late press still reaches the core.
  const expiresAt = new Date(Math.max(new Date(confirm.expires_at).getTime() || 0, deps.now().getTime()) + 3600_000);
  const row = [];
  for (const o of confirm.options.slice(0, 5)) {
    row.push({
      type: COMPONENT_BUTTON,
      style: BUTTON_STYLE[o.style ?? (o.id === 'confirm' ? 'primary' : 'secondary')],
      label: o.label.slice(0, 80),
      custom_id: await deps.payloads.encode(`${o.id}:${confirm.token}`, { limitBytes: CUSTOM_ID_LIMIT, expiresAt }),
    });
  }
  return [{ type: COMPONENT_ROW, components: row }];
}

interface Body {
  content?: string;
  flags?: number;
  allowed_mentions: { parse: string[]; replied_user?: boolean };
  message_reference?: { message_id: string; fail_if_not_exists: false };
  components?: unknown[];
  attachments?: { id: number; filename: string }[];
  nonce?: string;
  enforce_nonce?: boolean;
}

/** The nonce of one post (see {@link partNonce}); null = none. */
type NonceOf = (sub: number) => string | null;

async function post(rest: REST, channelId: string, body: Body, files?: RawFile[], nonce?: string | null): Promise<string> {
  const b = nonce ? { ...body, nonce, enforce_nonce: true } : body;
  const res = (await rest.post(Routes.channelMessages(channelId), { body: b, ...(files ? { files } : {}) })) as { id?: unknown };
  return typeof res?.id === 'string' ? res.id : '';
}

/** Send one text chunk; on 50035 its plain text (split again if needed), embeds suppressed. */
async function sendChunk(rest: REST, channelId: string, chunk: TextChunk, common: Body, nonceOf: NonceOf): Promise<string> {
  try {
    return await post(rest, channelId, { ...common, content: chunk.text }, undefined, nonceOf(0));
  } catch (err) {
    if (!chunk.markdown || !isContentRejected(failureOf(err))) throw err;
    const parts = splitMessage(plainOf(chunk.text), TEXT_LIMIT, 'utf16').filter((p) => p.trim() !== '');
    let id = '';
    for (const [i, part] of parts.entries()) {
      const b: Body = { ...common, content: part, flags: FLAG_SUPPRESS_EMBEDS };
      if (i > 0) delete b.message_reference;
      if (i < parts.length - 1) delete b.components;
      id = await post(rest, channelId, b, undefined, nonceOf(i + 1));
    }
    return id;
  }
}

/**
 * Deliver one {@link OutboundMessage}: text chunks, then each file (its caption as content),
 * the buttons on the last message. Never throws for a platform failure. Parts delivered by an
 * earlier attempt (`opts.partsDone`) are skipped; a failure after some parts went out reports
 * them (`parts_done`, src/channel/parts.ts) so the outbox's retry resumes there. Every post
 * carries `nonce` + `enforce_nonce` ({@link partNonce}): a resend after an unknown outcome
 * within Discord's window returns the message already posted.
 */
export async function sendDiscord(
  deps: SendDeps,
  target: OutboundTarget,
  message: OutboundMessage,
  opts: SendOptions = {},
): Promise<SendResult> {
  const cursor = new PartCursor(opts.partsDone);
  try {
    const chunks = textChunks(message);
    const media = message.media ?? [];
    let components: unknown[] | undefined;
    try {
      components = message.confirm ? await buttons(deps, message.confirm) : undefined;
    } catch (err) {
      return failed({ status: null, description: `storing button payloads failed: ${(err as Error).message}` });
    }
    const replyTo = message.reply_to && /^\d{1,20}$/.test(message.reply_to) ? message.reply_to : null;
    const total = chunks.length + media.length;
    let index = 0;
    const common = (): Body => {
      const b: Body = { allowed_mentions: { parse: [], replied_user: false } };
      if (index === 0 && replyTo) b.message_reference = { message_id: replyTo, fail_if_not_exists: false };
      if (index === total - 1 && components) b.components = components;
      index++;
      return b;
    };
    // Each post carries a nonce of (row, part, sub-post): a resend after an unknown outcome is deduplicated.
    const nonces = (): NonceOf => {
      const part = cursor.done;
      return (sub) => partNonce(target, opts.idempotencyKey, part, sub);
    };
    for (const chunk of chunks) {
      const body = common();
      const nonceOf = nonces();
      await cursor.part(() => sendChunk(deps.rest, target.chat_id, chunk, body, nonceOf));
    }
    for (const m of media) {
      const caption = (m.caption ?? '').trim();
      const body = common();
      if (caption) {
        const parts = splitMessage(caption, TEXT_LIMIT, 'utf16');
        for (const part of parts.slice(0, -1)) {
          const nonce = nonces()(0);
          await cursor.part(() =>
            post(deps.rest, target.chat_id, { allowed_mentions: body.allowed_mentions, content: part }, undefined, nonce),
          );
        }
        body.content = parts.at(-1);
      }
      body.attachments = [{ id: 0, filename: m.filename }];
      const nonce = nonces()(0);
      await cursor.part(async () =>
        post(
          deps.rest,
          target.chat_id,
          body,
          [{ key: 'files[0]', name: m.filename, data: await readFile(m.path), contentType: m.mime_type ?? undefined }],
          nonce,
        ),
      );
    }
    return { ok: true, message_ids: cursor.ids };
  } catch (err) {
    return cursor.fail(failed(failureOf(err)));
  }
}
