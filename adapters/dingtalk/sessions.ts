/**
 * What a DingTalk conversation's last callback told us about replying to it: the temporary
 * `sessionWebhook` (valid until `sessionWebhookExpiredTime`, ms; about 1.5 hours) and, for single
 * chats, the sender's staff id (the Open API `batchSend` addresses users, not conversations).
 *
 * Kept in process memory on purpose: the session webhook is a bearer URL that must not be
 * stored, and losing it (restart, another replica) only costs the fallback to the Open API.
 * Bounded: the oldest entries are dropped past {@link SESSION_BOOK_MAX}.
 */

/** Most conversations remembered. */
export const SESSION_BOOK_MAX = 10_000;

/** One conversation's reply route. */
export interface SessionRoute {
  /** Absolute session webhook URL, already checked against the configured old-API root. */
  webhook: string | null;
  /** ms since the epoch. */
  expiresAt: number;
  /** Staff id of the single-chat partner (null in groups or when the sender has none). */
  staffId: string | null;
}

/** The book of one adapter. */
export class SessionBook {
  readonly #routes = new Map<string, SessionRoute>();

  /** Remember (or refresh) the route of `conversationId`. */
  remember(conversationId: string, route: SessionRoute): void {
    this.#routes.delete(conversationId);
    this.#routes.set(conversationId, route);
    if (this.#routes.size > SESSION_BOOK_MAX) this.#routes.delete(this.#routes.keys().next().value!);
  }

  /** The route of `conversationId`, if any. */
  get(conversationId: string): SessionRoute | undefined {
    return this.#routes.get(conversationId);
  }
}

/** Path of DingTalk's session webhook on the old API host. */
export const SESSION_WEBHOOK_PATH = '/robot/sendBySession';

/**
 * The URL to POST a reply to for a callback's `sessionWebhook`: its path and query rebased onto
 * the configured old-API root (`DINGTALK_OAPI_ROOT`, default https://oapi.dingtalk.com — the
 * host real session webhooks use, so this is the identity in production). A webhook with another
 * path is refused (null), so a callback can never make the gateway POST to an arbitrary URL.
 */
export function sessionWebhookUrl(raw: string | null, oapiRoot: string): string | null {
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (u.pathname !== SESSION_WEBHOOK_PATH || u.username || u.password) return null;
  return `${oapiRoot.replace(/\/+$/, '')}${u.pathname}${u.search}`;
}
