/** The outbox: durable outbound delivery with retries, per-chat order and rate limits . */
export { createOutbox, OUTBOX_CHANNEL, systemClock } from './outbox.ts';
export { backoffMs, retryAt } from './backoff.ts';
export { AccountPacer, CHANNEL_POLICIES, chatPaceOf, operatorCeilings, type ChannelPolicy, type Pace, type RateLimit } from './pacing.ts';
export { targetChatKey } from './store.ts';
export { eventNoticeItem } from './event-notice.ts';
export type { Outbox, OutboxClock, OutboxItem, OutboxOptions, OutboxRecord, OutboxStatus, OutboxStatusInfo } from './types.ts';
export {
  listFailedDeliveries,
  countByStatus,
  retryFailedDelivery,
  discardFailedDelivery,
  FAILED_PAGE_MAX,
  type FailedDelivery,
  type OutboxAdminStatus,
} from './admin.ts';
