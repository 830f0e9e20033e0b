/**
 * The web chat's conversation ids (docs/web-protocol.md): one per contact, derived, never stored.
 */
import { createHash } from 'node:crypto';

/**
 * The stable conversation id of a contact: `conv_` + the first 22 base64url characters of
 * sha256(`orgId \0 contactKey`). The same on every replica and after every reload, so the
 * session (role + channel + account + chat) and resumption survive.
 */
export function conversationIdFor(orgId: string, contactKey: string): string {
  return 'conv_' + createHash('sha256').update(`${orgId}\u0000${contactKey}`, 'utf8').digest('base64url').slice(0, 22);
}

/** True when `s` has the shape of a {@link conversationIdFor} result. */
export function isConversationId(s: string): boolean {
  return /^conv_[A-Za-z0-9_-]{22}$/.test(s);
}
