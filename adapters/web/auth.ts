/**
 * Who is asking, for the web chat's HTTP routes and WebSocket upgrade: `Authorization: Bearer
 * <web token>` or the HttpOnly `SameSite=Strict` cookie set by `POST /api/web/signin` (whose
 * value is a web token). Never a token in a query string.
 */
import type { IncomingMessage } from 'node:http';
import { acceptedIdentity, type Queryable, verifyWebToken, type WebIdentity } from '../../src/channel/index.ts';

/** Name of the sign-in cookie. */
export const COOKIE_NAME = 'sg_web';
/** Lifetime of a cookie sign-in, s (30 days). */
export const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

/** The value of cookie `name` in a `Cookie` header, or null. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() !== name) continue;
    const v = part.slice(i + 1).trim();
    try {
      return decodeURIComponent(v);
    } catch {
      return null;
    }
  }
  return null;
}

/** The bearer token of a request, or null. */
export function bearerOf(req: IncomingMessage): string | null {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : null;
}

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

/**
 * False when the request carries an `Origin` of another host than its `Host` (a cross-site
 * page driving a signed-in browser). Requests without `Origin` (non-browser clients) pass.
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined || origin === '') return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** The `Set-Cookie` value that signs in with `token` (or clears the cookie when null). */
export function signinCookie(token: string | null, secure: boolean): string {
  const attrs = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  return token === null
    ? [`${COOKIE_NAME}=`, 'Max-Age=0', ...attrs].join('; ')
    : [`${COOKIE_NAME}=${encodeURIComponent(token)}`, `Max-Age=${COOKIE_MAX_AGE_S}`, ...attrs].join('; ');
}
