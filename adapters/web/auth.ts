/**
 * Who is asking, for the web chat's HTTP routes and WebSocket upgrade: `Authorization: Bearer
 * <web token>` or the HttpOnly `SameSite=Strict` cookie set by `POST /api/web/signin` (whose
 * value is a web token). Never a token in a query string.
 */
import type { IncomingMessage } from 'node:http';
import { acceptedIdentity, bearerOf, type Queryable, readCookie, verifyWebToken, type WebIdentity } from '../../src/channel/index.ts';

/** Name of the sign-in cookie. */
export const COOKIE_NAME = 'sg_web';
/** Lifetime of a cookie sign-in, s (30 days). */
export const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

/** The token a request carries: the bearer header first, else the cookie. */
export function tokenOf(req: IncomingMessage): string | null {
  return bearerOf(req) ?? readCookie(req.headers.cookie, COOKIE_NAME);
}

/**
 * Authenticate a request by its token; a demo token counts only while `demoOn`.
 * @returns null when absent or refused. @throws the database error.
 */
export async function authenticateRequest(
  q: Queryable,
  orgId: string,
  req: IncomingMessage,
  nowMs: number,
  demoOn: boolean,
): Promise<WebIdentity | null> {
  const token = tokenOf(req);
  return token ? acceptedIdentity(await verifyWebToken(q, orgId, token, nowMs), demoOn) : null;
}

/** The `Set-Cookie` value that signs in with `token` (or clears the cookie when null). */
export function signinCookie(token: string | null, secure: boolean): string {
  const attrs = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  return token === null
    ? [`${COOKIE_NAME}=`, 'Max-Age=0', ...attrs].join('; ')
    : [`${COOKIE_NAME}=${encodeURIComponent(token)}`, `Max-Age=${COOKIE_MAX_AGE_S}`, ...attrs].join('; ');
}
