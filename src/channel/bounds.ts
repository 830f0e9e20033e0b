/**
 * Size bounds of an inbound event's identifiers (texts and names are bounded by the request
 * body limit and stored as they are), checked where an adapter hands the event to
 * the core (docs/adapter-authoring.md "Field sizes"). Platform ids are short (Telegram and
 * Feishu ids well under 100 characters); a hostile or broken event with a huge id would
 * otherwise fail at the database (an index row has a size limit) on every redelivery.
 */
import type { InboundMessage } from './types.ts';

/** Longest identifier accepted (chat, thread, sender, message, dedup key, album), characters. */
export const INBOUND_ID_MAX = 512;

/** Thrown by the core for an event it refuses for good (the webhook answers 400; a poller skips it). */
export class InboundRefusedError extends Error {
  override readonly name = 'InboundRefusedError';
}

/**
 * The first field of `msg` over its bound, as `"<field> is <n> characters (at most <max>)"`,
 * or null when every field fits.
 */
export function inboundBoundsProblem(msg: InboundMessage): string | null {
  const checks: Array<[string, unknown, number]> = [
    ['account', msg.account, INBOUND_ID_MAX],
    ['dedupe_key', msg.dedupe_key, INBOUND_ID_MAX],
    ['message_id', msg.message_id, INBOUND_ID_MAX],
    ['chat.id', msg.chat?.id, INBOUND_ID_MAX],
    ['chat.thread_id', msg.chat?.thread_id, INBOUND_ID_MAX],
    ['actor.id', msg.actor?.id, INBOUND_ID_MAX],
    ['media_group_id', msg.media_group_id, INBOUND_ID_MAX],
    ['reply_to.message_id', msg.reply_to?.message_id, INBOUND_ID_MAX],
  ];
  for (const [id, v] of Object.values(msg.actor?.ids ?? {}).entries()) checks.push([`actor.ids[${id}]`, v, INBOUND_ID_MAX]);
  for (const [field, value, max] of checks) {
    if (typeof value === 'string' && value.length > max) return `${field} is ${value.length} characters (at most ${max})`;
  }
  return null;
}
