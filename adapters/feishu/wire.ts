/**
 * Feishu / Lark wire shapes we read and write (only the fields used), and the platform error
 * codes the adapter classifies. Sources: open.feishu.cn im-v1 "Receive message" event,
 * "Message content description", card callback (card.action.trigger),
 * test/fixtures/adapters/feishu, library-facts §2 (SDK 1.74.0).
 */

/** Schema 2.0 event envelope header. */
export interface EventHeader {
  event_id: string;
  event_type: string;
  create_time?: string;
  token?: string;
  app_id?: string;
  tenant_key?: string;
}

/** Ids of a user. */
export interface UserIds {
  open_id?: string;
  union_id?: string;
  user_id?: string;
}

/** One mention of a message (`@_user_1` placeholder → id + name). */
export interface WireMention {
  key: string;
  id?: UserIds;
  name?: string;
}

/** `im.message.receive_v1` event body. */
export interface MessageEvent {
  sender?: { sender_id?: UserIds; sender_type?: string; tenant_key?: string };
  message?: {
    message_id?: string;
    root_id?: string;
    parent_id?: string;
    thread_id?: string;
    create_time?: string;
    chat_id?: string;
    chat_type?: string;
    message_type?: string;
    /** A JSON string. */
    content?: string;
    mentions?: WireMention[];
  };
}

/** `card.action.trigger` event body (card JSON 2.0 callbacks). */
export interface CardActionEvent {
  operator?: UserIds & { tenant_key?: string };
  /** The card-update token (not ours). */
  token?: string;
  action?: { value?: unknown; tag?: string; name?: string };
  context?: { open_message_id?: string; open_chat_id?: string };
}

/** A post element (content of `post` messages, inbound and outbound). */
export type PostElement =
  | { tag: 'text'; text: string; style?: string[]; un_escape?: boolean }
  | { tag: 'a'; text: string; href: string; style?: string[] }
  | { tag: 'at'; user_id: string; user_name?: string; style?: string[] }
  | { tag: 'img'; image_key: string; width?: number; height?: number }
  | { tag: 'media'; file_key: string; image_key?: string; file_name?: string }
  | { tag: 'file'; file_key: string; file_name?: string }
  | { tag: 'emotion'; emoji_type: string }
  | { tag: 'hr' }
  | { tag: 'code_block'; language?: string; text: string }
  | { tag: 'md'; text: string };

/** Post content of one language (inbound events carry it without the language key). */
export interface PostBody {
  title?: string;
  content?: PostElement[][];
}

/** API answer shape (`code` 0 = success). */
export interface ApiAnswer<T = unknown> {
  code?: number;
  msg?: string;
  data?: T;
}

/** Error codes the adapter acts on. */
export const FEISHU_CODES = {
  /** Frequency limit (HTTP 429, or 400 on older APIs), frequency-control doc. */
  RATE_LIMITED: 99991400,
  /** Per-chat 5 QPS send limit (third-party report; treated as retryable). */
  CHAT_RATE_LIMITED: 230020,
  /** Custom bot / app frequency (third-party note). */
  APP_RATE_LIMITED: 11232,
  /** Reply target withdrawn (openclaw #27614, #30444: "The message was withdrawn"). */
  TARGET_WITHDRAWN: 230011,
  /** Reply target not found / deleted. */
  TARGET_NOT_FOUND: 231003,
  /** Card content rejected (sub-code 11310 "card table number over limit" in msg). */
  CARD_CONTENT_FAILED: 230099,
  /** Tenant access token invalid/expired. */
  TOKEN_INVALID: 99991663,
  TOKEN_EXPIRED: 99991677,
} as const;

/** Rate-limit codes (retryable). */
export const RATE_LIMIT_CODES: ReadonlySet<number> = new Set([
  FEISHU_CODES.RATE_LIMITED,
  FEISHU_CODES.CHAT_RATE_LIMITED,
  FEISHU_CODES.APP_RATE_LIMITED,
]);

/** Codes meaning "the reply target is gone" (fall back to a new message). */
export const TARGET_GONE_CODES: ReadonlySet<number> = new Set([FEISHU_CODES.TARGET_WITHDRAWN, FEISHU_CODES.TARGET_NOT_FOUND]);

/** Body limits, UTF-8 bytes of the request (outbound-expectations.md §3): text 150 KB, post/card 30 KB. */
export const TEXT_BODY_LIMIT = 150 * 1024;
export const CARD_BODY_LIMIT = 30 * 1024;

/** Upload limits (image create / file create docs). */
export const IMAGE_UPLOAD_LIMIT = 10 * 1024 * 1024;
export const FILE_UPLOAD_LIMIT = 30 * 1024 * 1024;
