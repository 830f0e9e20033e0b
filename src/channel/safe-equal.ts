/**
 * Constant-time string compares for webhook verification (docs/adapter-authoring.md: "constant-time
 * compares"; preamble "Security by default"). One place for every adapter and the WeCom crypto.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of two strings' UTF-8 bytes (`crypto.timingSafeEqual` over
 * equal-length buffers). Only the LENGTH may leak: on a length difference it still does one
 * compare of the same size and returns false. Use it for values whose length is public
 * (signatures, digests, ids); use {@link digestEqual} when the length itself is secret.
 */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  if (x.length !== y.length) {
    timingSafeEqual(x, x); // the same work either way
    return false;
  }
  return timingSafeEqual(x, y);
}

/**
 * Constant-time equality that leaks not even the length: compares the SHA-256 digests of both
 * strings (e.g. a presented secret token against the configured one; Telegram's
 * `X-Telegram-Bot-Api-Secret-Token`).
 */
export function digestEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a, 'utf8').digest();
  const y = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(x, y);
}
