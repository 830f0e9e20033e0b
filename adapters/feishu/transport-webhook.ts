/**
 * `POST /webhooks/feishu/<account>` (docs/adapter-authoring.md): our own verification on the raw
 * body before anything else sees the event — the SDK is never involved inbound here.
 *
 * Order of checks:
 * 1. signed request (`X-Lark-Signature` + timestamp + nonce): timestamp within 300 s (injectable
 *    clock) and the SHA-256 signature over the raw bytes (encrypt key), or the SHA-1 legacy card
 *    signature (verification token) → else 401; a timestamp header is checked for freshness even
 *    on unsigned requests;
 * 2. with an Encrypt Key configured, an unsigned request is accepted only as the URL-verification
 *    handshake (encrypted `{encrypt}` that decrypts under our key to `type: url_verification`
 *    with our token), and a plaintext body only as a signed legacy card callback → else 401;
 * 3. JSON → 400 when a signed body is unparseable, 401 when an unsigned one is (an unsigned
 *    request is never parsed further than the handshake / token check needs; with an Encrypt
 *    Key it must be exactly `{encrypt}` before anything is decrypted); `{encrypt}` decrypted
 *    (400 when it does not decrypt after a valid signature, 401 on the unsigned handshake path);
 * 4. the Verification Token (`header.token` / `token`) compared in constant time → 401;
 * 5. `url_verification` → `{challenge}`; schema 2.0 events → {@link dispatchEvent}; anything
 *    else → 200 and ignored.
 */
import { createHash } from 'node:crypto';
import { type AdapterHost, safeEqual, type WebhookRequest, type WebhookResponse } from '../../src/channel/index.ts';
import { dispatchEvent, type DispatchContext } from './dispatch.ts';
import { checkSignature, decryptEvent, freshTimestamp, signatureHeaders, tokenOf } from './verify.ts';
import type { CardActionEvent, EventHeader } from './wire.ts';

/** Secrets and clock of one account's webhook. */
export interface WebhookContext extends DispatchContext {
  encryptKey?: string;
  verificationToken?: string;
  /** ms since the epoch (tests inject one). */
  now: () => number;
}

const unauthorized = (why: string): WebhookResponse => ({ status: 401, body: { error: 'unauthorized', reason: why } });
const badRequest = (why: string): WebhookResponse => ({ status: 400, body: { error: 'bad_request', reason: why } });
const ok = (body: Record<string, unknown> = {}): WebhookResponse => ({ status: 200, body });

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function parseJson(s: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(s);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** A legacy (pre-2.0) card callback: flat `{open_id, open_message_id, action:{value}}`. */
function isLegacyCard(p: Record<string, unknown>): boolean {
  return isObject(p.action) && typeof p.open_message_id === 'string' && p.schema === undefined;
}

/** Verify, decrypt, authenticate and dispatch one webhook request. */
export async function handleFeishuWebhook(req: WebhookRequest, host: AdapterHost, ctx: WebhookContext): Promise<WebhookResponse> {
  if (req.method.toUpperCase() !== 'POST') return { status: 405, body: { error: 'method_not_allowed' } };
  if (!ctx.encryptKey && !ctx.verificationToken) return unauthorized('webhook not configured');
  const nowMs = ctx.now();
  const sig = signatureHeaders(req.headers);
  let signed: 'event' | 'legacy_card' | null = null;
  if (sig) {
    const check = checkSignature(sig, req.body, { encryptKey: ctx.encryptKey, verificationToken: ctx.verificationToken }, nowMs);
    if (check === 'stale') return unauthorized('stale timestamp');
    if (check === 'bad') return unauthorized('bad signature');
    signed = check === 'ok' ? 'event' : 'legacy_card';
  } else {
    const ts = req.headers['x-lark-request-timestamp'];
    if (ts !== undefined && !freshTimestamp(ts, nowMs)) return unauthorized('stale timestamp');
  }

  const outer = parseJson(req.body.toString('utf8'));
  // Unsigned, only the documented handshake / token-carrying JSON can be genuine: anything else is unauthenticated.
  if (!outer) return signed ? badRequest('body is not a JSON object') : unauthorized('unsigned body is not a JSON object');
  if (!signed && ctx.encryptKey && (typeof outer.encrypt !== 'string' || Object.keys(outer).length !== 1)) {
    return unauthorized('missing signature');
  }

  let payload = outer;
  if (typeof outer.encrypt === 'string') {
    if (!ctx.encryptKey) return badRequest('encrypted body but no encrypt key configured');
    const plain = decryptEvent(outer.encrypt, ctx.encryptKey);
    const inner = plain === null ? null : parseJson(plain);
    if (!inner)
      return signed ? badRequest('encrypt does not decrypt to a JSON object') : unauthorized('encrypt does not decrypt under our key');
    payload = inner;
    if (!signed && payload.type !== 'url_verification') return unauthorized('missing signature');
  } else if (ctx.encryptKey && signed !== 'legacy_card') {
    return unauthorized(signed ? 'plaintext body while an encrypt key is configured' : 'missing signature');
  }

  if (signed !== 'legacy_card' && ctx.verificationToken) {
    const token = tokenOf(payload);
    if (token === null || !safeEqual(token, ctx.verificationToken)) return unauthorized('bad verification token');
  }

  if (payload.type === 'url_verification') {
    return typeof payload.challenge === 'string' ? ok({ challenge: payload.challenge }) : badRequest('challenge missing');
  }

  if (signed === 'legacy_card' && !isLegacyCard(payload)) return unauthorized('legacy card signature on something else');
  if (signed === 'legacy_card') {
    const header: EventHeader = {
      event_id: `legacy_card_${createHash('sha256').update(req.body).digest('hex').slice(0, 32)}`,
      event_type: 'card.action.trigger',
    };
    const event: CardActionEvent = {
      operator: { open_id: String(payload.open_id ?? ''), user_id: String(payload.user_id ?? '') },
      action: payload.action as CardActionEvent['action'],
      context: { open_message_id: String(payload.open_message_id ?? ''), open_chat_id: String(payload.open_chat_id ?? '') },
    };
    const out = await dispatchEvent(header, event, ctx, host);
    return ok(out.reply ?? {});
  }

  if (payload.schema !== '2.0' || !isObject(payload.header)) return ok({}); // v1 events and others: ignored
  const h = payload.header;
  if (typeof h.event_id !== 'string' || h.event_id === '' || typeof h.event_type !== 'string')
    return badRequest('header.event_id/event_type missing');
  const header: EventHeader = {
    event_id: h.event_id,
    event_type: h.event_type,
    create_time: typeof h.create_time === 'string' ? h.create_time : undefined,
    token: typeof h.token === 'string' ? h.token : undefined,
    app_id: typeof h.app_id === 'string' ? h.app_id : undefined,
    tenant_key: typeof h.tenant_key === 'string' ? h.tenant_key : undefined,
  };
  const out = await dispatchEvent(header, payload.event, ctx, host);
  return ok(out.reply ?? {});
}
