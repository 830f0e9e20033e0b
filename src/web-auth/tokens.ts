/**
 * Web chat sign-in tokens (docs/web-protocol.md "Authentication"): the web channel signs people
 * in with them, the console accepts the same tokens, the CLI and the console issue them.
 *
 * A token is `wt_` + 32 random bytes base64url, shown once; the table keeps only its sha256
 * (`skillgate.web_tokens.token_hash`), so verification is a primary-key lookup of the hash —
 * no secret is ever compared byte by byte, and a database leak reveals no usable token.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/db.ts';

/** Prefix of every web token. */
export const WEB_TOKEN_PREFIX = 'wt_';

/** How a token came to be: issued to a contact (CLI, console, sign-in link) or by the demo picker. */
export type WebTokenSource = 'issued' | 'demo';

/** Who a verified token signs in. */
export interface WebIdentity {
  orgId: string;
  contactKey: string;
  /** A `demo` token never opens the console. */
  source: WebTokenSource;
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Issue a new token for `contactKey` of `orgId` and store its hash.
 * @param opts.expiresAt optional expiry (null/absent = no expiry).
 * @param opts.source `issued` (default) or `demo` (the demo picker's sign-in).
 * @returns the token (`wt_…`, 46 characters); it cannot be recovered later.
 * @throws the database error.
 */
export async function issueWebToken(
  q: Queryable,
  orgId: string,
  contactKey: string,
  opts: { expiresAt?: Date | null; source?: WebTokenSource } = {},
): Promise<string> {
  const token = WEB_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  await q.query(`INSERT INTO skillgate.web_tokens (token_hash, org_id, contact_key, expires_at, source) VALUES ($1, $2, $3, $4, $5)`, [
    hashToken(token),
    orgId,
    contactKey,
    opts.expiresAt ?? null,
    opts.source ?? 'issued',
  ]);
  return token;
}

/**
 * Verify a token: known, of `orgId`, not revoked, not expired at `nowMs` (epoch ms).
 * @returns the identity, or null for any refused token (never says why).
 * @throws the database error.
 */
export async function verifyWebToken(q: Queryable, orgId: string, token: string, nowMs: number): Promise<WebIdentity | null> {
  if (typeof token !== 'string' || !token.startsWith(WEB_TOKEN_PREFIX) || token.length > 200) return null;
  const { rows } = await q.query<{ org_id: string; contact_key: string; expires_at: Date | null; revoked_at: Date | null; source: string }>(
    `SELECT org_id, contact_key, expires_at, revoked_at, source FROM skillgate.web_tokens WHERE token_hash = $1`,
    [hashToken(token)],
  );
  const r = rows[0];
  if (!r || r.org_id !== orgId || r.revoked_at !== null) return null;
  if (r.expires_at !== null && new Date(r.expires_at).getTime() <= nowMs) return null;
  return { orgId: r.org_id, contactKey: r.contact_key, source: r.source === 'demo' ? 'demo' : 'issued' };
}

/**
 * A verified identity as the web chat accepts it: a `demo` token only while demo identities
 * are on (a token the picker issued on loopback stops working once the gateway serves a network).
 */
export function acceptedIdentity(id: WebIdentity | null, demoOn: boolean): WebIdentity | null {
  return id && (id.source !== 'demo' || demoOn) ? id : null;
}

/**
 * Revoke a token (sign-out). @returns true when a live token was revoked.
 * @throws the database error.
 */
export async function revokeWebToken(q: Queryable, token: string): Promise<boolean> {
  const { rowCount } = await q.query(`UPDATE skillgate.web_tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL`, [
    hashToken(token),
  ]);
  return rowCount > 0;
}

/** One web session (a token) of a contact, as the console lists it. */
export interface WebSession {
  /** hex of the token's sha256 — names the session; cannot sign anyone in. */
  id: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/** The web sessions of `contactKey` of `orgId`, newest first (at most 200). @throws the database error. */
export async function listWebSessions(q: Queryable, orgId: string, contactKey: string): Promise<WebSession[]> {
  const { rows } = await q.query<{ id: string; created_at: Date; expires_at: Date | null; revoked_at: Date | null }>(
    `SELECT encode(token_hash, 'hex') AS id, created_at, expires_at, revoked_at FROM skillgate.web_tokens
      WHERE org_id = $1 AND contact_key = $2 ORDER BY created_at DESC LIMIT 200`,
    [orgId, contactKey],
  );
  const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString());
  return rows.map((r) => ({
    id: r.id,
    created_at: new Date(r.created_at).toISOString(),
    expires_at: iso(r.expires_at),
    revoked_at: iso(r.revoked_at),
  }));
}

/**
 * Revoke the live sessions of `contactKey` of `orgId`: the one named `id` (see {@link WebSession}),
 * or all of them when `id` is absent. @returns how many were revoked. @throws the database error.
 */
export async function revokeWebSessions(q: Queryable, orgId: string, contactKey: string, id?: string): Promise<number> {
  if (id !== undefined && !/^[0-9a-f]{64}$/.test(id)) return 0;
  const { rowCount } = await q.query(
    `UPDATE skillgate.web_tokens SET revoked_at = now()
      WHERE org_id = $1 AND contact_key = $2 AND revoked_at IS NULL AND ($3::text IS NULL OR token_hash = decode($3::text, 'hex'))`,
    [orgId, contactKey, id ?? null],
  );
  return rowCount;
}
