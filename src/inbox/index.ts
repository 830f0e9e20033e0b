/** The inbox: durable, deduplicated inbound events . */
export { createInbox, chatKey, INBOX_CHANNEL } from './inbox.ts';
export type {
  Inbox,
  InboxEvent,
  InboxHandler,
  InboxOptions,
  InboxStartOptions,
  InboxStopOptions,
  InboxStopResult,
  StartedCall,
} from './types.ts';
export {
  countInboxByStatus,
  discardQuarantined,
  listQuarantined,
  retryQuarantined,
  QUARANTINE_PAGE_MAX,
  type QuarantinedEvent,
} from './admin.ts';
export { floodLimitFromEnv, floodNotice, FLOOD_DEFAULT_PER_MINUTE, type FloodControl } from './flood.ts';
