/**
 * The Telegram webhook check (docs/adapter-authoring.md; Bot API #setwebhook): the
 * `X-Telegram-Bot-Api-Secret-Token` header must equal the secret given to setWebhook. It is
 * compared in constant time (SHA-256 of both, `timingSafeEqual`, so the length leaks nothing)
 * BEFORE the body is parsed. Missing or wrong → 401; not JSON or not an Update → 400; otherwise
 * the update is processed and Telegram gets 200 (any non-2xx makes it redeliver).
 */
import { digestEqual, type WebhookRequest, type WebhookResponse } from '../../src/channel/index.ts';
import { SECRET_HEADER, type Update } from './wire.ts';

/** Constant-time equality of a presented secret and the configured one. */
export function secretMatches(presented: string | undefined, secret: string): boolean {
  if (presented === undefined || secret === '') return false;
  return digestEqual(presented, secret);
}

/** The verified request's Update, or the response refusing it. */
export type Verified = { ok: true; update: Update } | { ok: false; response: WebhookResponse };

/**
 * Verify then parse one webhook request. Only the header is read before the check passes.
 * An Update is a JSON object with a non-negative integer `update_id`.
 */
export function verifyTelegramWebhook(req: WebhookRequest, secret: string): Verified {
  if (req.method.toUpperCase() !== 'POST') return { ok: false, response: { status: 405, body: 'method not allowed' } };
  if (!secretMatches(req.headers[SECRET_HEADER], secret)) return { ok: false, response: { status: 401, body: 'secret token is wrong' } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body.toString('utf8'));
  } catch {
    return { ok: false, response: { status: 400, body: 'body is not JSON' } };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, response: { status: 400, body: 'not an Update' } };
  const id = (parsed as { update_id?: unknown }).update_id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0)
    return { ok: false, response: { status: 400, body: 'update_id missing' } };
  return { ok: true, update: parsed as Update };
}
