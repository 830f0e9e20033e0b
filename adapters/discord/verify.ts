/**
 * Verification of the HTTP interactions endpoint (Discord "Receiving and Responding" → Security
 * and Authorization): `X-Signature-Ed25519` is the Ed25519 signature, by the application's public
 * key, of `X-Signature-Timestamp` + the raw body. Checked on the raw bytes before parsing;
 * timestamps outside the replay window (docs/adapter-authoring.md: 300 s) are refused.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { WebhookRequest, WebhookResponse } from '../../src/channel/index.ts';

/** Replay window of the signed timestamp, seconds (docs/adapter-authoring.md). */
export const REPLAY_WINDOW_S = 300;

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * The application's public key (64 hex characters, Developer Portal → General Information).
 * @throws Error when it is not 32 bytes of hex.
 */
export function publicKeyFromHex(hex: string): KeyObject {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('the Discord public key must be 64 hex characters');
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

/** Outcome: the parsed body, or the answer to give. */
export type Verified = { ok: true; body: unknown } | { ok: false; response: WebhookResponse };

/** Verify signature and timestamp, then parse. 401 for any signature problem, 400 for a body that is not JSON. */
export function verifyInteractionRequest(req: WebhookRequest, key: KeyObject, now: Date): Verified {
  const sigHex = req.headers['x-signature-ed25519'] ?? '';
  const ts = req.headers['x-signature-timestamp'] ?? '';
  if (!/^[0-9a-fA-F]{128}$/.test(sigHex) || !/^\d{1,12}$/.test(ts))
    return { ok: false, response: { status: 401, body: 'invalid request signature' } };
  if (Math.abs(now.getTime() / 1000 - Number(ts)) > REPLAY_WINDOW_S)
    return { ok: false, response: { status: 401, body: 'request timestamp outside the replay window' } };
  let good = false;
  try {
    good = verify(null, Buffer.concat([Buffer.from(ts, 'utf8'), req.body]), key, Buffer.from(sigHex, 'hex'));
  } catch {
    good = false;
  }
  if (!good) return { ok: false, response: { status: 401, body: 'invalid request signature' } };
  try {
    const body: unknown = JSON.parse(req.body.toString('utf8'));
    if (typeof body !== 'object' || body === null) return { ok: false, response: { status: 400, body: 'body is not a JSON object' } };
    return { ok: true, body };
  } catch {
    return { ok: false, response: { status: 400, body: 'body is not JSON' } };
  }
}
