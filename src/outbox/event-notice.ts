/**
 * The outbox item of a notice answering one inbound event (AdapterHost.notice, src/channel/types.ts):
 * addressed to the event's chat (and thread), replying to its message, keyed by its dedup key so
 * a redelivered event stores nothing new and the user gets the notice once.
 */
import type { NoticeEvent, OutboundMessage } from '../channel/types.ts';
import type { OutboxItem } from './types.ts';

/**
 * @param event the event being answered (`dedupe_key` is unique per channel account, docs/adapter-authoring.md)
 * @param message the notice; `reply_to` defaults to the event's message, `final` to true
 * @returns the item to enqueue (idempotency key `notice:<channel>:<account>:<dedupe_key>`)
 */
export function eventNoticeItem(event: NoticeEvent, message: OutboundMessage): OutboxItem {
  return {
    target: {
      channel: event.channel,
      account: event.account,
      chat_id: event.chat.id,
      thread_id: event.chat.thread_id ?? null,
      chat_type: event.chat.type,
    },
    message: { ...message, reply_to: message.reply_to === undefined ? event.message_id : message.reply_to, final: message.final ?? true },
    idempotency_key: `notice:${event.channel}:${event.account}:${event.dedupe_key}`,
    origin: { notice_for: event.dedupe_key },
  };
}
