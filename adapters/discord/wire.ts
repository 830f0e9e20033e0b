/**
 * Discord wire facts the adapter relies on, in one place (API v10): limits, intents, gateway
 * close codes, channel/interaction/component types, application flags, and how a REST failure
 * is classified for the outbox. Payload shapes are discord-api-types' (re-exported by discord.js).
 * Sources: https://discord.com/developers/docs/resources/message#create-message,
 * https://discord.com/developers/docs/events/gateway#gateway-intents,
 * https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes,
 * https://discord.com/developers/docs/interactions/receiving-and-responding,
 * https://discord.com/developers/docs/components/reference#anatomy-of-a-component-custom-id.
 */
import { GatewayIntentBits } from 'discord.js';

/** `content`: up to 2000 characters (UTF-16 code units, as the API counts JavaScript strings). */
export const TEXT_LIMIT = 2000;
/** A component `custom_id`: 1-100 characters. Payloads are bounded by bytes (≤ characters) to stay safe. */
export const CUSTOM_ID_LIMIT = 100;
/** Default upload limit per file without boosts (10 MiB). */
export const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
/** REST root including `/api` (discord.js `rest.api`); DISCORD_API_ROOT overrides it. */
export const DEFAULT_API_ROOT = 'https://discord.com/api';
/** Message flag SUPPRESS_EMBEDS (1 << 2): used on plain-text resends. */
export const FLAG_SUPPRESS_EMBEDS = 1 << 2;
/** Message flag EPHEMERAL (1 << 6): interaction answers only the clicker sees. */
export const FLAG_EPHEMERAL = 1 << 6;

/** Channel types we map (DM, group DM; every other is a guild channel or thread). */
export const CHANNEL_DM = 1;
export const CHANNEL_GROUP_DM = 3;
/** Interaction types: PING (HTTP endpoint handshake), MESSAGE_COMPONENT (a button press). */
export const INTERACTION_PING = 1;
export const INTERACTION_COMPONENT = 3;
/** Component types: action row, button. */
export const COMPONENT_ROW = 1;
export const COMPONENT_BUTTON = 2;
/** Button styles: primary, secondary, danger. */
export const BUTTON_STYLE = { primary: 1, secondary: 2, danger: 4 } as const;
/** Interaction callback types: PONG, CHANNEL_MESSAGE_WITH_SOURCE, DEFERRED_UPDATE_MESSAGE. */
export const CALLBACK_PONG = 1;
export const CALLBACK_MESSAGE = 4;
export const CALLBACK_DEFERRED_UPDATE = 6;

/** Application flags telling whether the MESSAGE_CONTENT intent is enabled for this bot. */
export const APP_FLAG_MESSAGE_CONTENT = 1 << 18;
export const APP_FLAG_MESSAGE_CONTENT_LIMITED = 1 << 19;
/** Gateway close code 4014: a privileged intent was asked for but is not enabled. */
export const CLOSE_DISALLOWED_INTENTS = 4014;

/**
 * The intents the adapter asks for: Guilds, GuildMessages, DirectMessages, plus the
 * privileged MessageContent unless the account runs mention-only. The Channel partial is set on
 * the client as well (without it discord.js drops DM messages: DM channels are not cached).
 */
export function intentsFor(messageContent: boolean): GatewayIntentBits[] {
  const base = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages];
  return messageContent ? [...base, GatewayIntentBits.MessageContent] : base;
}

/** A REST failure as the adapter sees it. */
export interface ApiFailure {
  /** HTTP status, or null for a network failure/timeout. */
  status: number | null;
  /** Discord's JSON error code (50035 invalid form body, 10003 unknown channel, 50007 cannot DM …). */
  code?: number | string | null;
  description: string;
  /** Advised wait in ms (429). */
  retry_after_ms?: number;
  /** The request may have reached Discord (no answer after write, or a 5xx): src/channel/send-outcome.ts. */
  unknown?: boolean;
}

/** 429, 5xx and network failures are retried later; other 4xx are permanent (by status, never by text). */
export function isRetryable(f: ApiFailure): boolean {
  return f.status === null || f.status === 429 || f.status >= 500;
}

/** 50035 "Invalid Form Body": Discord refused the content as sent; resent once as plain text. */
export function isContentRejected(f: ApiFailure): boolean {
  return f.status === 400 && Number(f.code) === 50035;
}
