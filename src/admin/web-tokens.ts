/** Web chat sign-in tokens for directory contacts (docs/web-protocol.md). */
import { findContact } from '../identity/contacts.ts';
import { identityDirectory, type WebDirectory } from '../web-auth/directory.ts';
import { issueWebToken } from '../web-auth/tokens.ts';
import type { Db } from '../store/db.ts';

/** What a web token request asks for (also the body of the local admin API route). */
export interface WebTokenRequest {
  orgId: string;
  contactKey: string;
}

/** Result of {@link runWebTokenCommand}. */
export type WebTokenResult = { ok: true; contact_key: string; name: string; org_id: string; token: string } | { ok: false; error: string };

/**
 * Issue a token for a contact of the directory. Never throws for a user mistake.
 * @throws the database error; an error when the directory cannot be read.
 */
export async function runWebTokenCommand(
  db: Db,
  req: WebTokenRequest,
  directory: WebDirectory = identityDirectory(db, findContact),
): Promise<WebTokenResult> {
  const key = String(req.contactKey ?? '').trim();
  if (key === '') return { ok: false, error: 'a contact key is required' };
  const contact = await directory.find(req.orgId, key);
  if (!contact) return { ok: false, error: `contact "${key}" is not in the directory of org "${req.orgId}"` };
  const token = await issueWebToken(db, req.orgId, contact.contact_key);
  return { ok: true, contact_key: contact.contact_key, name: contact.name, org_id: req.orgId, token };
}
