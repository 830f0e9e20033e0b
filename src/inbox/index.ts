/** The inbox: durable, deduplicated inbound events (issue 5). */
export { createInbox, chatKey, INBOX_CHANNEL } from './inbox.ts';
export type { Inbox, InboxEvent, InboxHandler, InboxOptions, InboxStartOptions, InboxStopOptions } from './types.ts';
