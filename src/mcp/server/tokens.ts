/**
 * Tokens of the MCP endpoint (docs/mcp.md "Tokens"): `mcp_` + 32 random bytes base64url,
 * shown once; the table keeps its sha256, so verification is a primary-key lookup of the hash
 * (no secret compared byte by byte) and a database leak reveals no usable token. Each token
 * binds an org, a role and a directory contact; revoking is setting `revoked_at`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../store/db.ts';

/** Prefix of every MCP token. */
export const MCP_TOKEN_PREFIX = 'mcp_';

/** Prefix of the public id of a token (independent of the secret). */
export const MCP_TOKEN_ID_PREFIX = 'mcpt_';

/** Who a verified token acts as. */
export interface McpIdentity {
  tokenId: string;
  orgId: string;
  roleId: string;
  contactKey: string;
}

/** One token as listed (never the token itself). */
export interface McpTokenRow extends McpIdentity {
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Issue a token for `contactKey` in role `roleId` of `orgId` and store its hash.
 * @returns the token (shown once) and its public id (`mcpt_` + 12 hex digits, random).
 * @throws the database error.
 */
export async function issueMcpToken(q: Queryable, id: Omit<McpIdentity, 'tokenId'>): Promise<{ token: string; tokenId: string }> {
  const secret = randomBytes(32).toString('base64url');
  const token = MCP_TOKEN_PREFIX + secret;
  const tokenId = MCP_TOKEN_ID_PREFIX + randomBytes(6).toString('hex');
  await q.query(`INSERT INTO skillgate.mcp_tokens (token_hash, token_id, org_id, role_id, contact_key) VALUES ($1, $2, $3, $4, $5)`, [
    hashToken(token),
    tokenId,
    id.orgId,
    id.roleId,
    id.contactKey,
  ]);
  return { token, tokenId };
}

/**
 * Verify a bearer token: known and not revoked; records the use (`last_used_at`).
 * @returns the identity, or null for any refused token (never says why).
 * @throws the database error.
 */
export async function verifyMcpToken(q: Queryable, token: string): Promise<McpIdentity | null> {
  if (typeof token !== 'string' || !token.startsWith(MCP_TOKEN_PREFIX) || token.length > 200) return null;
  const { rows } = await q.query<{ token_id: string; org_id: string; role_id: string; contact_key: string }>(
    `UPDATE skillgate.mcp_tokens SET last_used_at = now() WHERE token_hash = $1 AND revoked_at IS NULL
     RETURNING token_id, org_id, role_id, contact_key`,
    [hashToken(token)],
  );
  const r = rows[0];
  return r ? { tokenId: r.token_id, orgId: r.org_id, roleId: r.role_id, contactKey: r.contact_key } : null;
}

/**
 * Revoke by public id or by the token itself. @returns true when a live token was revoked.
 * @throws the database error.
 */
export async function revokeMcpToken(q: Queryable, idOrToken: string): Promise<boolean> {
  const byToken = idOrToken.startsWith(MCP_TOKEN_PREFIX) && idOrToken.length > 20;
  const { rowCount } = await q.query(
    `UPDATE skillgate.mcp_tokens SET revoked_at = now() WHERE ${byToken ? 'token_hash' : 'token_id'} = $1 AND revoked_at IS NULL`,
    [byToken ? hashToken(idOrToken) : idOrToken],
  );
  return rowCount > 0;
}

/** Every token of `orgId` (newest first), without secrets. @throws the database error. */
export async function listMcpTokens(q: Queryable, orgId?: string): Promise<McpTokenRow[]> {
  const { rows } = await q.query<{
    token_id: string;
    org_id: string;
    role_id: string;
    contact_key: string;
    created_at: Date;
    last_used_at: Date | null;
    revoked_at: Date | null;
  }>(
    `SELECT token_id, org_id, role_id, contact_key, created_at, last_used_at, revoked_at FROM skillgate.mcp_tokens
     ${orgId ? 'WHERE org_id = $1' : ''} ORDER BY created_at DESC, token_id`,
    orgId ? [orgId] : [],
  );
  const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);
  return rows.map((r) => ({
    tokenId: r.token_id,
    orgId: r.org_id,
    roleId: r.role_id,
    contactKey: r.contact_key,
    createdAt: iso(r.created_at)!,
    lastUsedAt: iso(r.last_used_at),
    revokedAt: iso(r.revoked_at),
  }));
}
