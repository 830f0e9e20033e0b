/**
 * Telegram Bot API wire facts the adapter relies on (https://core.telegram.org/bots/api), in
 * one place: limits, the webhook secret header, the update types we read, and how an API
 * failure is classified for the outbox. Update/Message shapes are grammY's own types
 * (`grammy/types`), which mirror the Bot API.
 */
import type { Message, Update, User } from 'grammy/types';

export type { Message, Update, User };

/** `sendMessage.text`: 1-4096 characters after entity parsing, counted in UTF-16 code units. */
export const TEXT_LIMIT = 4096;
/** Media captions: 0-1024 characters after entity parsing (UTF-16). */
export const CAPTION_LIMIT = 1024;
/** `InlineKeyboardButton.callback_data`: 1-64 bytes. */
export const CALLBACK_DATA_LIMIT = 64;
/** getFile on the cloud Bot API serves files up to 20 MB. */
export const DOWNLOAD_LIMIT_BYTES = 20 * 1024 * 1024;
/** Header Telegram sends with the `secret_token` given to setWebhook. */
export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
/** Allowed secret token: 1-256 of `A-Z a-z 0-9 _ -` (setWebhook). */
export const SECRET_TOKEN_RE = /^[A-Za-z0-9_-]{1,256}$/;
/** The default Bot API root. */
export const DEFAULT_API_ROOT = 'https://api.telegram.org';

/** Update fields that carry a message we handle; every other update type is ignored (200). */
export const MESSAGE_FIELDS = ['message', 'edited_message', 'channel_post', 'edited_channel_post'] as const;
export type MessageField = (typeof MESSAGE_FIELDS)[number];

/** Message content kinds the adapter turns into text/attachments; anything else is "unsupported". */
export const SUPPORTED_CONTENT = ['text', 'caption', 'photo', 'document', 'voice', 'audio', 'video', 'video_note', 'animation'] as const;

/** An API failure as the adapter sees it (from grammY's GrammyError / HttpError). */
export interface ApiFailure {
  /** HTTP-like error code (`error_code`), or null for a network failure. */
  code: number | null;
  description: string;
  retry_after_s?: number;
  /** The request may have reached Telegram (no answer after write, or a 5xx): src/channel/send-outcome.ts. */
  unknown?: boolean;
}

/**
 * Is the failure worth retrying later? 429 and 5xx and network failures are; 400/401/403/404
 * are permanent (bad request, bad token, blocked by the user, chat not found). Classified by
 * code only, never by the English description.
 */
export function isRetryable(f: ApiFailure): boolean {
  return f.code === null || f.code === 429 || f.code >= 500;
}

/**
 * A 400 that says the formatting could not be parsed ("Bad Request: can't parse entities: …").
 * Telegram has no distinct error code for it, so this one check reads the description; it only
 * decides whether to resend the same content as plain text, never whether a failure is hidden.
 */
export function isEntityParseError(f: ApiFailure): boolean {
  return f.code === 400 && /can't parse entities|unsupported start tag|can't find end tag|entity/i.test(f.description);
}
