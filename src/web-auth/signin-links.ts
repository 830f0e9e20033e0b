/**
 * Single-use sign-in links of the web chat (migration 0026; docs/web-protocol.md "Sign-in
 * links"). A person asks the bot for one on a channel where they are in the directory (the
 * built-in skill `web`, `/web` or 「网页登录」) or an operator issues one in the console; the
 * link `<base>/#signin=<code>` signs that contact in once, within {@link SIGNIN_LINK_TTL_MS}.
 * Using it gives the browser an ordinary web session token (src/web-auth/tokens.ts) in the
 * HttpOnly cookie. The code is `wl_` + 32 random bytes base64url; only its sha256 is stored
 * and the check-and-use is one UPDATE, so two uses at once sign in at most once.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/db.ts';

/** Prefix of every link code. */
export const SIGNIN_LINK_PREFIX = 'wl_';

/** How long a link is good for, ms (10 minutes). */
export const SIGNIN_LINK_TTL_MS = 10 * 60_000;

const hashCode = (code: string): Buffer => createHash('sha256').update(code, 'utf8').digest();

/** A newly issued link. */
export interface IssuedSigninLink {
  /** The code (shown once; only its hash is stored). */
  code: string;
  /** `<base>/#signin=<code>` (a URL fragment: never sent to a server, never in an access log). */
  url: string;
  expiresAt: Date;
}

/** The page base a link points at: `SKILLGATE_PUBLIC_URL`, else `http://localhost:<port>`. */
export function signinBase(publicUrl: string | undefined, port: number): string {
  return publicUrl?.replace(/\/+$/, '') || `http://localhost:${port || 8787}`;
}

/**
 * Issue a link for `contactKey` of `orgId` (the caller checked the contact is in the directory).
 * @param opts.via `chat:<channel>` or `console`; `nowMs` the clock; `base` the page base URL
 * @throws the database error
 */
export async function issueSigninLink(
  q: Queryable,
  orgId: string,
  contactKey: string,
  opts: { via: string; nowMs: number; base: string; ttlMs?: number },
): Promise<IssuedSigninLink> {
  const code = SIGNIN_LINK_PREFIX + randomBytes(32).toString('base64url');
  const expiresAt = new Date(opts.nowMs + (opts.ttlMs ?? SIGNIN_LINK_TTL_MS));
  await q.query(
    `INSERT INTO skillgate.web_signin_links (code_hash, org_id, contact_key, issued_via, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz)`,
    [hashCode(code), orgId, contactKey, opts.via, new Date(opts.nowMs).toISOString(), expiresAt.toISOString()],
  );
  return { code, url: `${opts.base.replace(/\/+$/, '')}/#signin=${code}`, expiresAt };
}

/**
 * Use a link: known, of `orgId`, unused and unexpired at `nowMs` — and marked used by the same
 * statement. @returns the contact key it signs in, or null for any refused code (never says why).
 * @throws the database error
 */
export async function consumeSigninLink(q: Queryable, orgId: string, code: string, nowMs: number): Promise<string | null> {
  if (typeof code !== 'string' || !code.startsWith(SIGNIN_LINK_PREFIX) || code.length > 200) return null;
  const at = new Date(nowMs).toISOString();
  const { rows } = await q.query<{ contact_key: string }>(
    `UPDATE skillgate.web_signin_links SET used_at = $3::timestamptz
      WHERE code_hash = $1 AND org_id = $2 AND used_at IS NULL AND expires_at > $3::timestamptz
      RETURNING contact_key`,
    [hashCode(code), orgId, at],
  );
  return rows[0]?.contact_key ?? null;
}
