/**
 * Where a request carries its credentials, and whether it comes from this site: shared by the web
 * chat (adapters/web/auth.ts) and the console's sign-in (src/console/auth.ts). Never a token in a
 * query string.
 */
import type { IncomingMessage } from 'node:http';

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
