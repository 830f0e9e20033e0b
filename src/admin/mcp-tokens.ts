/** Bearer tokens of the MCP endpoint: issue, revoke, list (docs/mcp.md). */
import { findContact } from '../identity/contacts.ts';
import { directoryOrgId } from '../identity/org.ts';
import { issueMcpToken, listMcpTokens, revokeMcpToken, type McpTokenRow } from '../mcp/server/tokens.ts';
import type { Db } from '../store/db.ts';

/** One request of the command (also the body of the local admin API route). */
export type McpTokenRequest =
  | { op: 'issue'; orgId: string; roleId: string; contactKey: string }
  | { op: 'revoke'; tokenId: string }
  | { op: 'list' };

/** Result of {@link runMcpTokenCommand}. */
export type McpTokenResult =
  | { ok: true; op: 'issue'; token: string; token_id: string; contact_key: string; name: string; role_id: string; org_id: string }
  | { ok: true; op: 'revoke'; token_id: string }
  | { ok: true; op: 'list'; tokens: McpTokenRow[] }
  | { ok: false; error: string };

/**
 * Issue, revoke or list. Never throws for a user mistake.
 * @throws the database error.
 */
export async function runMcpTokenCommand(db: Db, req: McpTokenRequest): Promise<McpTokenResult> {
  if (req.op === 'list') return { ok: true, op: 'list', tokens: await listMcpTokens(db) };
  if (req.op === 'revoke') {
    const id = String(req.tokenId ?? '').trim();
    if (!(await revokeMcpToken(db, id))) return { ok: false, error: `no live MCP token "${id}"` };
    return { ok: true, op: 'revoke', token_id: id };
  }
  const key = String(req.contactKey ?? '').trim();
  if (key === '') return { ok: false, error: 'a contact key is required' };
  const contact = await findContact(db, directoryOrgId(req.orgId, req.roleId), key);
  if (!contact) return { ok: false, error: `contact "${key}" is not in the directory of org "${req.orgId}"` };
  const { token, tokenId } = await issueMcpToken(db, { orgId: req.orgId, roleId: req.roleId, contactKey: contact.contactKey });
  return {
    ok: true,
    op: 'issue',
    token,
    token_id: tokenId,
    contact_key: contact.contactKey,
    name: contact.name,
    role_id: req.roleId,
    org_id: req.orgId,
  };
}
