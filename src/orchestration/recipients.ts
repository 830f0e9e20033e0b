/**
 * Recipient addresses of `send_message` and pending replies (docs/messaging.md; R-MSG-02, A-49):
 * `<channel>[@<account>]:<recipient id>`, e.g. `feishu:ou_xxx`, `telegram@ops_bot:12345`,
 * `web:demo_worker` (web ids are directory contact keys). The account defaults to `default`
 * (the one configured from `.env`).
 */

import { directoryOrgId } from '../identity/org.ts';
import { findContact } from '../identity/contacts.ts';
import type { Logger } from '../log/logger.ts';
import type { Queryable } from '../store/db.ts';

/** One parsed address. */
export interface Recipient {
  /** The address as given (trimmed). */
  to: string;
  channel: string;
  /** The account named after `@`, or null when none was (meaning `default`). */
  account: string | null;
  /** The platform id (chat id / open_id / contact key). */
  id: string;
}

const ADDRESS_RE = /^([a-z][a-z0-9_]*)(?:@([A-Za-z0-9_.-]+))?:(.+)$/;

/** Parse one address. @returns the recipient, or null when it is not `<channel>[@<account>]:<id>` */
export function parseRecipient(to: string): Recipient | null {
  const s = to.trim();
  const m = ADDRESS_RE.exec(s);
  if (!m) return null;
  const id = m[3]!.trim();
  if (id === '') return null;
  return { to: s, channel: m[1]!, account: m[2] ?? null, id };
}

/**
 * The `to` input: one address or a list of them (a string may also separate several with
 * commas). @returns the addresses in order, duplicates removed, or null when `to` is empty or not text
 */
export function recipientList(to: unknown): string[] | null {
  const list = typeof to === 'string' ? to.split(/[,，;；\n]/) : Array.isArray(to) ? to : null;
  if (!list || list.some((x) => typeof x !== 'string')) return null;
  const out = [...new Set((list as string[]).map((x) => x.trim()).filter((x) => x !== ''))];
  return out.length > 0 ? out : null;
}

/** A web conversation id (`conv_` + 22 url-safe characters): the web adapter checks its owner itself. */
const CONVERSATION_ID_RE = /^conv_[A-Za-z0-9_-]{22}$/;

/**
 * Is web recipient `id` (a contact key) unknown — not in the directory of the calling role's
 * org, `directoryOrgId(ctx.org_id, ctx.role_id)` (R-ORG-02; fresh-user test: a message
 * to `web:nobody_here` must fail, not count as delivered)? A conversation id is left to the web
 * adapter (it refuses an unknown one). A failed lookup is logged and answers false (the message
 * goes on; the outbox reports what happens).
 */
export async function unknownWebRecipient(q: Queryable, ctx: Record<string, unknown>, id: string, log?: Logger): Promise<boolean> {
  if (CONVERSATION_ID_RE.test(id)) return false;
  const org = directoryOrgId(typeof ctx.org_id === 'string' ? ctx.org_id : '', typeof ctx.role_id === 'string' ? ctx.role_id : '');
  try {
    return (await findContact(q, org, id)) === null;
  } catch (err) {
    log?.warn({ err: err instanceof Error ? err.message : String(err), skill: 'send_message' }, 'web recipient lookup failed');
    return false;
  }
}
