/**
 * The one entry of the core for channel adapters: `adapters/<channel>/` imports from `src/` only
 * this file and the logger type `src/log/logger.ts` (docs/architecture-rules.md,
 * docs/adapter-authoring.md). What is not exported here is the core's own business; a new need
 * of an adapter is added here by name, or handed to the adapter at construction.
 */

// The contract between the core and an adapter: messages in, replies out, capabilities.
export {
  nearLimit,
  type AdapterCapabilities,
  type AdapterHost,
  type AttachmentKind,
  type ChannelAdapter,
  type ChannelName,
  type ChatType,
  type DisplayCapability,
  type FetchedAttachment,
  type InboundActor,
  type InboundAttachment,
  type InboundCallback,
  type InboundMessage,
  type Lang,
  type LengthUnit,
  type NoticeEvent,
  type OutboundConfirm,
  type OutboundMedia,
  type OutboundMessage,
  type OutboundTarget,
  type SendIdempotency,
  type SendOptions,
  type SendResult,
  type WebhookAdapter,
  type WebhookRequest,
  type WebhookResponse,
} from './types.ts';

// A channel's declaration (adapters/<channel>/channel.ts) and its factory, one adapter per account.
export type { ChannelDeclaration } from './declaration.ts';
export type { ChannelFactory, ChannelFactoryContext } from './factory.ts';
export { perAccountChannel, type BuiltAccount } from './per-account.ts';

// An account's settings from `.env` / the config file, refused with a ConfigError naming the key.
export {
  accountsFor,
  apiRootSetting,
  channelAccounts,
  numberSetting,
  requireSetting,
  setting,
  settingError,
  settingName,
  webhookPath,
  type ChannelAccount,
} from './accounts.ts';

// The database an adapter's own stores run on (the process's Db, or a transaction of it).
export type { Db, Queryable } from './db.ts';

// Errors an adapter throws or meets: oversized attachment, lost lease, refused inbound event.
export { AttachmentTooLargeError, LeaseLostError } from './errors.ts';
export { InboundRefusedError } from './bounds.ts';

// Webhook transport: the shared request handling, replay guard and constant-time comparisons.
export { handleWebhookRequest } from './webhooks.ts';
export { createReplayGuard, type ReplayGuard } from './replay-guard.ts';
export { digestEqual, safeEqual } from './safe-equal.ts';

// Inbound helpers: batching platform events, storable copies of raw payloads, upload file names.
export { createBatcher, type Batcher } from './batch.ts';
export { storableCopy, storableText } from './storable.ts';
export { dispositionFilename } from './content-disposition.ts';

// Outbound: measuring and splitting replies in the platform's unit, resumable parts, send outcomes.
export { measure, splitMessage, type SplitFormat, type SplitUnit } from './chunk.ts';
export { cutOf, splitReply, type SplitReplyOptions } from './split-reply.ts';
export { REPLY_MAX_PARTS } from './long-reply.ts';
export { PartCursor } from './parts.ts';
export { sendPhaseOfError, sendPhaseOfStatus, type SendPhase } from './send-outcome.ts';
// A `fetch` for SDKs that take one, on Node's http with keep-alive (half of node-fetch's CPU).
export { requestFetch, type RequestFetchInit, type RequestFetchResponse } from './request-fetch.ts';

// Buttons: the payload a button carries, and the stored payloads of platforms with short callback data.
export { buttonPayload, parseButtonPayload } from './button-payload.ts';
export { createCallbackPayloads, type CallbackPayloads } from './callback-payloads.ts';

// Long connections: the state a transport resumes from after a restart or a takeover (fenced by its lease).
export type { ConnectionState } from './connection-state.ts';

// A value built on first use (a platform client, a token).
export { Lazy } from './lazy.ts';

// Markdown rendering shared by the dialects: the parsed tree, the visitor, the plain and web dialects.
export {
  alignedTable,
  inlineText,
  parseMarkdown,
  renderPlain,
  renderWebHtml,
  renderWith,
  safeAbsoluteUrl,
  textList,
  type MdAlign,
  type MdBlock,
  type MdInline,
  type MdVisitor,
} from './render/index.ts';
// Building blocks of the markdown-flavoured dialects (fences, quotes, lists, code spans).
export { codeLang, delimited, fencedBlock, longestBacktickRun, markerList, quoteBlocks, simpleCodeSpan } from './render/md-blocks.ts';

// Web sign-in (the web channel): tokens, single-use links, contact lookup, request credentials, page CSP (src/web-auth/).
export { acceptedIdentity, issueWebToken, revokeWebToken, verifyWebToken, type WebIdentity } from '../web-auth/tokens.ts';
export { consumeSigninLink } from '../web-auth/signin-links.ts';
export { DEMO_CONTACT_KEYS, isDemoContact, type WebContact, type WebDirectory } from '../web-auth/directory.ts';
export { bearerOf, readCookie, sameOrigin } from '../web-auth/request.ts';
export { PAGE_CSP } from '../web-auth/page-policy.ts';
