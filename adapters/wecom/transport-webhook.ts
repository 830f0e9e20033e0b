/**
 * `GET|POST /webhooks/wecom/<account>` (docs/adapter-authoring.md;;
 * developer.work.weixin.qq.com/document/path/90930 回调配置, /90968 加解密).
 *
 * `GET` is the URL verification: `msg_signature`, `timestamp`, `nonce`, `echostr` in the query;
 * the signature is checked over `echostr`, which is decrypted and — when its receive id is our
 * CorpID — answered as plain text (no quotes, no BOM, no newline).
 *
 * `POST` carries the encrypted XML envelope. Order of checks, nothing parsed beyond what each
 * step needs:
 * 1. `msg_signature`, `timestamp`, `nonce` present, else 401; `timestamp` within 300 s of the
 *    (injectable) clock, else 401;
 * 2. only the envelope's `Encrypt` element is read (401 when there is none: the signature covers
 *    it, so such a body can never be verified);
 * 3. SHA-1 signature over token/timestamp/nonce/Encrypt, constant-time compare, else 401;
 * 4. decrypt (400 when it does not decrypt after a valid signature); receive id = CorpID, else 401;
 * 5. the inner XML parsed and normalized (400 when malformed); events we do not handle → 200.
 * A stored (or duplicate) event is answered 200 with an empty body, which WeCom accepts.
 */
import {
  type AdapterHost,
  type CallbackPayloads,
  parseButtonPayload,
  safeEqual,
  type WebhookRequest,
  type WebhookResponse,
} from '../../src/channel/index.ts';
import { checkWecomSignature, wecomDecrypt } from './crypto.ts';
import { normalizeWecom } from './inbound.ts';
import { CALLBACK_BODY_LIMIT, envelopeEncrypt, parseWecomXml } from './wire.ts';

/** Replay window on `timestamp`, seconds (docs/adapter-authoring.md). */
export const REPLAY_WINDOW_S = 300;

/** What one account's webhook needs. */
export interface WecomWebhookContext {
  account: string;
  /** The callback Token. */
  token: string;
  /** The 32-byte AES key (from the EncodingAESKey). */
  key: Buffer;
  corpId: string;
  /** ms since the epoch. */
  now: () => number;
  /** The member's display name ('' when unknown); never throws. */
  displayName(userId: string): Promise<string>;
  payloads: CallbackPayloads;
}

/** The polite answer to an unsupported message type (zh-CN first, English after). */
export const UNSUPPORTED_NOTICE =
  '暂不支持这种消息类型，请发送文字、图片、语音或文件。\nThis message type is not supported yet; please send text, an image, a voice message or a file.';

const unauthorized = (reason: string): WebhookResponse => ({ status: 401, body: { error: 'unauthorized', reason } });
const badRequest = (reason: string): WebhookResponse => ({ status: 400, body: { error: 'bad_request', reason } });
const empty = (): WebhookResponse => ({ status: 200, body: '' });

function fresh(timestamp: string, nowMs: number): boolean {
  return /^\d{1,12}$/.test(timestamp) && Math.abs(nowMs / 1000 - Number(timestamp)) <= REPLAY_WINDOW_S;
}

/** The three signing values of the query, or null when one is missing/empty. */
function signingQuery(q: WebhookRequest['query']): { signature: string; timestamp: string; nonce: string } | null {
  const signature = q.msg_signature;
  const timestamp = q.timestamp;
  const nonce = q.nonce;
  if (!signature || !timestamp || !nonce) return null;
  return { signature, timestamp, nonce };
}

/** Verify, decrypt and dispatch one webhook request. Never throws but for a storage failure. */
export async function handleWecomWebhook(req: WebhookRequest, host: AdapterHost, ctx: WecomWebhookContext): Promise<WebhookResponse> {
  const method = req.method.toUpperCase();
  if (method !== 'GET' && method !== 'POST') return { status: 405, body: { error: 'method_not_allowed' } };
  const sig = signingQuery(req.query);
  if (!sig) return unauthorized('msg_signature, timestamp and nonce are required');
  if (!fresh(sig.timestamp, ctx.now())) return unauthorized('stale timestamp');

  if (method === 'GET') {
    const echostr = req.query.echostr;
    if (!echostr) return unauthorized('echostr missing');
    if (!checkWecomSignature(sig.signature, ctx.token, sig.timestamp, sig.nonce, echostr)) return unauthorized('bad msg_signature');
    const plain = wecomDecrypt(echostr, ctx.key);
    if (!plain) return badRequest('echostr does not decrypt');
    if (!safeEqual(plain.receiveId, ctx.corpId)) return unauthorized('receive id is not our CorpID');
    return { status: 200, body: plain.msg, headers: { 'content-type': 'text/plain; charset=utf-8' } };
  }

  if (req.body.length > CALLBACK_BODY_LIMIT) return badRequest('body too large');
  const encrypt = envelopeEncrypt(req.body.toString('utf8'));
  if (encrypt === null) return unauthorized('no Encrypt element: nothing the signature could cover');
  if (!checkWecomSignature(sig.signature, ctx.token, sig.timestamp, sig.nonce, encrypt)) return unauthorized('bad msg_signature');
  const plain = wecomDecrypt(encrypt, ctx.key);
  if (!plain) return badRequest('Encrypt does not decrypt');
  if (!safeEqual(plain.receiveId, ctx.corpId)) return unauthorized('receive id is not our CorpID');
  const inner = parseWecomXml(plain.msg);
  if (!inner) return badRequest('decrypted message is not WeCom XML');

  const from = inner.FromUserName ?? '';
  const wantsName = inner.MsgType !== 'event' || inner.Event === 'template_card_event';
  const displayName = from !== '' && wantsName ? await ctx.displayName(from) : '';
  const out = normalizeWecom(inner, { account: ctx.account, displayName, now: ctx.now });
  switch (out.type) {
    case 'invalid':
      return badRequest(out.reason);
    case 'ignore':
      return empty();
    case 'unsupported':
      // Not handed to the core; the notice is queued once per event (outbox, keyed by the event's dedup key).
      await host.notice(out.msg, { kind: 'notice', text: UNSUPPORTED_NOTICE, format: 'plain' });
      return empty();
    case 'message':
      await host.receive(out.msg); // the inbox makes NUL / lone surrogates storable
      return empty();
    case 'callback': {
      const resolved = await ctx.payloads.decode(out.data);
      if (resolved === null) return empty(); // an expired or unknown button reference
      const { action, token } = parseButtonPayload(resolved);
      await host.receive({ ...out.msg, callback: { id: null, action, token, data: resolved } });
      return empty();
    }
  }
}
