/**
 * The chat key: `<channel>:<account>:<chat id>[:<thread id>]` — the unit of ordering (inbox,
 * outbox), of stopping a running turn and of sessions. One implementation for an inbound
 * message and an outbound target alike.
 */
import type { InboundMessage, OutboundTarget } from './types.ts';

function key(channel: string, account: string, chatId: string, threadId: string | null | undefined): string {
  const base = `${channel}:${account}:${chatId}`;
  return threadId ? `${base}:${threadId}` : base;
}

/** The chat key of an inbound message. */
export function chatKeyOf(msg: Pick<InboundMessage, 'channel' | 'account' | 'chat'>): string {
  return key(msg.channel, msg.account, msg.chat.id, msg.chat.thread_id);
}

/** The chat key of an outbound target (the same chat as the message it answers). */
export function targetChatKey(t: Pick<OutboundTarget, 'channel' | 'account' | 'chat_id' | 'thread_id'>): string {
  return key(t.channel, t.account, t.chat_id, t.thread_id);
}
