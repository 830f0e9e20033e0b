/**
 * Verification of DingTalk robot callbacks
 * (https://open.dingtalk.com/document/orgapp/receive-message): headers `timestamp` (ms since the
 * epoch) and `sign` = base64(HMAC-SHA256(key = app secret, message = timestamp + "\n" + app
 * secret)). Both must pass: the timestamp within the replay window (docs/adapter-authoring.md: 300 s, either
 * direction) and the signature, compared in constant time. The body plays no part in the
 * signature, so the webhook accepts each header pair once (src/channel/replay-guard.ts).
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../src/channel/index.ts';

/** Replay window (docs/adapter-authoring.md), milliseconds. */
export const REPLAY_WINDOW_MS = 300_000;

/** The `sign` header value for `timestamp` (a string of ms) under `appSecret`. */
export function callbackSign(timestamp: string, appSecret: string): string {
  return createHmac('sha256', appSecret).update(`${timestamp}\n${appSecret}`, 'utf8').digest('base64');
}

/** Outcome of {@link checkCallbackHeaders}. */
export type CallbackCheck = 'ok' | 'missing' | 'stale' | 'bad';

/**
 * Check the `timestamp` + `sign` headers of one callback at `nowMs`.
 * `missing` = a header absent or empty; `stale` = timestamp not a plain integer or outside the
 * window; `bad` = signature mismatch.
 */
export function checkCallbackHeaders(
  headers: Record<string, string | undefined>,
  appSecret: string,
  nowMs: number,
  windowMs: number = REPLAY_WINDOW_MS,
): CallbackCheck {
  const ts = headers.timestamp;
  const sign = headers.sign;
  if (!ts || !sign) return 'missing';
  if (!/^\d{1,16}$/.test(ts)) return 'stale';
  if (Math.abs(nowMs - Number(ts)) > windowMs) return 'stale';
  return safeEqual(sign, callbackSign(ts, appSecret)) ? 'ok' : 'bad';
}
