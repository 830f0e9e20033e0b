/**
 * Feishu / Lark webhook verification on the raw body (docs/adapter-authoring.md; "the SDK's own
 * inbound checks are not enough"). Pure functions, no I/O; the clock is a parameter.
 *
 * Platform rules (open.feishu.cn "Event subscription: encrypt & signature", library-facts §2):
 * - signature (only sent when an Encrypt Key is configured): `X-Lark-Signature` =
 *   hex(SHA-256(timestamp + nonce + encrypt_key + raw_body)), with `X-Lark-Request-Timestamp`
 *   (seconds) and `X-Lark-Request-Nonce`;
 * - legacy message-card callbacks sign hex(SHA-1(timestamp + nonce + verification_token + raw_body));
 * - encryption: body `{"encrypt": base64}`, AES-256-CBC, key = SHA-256(encrypt_key), IV = the
 *   first 16 bytes of the decoded value, PKCS#7 padding;
 * - the Verification Token sits in `header.token` (schema 2.0) or `token` (1.0, url_verification).
 * Every secret compare is constant time.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { safeEqual } from '../../src/channel/index.ts';

/** Replay window for signed requests, seconds (docs/adapter-authoring.md). */
export const REPLAY_WINDOW_S = 300;

/** hex(SHA-256(timestamp + nonce + encryptKey + body)) — the event signature. */
export function eventSignature(timestamp: string, nonce: string, encryptKey: string, body: Buffer): string {
  return createHash('sha256')
    .update(timestamp + nonce + encryptKey, 'utf8')
    .update(body)
    .digest('hex');
}

/** hex(SHA-1(timestamp + nonce + verificationToken + body)) — the legacy card-callback signature. */
export function legacyCardSignature(timestamp: string, nonce: string, verificationToken: string, body: Buffer): string {
  return createHash('sha1')
    .update(timestamp + nonce + verificationToken, 'utf8')
    .update(body)
    .digest('hex');
}

/**
 * Decrypt an `encrypt` value. @returns the plaintext, or null when it is not valid base64 /
 * AES-256-CBC with PKCS#7 padding under this key (never throws).
 */
export function decryptEvent(encrypt: string, encryptKey: string): string | null {
  try {
    if (!/^[A-Za-z0-9+/=\s]+$/.test(encrypt)) return null;
    const raw = Buffer.from(encrypt, 'base64');
    if (raw.length < 32 || (raw.length - 16) % 16 !== 0) return null;
    const key = createHash('sha256').update(encryptKey, 'utf8').digest();
    const d = createDecipheriv('aes-256-cbc', key, raw.subarray(0, 16));
    const out = Buffer.concat([d.update(raw.subarray(16)), d.final()]);
    return out.toString('utf8');
  } catch {
    return null;
  }
}

/** Encrypt like the platform does (tests and fakes). */
export function encryptEvent(plain: string, encryptKey: string, iv: Buffer = randomBytes(16)): string {
  const key = createHash('sha256').update(encryptKey, 'utf8').digest();
  const c = createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, c.update(plain, 'utf8'), c.final()]).toString('base64');
}

/**
 * True when `timestamp` (decimal seconds) is within {@link REPLAY_WINDOW_S} of `nowMs`
 * (both directions). Anything not a plain integer is refused.
 */
export function freshTimestamp(timestamp: string, nowMs: number, windowS = REPLAY_WINDOW_S): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(nowMs / 1000 - Number(timestamp)) <= windowS;
}

/** The signature headers of a request (lower-cased names), when all three are present. */
export interface SignatureHeaders {
  timestamp: string;
  nonce: string;
  signature: string;
}

/** Read `x-lark-request-timestamp`, `x-lark-request-nonce`, `x-lark-signature`; null if any is missing. */
export function signatureHeaders(headers: Record<string, string | undefined>): SignatureHeaders | null {
  const timestamp = headers['x-lark-request-timestamp'];
  const nonce = headers['x-lark-request-nonce'];
  const signature = headers['x-lark-signature'];
  if (!timestamp || nonce === undefined || !signature) return null;
  return { timestamp, nonce, signature };
}

/** Outcome of {@link checkSignature}. */
export type SignatureCheck = 'ok' | 'ok_legacy_card' | 'stale' | 'bad';

/**
 * Check a signed request: the timestamp inside the replay window, then the SHA-256 event
 * signature (with an encrypt key) or the SHA-1 legacy card signature (with a verification token).
 */
export function checkSignature(
  sig: SignatureHeaders,
  body: Buffer,
  secrets: { encryptKey?: string; verificationToken?: string },
  nowMs: number,
): SignatureCheck {
  if (!freshTimestamp(sig.timestamp, nowMs)) return 'stale';
  const given = sig.signature.trim().toLowerCase();
  if (secrets.encryptKey && safeEqual(given, eventSignature(sig.timestamp, sig.nonce, secrets.encryptKey, body))) return 'ok';
  if (secrets.verificationToken && safeEqual(given, legacyCardSignature(sig.timestamp, sig.nonce, secrets.verificationToken, body))) {
    return 'ok_legacy_card';
  }
  return 'bad';
}

/** The verification token an (already decrypted) payload carries: `header.token` (2.0) or `token` (1.0). */
export function tokenOf(payload: Record<string, unknown>): string | null {
  const header = payload.header;
  if (header && typeof header === 'object' && typeof (header as Record<string, unknown>).token === 'string') {
    return (header as Record<string, string>).token!;
  }
  return typeof payload.token === 'string' ? payload.token : null;
}
