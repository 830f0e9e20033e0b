/**
 * `POST /webhooks/dingtalk/<account>` — the robot's HTTP outgoing callback (docs/adapter-authoring.md;
 * https://open.dingtalk.com/document/orgapp/receive-message). Order:
 * 1. method POST (else 405);
 * 2. headers `timestamp` + `sign` checked on the raw request before the body is parsed
 *    ({@link checkCallbackHeaders}: 300 s window, injectable clock, constant-time) → 401; the
 *    pair then bound to this body in the database ({@link ReplayGuard}; the signature does not
 *    cover the body, so a replayed pair with another body would otherwise pass) → 401;
 * 3. the body parsed as one JSON object → 400; required fields missing → 400;
 * 4. our own robot's messages → 200 ignored; unsupported message types → 200, not handed to the
 *    core, a polite notice sent back; button presses (`确认 <ref>` in single chats) → callbacks;
 * 5. the conversation's reply route remembered, the message handed to the core (the inbox makes
 *    NUL / lone surrogates storable and dedups redeliveries by `msgId`) → 200 with an empty
 *    body (a JSON body would be sent back as a reply).
 */
import type { AdapterHost, CallbackPayloads, ReplayGuard, WebhookRequest, WebhookResponse } from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { asCallback, normalizeCallback, pressedButton } from './inbound.ts';
import { sessionWebhookUrl, type SessionBook } from './sessions.ts';
import { checkCallbackHeaders, REPLAY_WINDOW_MS } from './verify.ts';

/** What one account's webhook needs. */
export interface DingtalkWebhookContext {
  account: string;
  appSecret: string;
  /** ms since the epoch (replay window; tests inject one). */
  now: () => number;
  log: Logger;
  book: SessionBook;
  oapiRoot: string;
  payloads: CallbackPayloads;
  /** Once-only (timestamp, sign) pairs (src/channel/replay-guard.ts). */
  replays: ReplayGuard;
}

/** The polite answer to an unsupported message type (zh-CN first, English after). */
export const UNSUPPORTED_NOTICE =
  '暂不支持这种消息类型，请发送文字、图片或文件。\nThis message type is not supported yet; please send text, an image or a file.';

const unauthorized = (reason: string): WebhookResponse => ({ status: 401, body: { error: 'unauthorized', reason } });
const badRequest = (reason: string): WebhookResponse => ({ status: 400, body: { error: 'bad_request', reason } });
const OK: WebhookResponse = { status: 200 };

function parseObject(body: Buffer): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Verify, normalize and hand over one callback. Throws only when the host could not store it. */
export async function handleDingtalkWebhook(req: WebhookRequest, host: AdapterHost, ctx: DingtalkWebhookContext): Promise<WebhookResponse> {
  if (req.method.toUpperCase() !== 'POST') return { status: 405, body: { error: 'method_not_allowed' } };
  const check = checkCallbackHeaders(req.headers, ctx.appSecret, ctx.now());
  if (check !== 'ok')
    return unauthorized(check === 'missing' ? 'missing timestamp or sign' : check === 'stale' ? 'stale timestamp' : 'bad signature');
  // The signature does not cover the body: a (timestamp, sign) pair is good for one body only.
  const pair = `${req.headers.timestamp}\n${req.headers.sign}`;
  if (!(await ctx.replays.claim(pair, req.body, Number(req.headers.timestamp) + REPLAY_WINDOW_MS))) {
    return unauthorized('timestamp and sign already used with another body');
  }
  const payload = parseObject(req.body);
  if (!payload) return badRequest('body is not a JSON object');
  const n = normalizeCallback(payload, ctx.account, ctx.now());
  if (n.kind === 'bad') return badRequest(n.reason);
  if (n.kind === 'ignore') return OK;
  ctx.book.remember(n.msg.chat.id, { ...n.route, webhook: sessionWebhookUrl(n.route.webhook, ctx.oapiRoot) });
  if (n.kind === 'unsupported') {
    // Queued once per event by the core (outbox, keyed by the event's dedup key).
    await host.notice(n.msg, { kind: 'notice', text: UNSUPPORTED_NOTICE, format: 'plain' });
    return OK;
  }
  let msg = n.msg;
  const ref = msg.chat.type === 'direct' && msg.attachments.length === 0 ? pressedButton(msg.raw_input ?? '') : null;
  if (ref !== null) {
    const payloadText = await ctx.payloads.decode(ref);
    const cb = payloadText === null ? null : asCallback(msg, payloadText);
    if (cb) msg = cb;
  }
  await host.receive(msg);
  return OK;
}
