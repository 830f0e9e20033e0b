/**
 * Which session an inbound message belongs to: one session per role + channel +
 * account + chat (+ thread), so a group chat shares one workspace and a forum topic has its own.
 */
import { createHash } from 'node:crypto';
import { chatKeyOf } from '../channel/chat-key.ts';
import type { InboundMessage } from '../channel/types.ts';

export { chatKeyOf };

/**
 * The stable session id of a role's conversation in a chat: `c_` + the first 24 base64url
 * characters of sha256(`role \0 chat key`). Deterministic, so every replica and a restarted
 * process find the same session and workspace; not guessable from the chat id alone is not
 * required (the id is never a credential: files are served to the session owner only).
 */
export function sessionIdFor(roleId: string, msg: Pick<InboundMessage, 'channel' | 'account' | 'chat'>): string {
  const source = `${roleId}\u0000${chatKeyOf(msg)}`;
  let id = recent.get(source);
  if (id === undefined) {
    id = `c_${createHash('sha256').update(source, 'utf8').digest('base64url').slice(0, 24)}`;
    if (recent.size >= RECENT_MAX) recent.clear();
    recent.set(source, id);
  }
  return id;
}

/** Ids of the chats seen lately (a pure function of its source: kept without invalidation). */
const recent = new Map<string, string>();
const RECENT_MAX = 10_000;
