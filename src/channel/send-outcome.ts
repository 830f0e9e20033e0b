/**
 * Did a failed send reach the platform? One place that reads the network errors of every HTTP
 * client the adapters use (undici `fetch` / `request`, axios under the Lark SDK, Node's `http`
 * under grammY, discord.js REST) and sorts them into two kinds (docs/operations-delivery.md
 * "Unknown outcomes"):
 *
 * - `not_sent`: the connection was never made (refused, DNS, unreachable, connect timeout,
 *   TLS handshake), so the request cannot have been written: a plain retry is safe;
 * - `unknown`: the request may have been written and no answer came back (reset or closed
 *   after write, a timeout while waiting for the answer, an abort): the platform may have
 *   acted on it, so the resend must rely on the platform's idempotency or show a marker.
 *
 * An HTTP 5xx answer is `unknown` too: the platform failed somewhere, possibly after it posted
 * the message.
 */
import type { Lang } from './types.ts';

/** What a failed send says about the platform having acted on it. */
export type SendPhase = 'not_sent' | 'unknown';

/** Codes of failures before the request could be written. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** Codes and names of failures after the request may have been written. */
const UNKNOWN_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_ABORTED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'ERR_STREAM_PREMATURE_CLOSE',
  'AbortError',
  'TimeoutError',
]);

/** Messages of connection-level failures that carry no code (Node's http, undici `terminated`, grammY's own timeout). */
const UNKNOWN_TEXT = /socket hang up|other side closed|terminated|network timeout|timeout of \d+ms exceeded|timed out after|aborted/i;
const NOT_SENT_TEXT = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|getaddrinfo/;

/** The error and the errors it wraps (`cause`, grammY's `error`, AggregateError's `errors`), at most 8 deep. */
function chain(err: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 8) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || out.includes(e as Record<string, unknown>)) continue;
    const o = e as Record<string, unknown>;
    out.push(o);
    queue.push(o.cause, o.error);
    if (Array.isArray(o.errors)) queue.push(...o.errors);
  }
  return out;
}

/**
 * Sort a thrown network error (whatever client threw it, wrapped or not).
 * @returns `not_sent` when no connection was made, `unknown` when the request may have been
 *   written (any other connection-level failure, or an error carrying a 5xx `status`), or null when `err` is not a network error
 *   (an API error answer, a programming error)
 */
export function sendPhaseOfError(err: unknown): SendPhase | null {
  const links = chain(err);
  let unknown = false;
  for (const e of links) {
    const code = typeof e.code === 'string' ? e.code : '';
    const name = typeof e.name === 'string' ? e.name : '';
    // A connect timeout (net `connect ETIMEDOUT`) never wrote anything.
    if (NOT_SENT_CODES.has(code) || (code === 'ETIMEDOUT' && e.syscall === 'connect') || name === 'ConnectTimeoutError') return 'not_sent';
    if (typeof e.syscall === 'string' && (e.syscall === 'getaddrinfo' || e.syscall === 'connect') && code !== '') return 'not_sent';
    if (UNKNOWN_CODES.has(code) || UNKNOWN_CODES.has(name) || name === 'SocketError' || name === 'HeadersTimeoutError') unknown = true;
    // An answer's status carried by the error (a 5xx page that was not the API's JSON).
    if (typeof e.status === 'number' && sendPhaseOfStatus(e.status) === 'unknown') unknown = true;
    const message = typeof e.message === 'string' ? e.message : '';
    if (NOT_SENT_TEXT.test(message)) return 'not_sent';
    if (UNKNOWN_TEXT.test(message)) unknown = true;
  }
  return unknown ? 'unknown' : null;
}

/** An HTTP answer's status as a {@link SendPhase}: 5xx is `unknown`, anything else null (the platform answered). */
export function sendPhaseOfStatus(status: number | null | undefined): SendPhase | null {
  return typeof status === 'number' && status >= 500 && status <= 599 ? 'unknown' : null;
}

/**
 * The visible marker a resend after an unknown outcome starts with, on channels without an
 * idempotency key (docs/operations-delivery.md "Unknown outcomes"), in the user's language.
 */
export function resendMarker(lang: Lang | null | undefined): string {
  return lang === 'en' ? '(possible duplicate) ' : '（可能重复）';
}
