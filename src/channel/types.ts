/**
 * The adapter contract: the typed values that cross the boundary
 * between a channel adapter and the core. Adapters know nothing of skills; the core knows no
 * platform API.
 *
 * Field names follow the normalized shape of the fixtures' expected.json (`dedupe_key`,
 * `raw_input`, `display_input`, `input_without_bot_mention`, `platform_ref`, `addressed_to_bot`)
 * so the contract kit compares an adapter's output to the fixtures key by key.
 *
 * Every inbound value is plain JSON: the inbox stores it before the platform is acknowledged
 * and a restarted gateway processes it from the stored copy (so attachment bytes are fetched
 * later through {@link ChannelAdapter.fetchAttachment}, never carried as a function).
 */

import type { ConnectionState } from './connection-state.ts';

/** Language of user-facing text: zh-CN (default) or English. */
export type Lang = 'zh-CN' | 'en';

/** A channel's name: `web`, `web_admin`, or a declared channel's (adapters/index.ts, src/channel/declaration.ts). */
export type ChannelName = string;

/** direct = one-to-one; group = several people; channel = broadcast/forum channel. */
export type ChatType = 'direct' | 'group' | 'channel';

/** Attachment kinds, the same four as the session store. */
export type AttachmentKind = 'image' | 'file' | 'audio' | 'video';

/** One inbound attachment, as the platform described it. */
export interface InboundAttachment {
  type: AttachmentKind;
  /** The file name exactly as the user sent it (Unicode kept), or null when the platform gives none. */
  filename: string | null;
  /** MIME type from the platform, or null. */
  mime_type?: string | null;
  /** Size in bytes when the platform says it, else null/absent. */
  size?: number | null;
  /**
   * What the adapter needs to fetch the bytes later (Telegram `{file_id}`, Feishu
   * `{message_id, file_key, resource_type}`, web `{upload_id}`); opaque to the core, plain JSON.
   */
  platform_ref: Record<string, unknown>;
}

/** The sender. */
export interface InboundActor {
  /** The primary platform id (Telegram user id, Feishu open_id, web contact key …). */
  id: string;
  /** Every platform id the event carries (`{open_id, union_id, user_id}`), when several. */
  ids?: Record<string, string>;
  /** The channel nickname ("" when the platform gives none and no lookup succeeded). */
  display_name: string;
  username?: string | null;
  is_bot?: boolean;
}

/** A pressed button (callback query, card action, web `confirm.response`). */
export interface InboundCallback {
  /** The platform's callback id, answered by the adapter (Telegram `answerCallbackQuery`). */
  id?: string | null;
  /** `confirm` | `cancel` | another action id. */
  action: string;
  /** The confirm token the button carried. */
  token?: string | null;
  /** The raw button payload. */
  data?: string | null;
}

/**
 * One normalized inbound event (a message, an edit, or a button press).
 */
export interface InboundMessage {
  channel: ChannelName;
  /** The account (bot) that received it; the `.env` one is `default` (docs/configuration.md). */
  account: string;
  /**
   * Unique per channel + account; a redelivery carries the same key (Telegram
   * `telegram:update:<update_id>`, Feishu `feishu:event:<event_id>`, web `web:<client_msg_id>`).
   */
  dedupe_key: string;
  kind: 'message' | 'edit' | 'callback';
  /** The platform message id (our reply targets it), or null for callbacks without one. */
  message_id: string | null;
  chat: { id: string; type: ChatType; thread_id?: string | null };
  /** Verbatim platform text (R-CTX-04); "" when none; null for a callback. */
  raw_input: string | null;
  /** `raw_input` with mention placeholders resolved to `@name`. */
  display_input?: string | null;
  /** `display_input` without the bot mention, trimmed: what the planner reads. */
  input_without_bot_mention?: string | null;
  attachments: InboundAttachment[];
  actor: InboundActor;
  mentioned_bot: boolean;
  /** Should the bot answer at all (direct chat, mention, reply to the bot, callback). */
  addressed_to_bot: boolean;
  reply_to: { message_id: string; author_is_bot?: boolean } | null;
  callback?: InboundCallback | null;
  /** ISO-8601 time the platform stamped, else when the adapter received it. */
  received_at?: string;
  /**
   * What a reply queued now needs to reach this chat later, when the adapter's memory is gone
   * (restart): non-secret ids only (DingTalk single chats: `{staff_id}`). Copied to
   * {@link OutboundTarget.route}; docs/adapter-authoring.md "Reply routes".
   */
  reply_route?: Record<string, string> | null;
  /** The client's language when the platform tells it (`zh-CN` default). */
  lang?: Lang;
  /**
   * Items of one album (Telegram `media_group_id`): the platform sends each photo / file of an
   * album as its own event; the inbox merges the items of a chat that arrive within a short
   * window into one turn (src/inbox/album.ts). Absent on platforms that send albums whole.
   */
  media_group_id?: string | null;
  /**
   * The text is within 10 % of the client's per-message limit, so the client may have split a
   * longer paste into several messages: the inbox joins the sender's next messages of the chat
   * that follow within a short window into one turn (src/inbox/album.ts "split pastes").
   */
  near_limit?: boolean;
}

/** How a channel shows `display_md` (docs/results.md, D-22). */
/** True when `length` is within 10 % below one of the client `limits` (see {@link InboundMessage.near_limit}). */
export function nearLimit(length: number, limits: readonly number[]): boolean {
  return limits.some((l) => length <= l && length >= Math.floor(l * 0.9));
}

/** How a channel shows `display_md` (docs/results.md, D-22). */
export type DisplayCapability = 'rich' | 'text';

/** Unit of {@link AdapterCapabilities.max_length}. */
export type LengthUnit = 'utf16' | 'bytes' | 'chars';

/** What an adapter can do; the core composes replies from this alone. */
export interface AdapterCapabilities {
  display: DisplayCapability;
  /** Inline buttons (confirmation requests become buttons, else a 「确认」 text prompt). */
  buttons: boolean;
  /**
   * Longest text of one message, in `length_unit`. The core bounds a reply to a few messages'
   * worth of it; the adapter splits after rendering (src/channel/split-reply.ts).
   */
  max_length: number;
  length_unit: LengthUnit;
  /** A typing indicator exists (`sendChatAction`); the web shows a 「处理中…」 status instead. */
  typing: boolean;
  /** Images/files/audio/video can be sent. */
  media: boolean;
  /**
   * An inline `/command` in a reply becomes a button that puts the command in the message box
   * (the web page, docs/chat-authoring.md "Help"). Absent = false: suggestions are sent as a
   * question with choices instead (native buttons or a numbered list).
   */
  command_buttons?: boolean;
}

/** One media item of a reply: a file on the gateway's disk. */
export interface OutboundMedia {
  kind: AttachmentKind;
  /** Absolute path of the file (an artifact of the session workspace). */
  path: string;
  filename: string;
  mime_type?: string | null;
  size?: number | null;
  /** The session attachment id, served as `GET /files/<id>` (web). */
  file_id?: string | null;
  caption?: string | null;
}

/**
 * A request answered by pressing a button (docs/messaging.md): a confirmation (options
 * `confirm` / `cancel`), or a question with choices (`kind: 'choice'`, options `1`…`n`). Every
 * button carries `<option id>:<token>`.
 */
export interface OutboundConfirm {
  /** `confirm` (absent) or `choice` (docs/messaging.md "Questions with choices"). */
  kind?: 'confirm' | 'choice';
  /** The confirm or choice token (the button payload; Telegram callback_data ≤ 64 bytes). */
  token: string;
  /** What the user is asked, markdown. */
  prompt_md: string;
  options: { id: string; label: string; style?: 'danger' | 'primary' | 'secondary' }[];
  /** ISO-8601 expiry. */
  expires_at: string;
}

/**
 * One outbound message as the core composed it. `format: 'markdown'` text is rendered by the
 * adapter into its dialect (rich channels); `plain` is sent as is (text-only channels, or
 * notices). The core has applied the display rules and bounded the text
 * (src/channel/long-reply.ts); the adapter renders it once and splits the rendering once, in
 * its own unit, into at most `REPLY_MAX_PARTS` platform messages (src/channel/split-reply.ts).
 */
export interface OutboundMessage {
  /** `reply` (a turn's answer), `notice` (a platform message: refusal, help, error), `progress`. */
  kind: 'reply' | 'notice' | 'progress';
  text: string;
  format: 'markdown' | 'plain';
  media?: OutboundMedia[];
  confirm?: OutboundConfirm | null;
  /** Platform message id this answers (the adapter sets it on the first part it sends). */
  reply_to?: string | null;
  /** Language of the reply, for text an adapter adds itself (the cut notice); absent = zh-CN. */
  lang?: Lang;
  /**
   * UTF-16 units of the reply the core left out when it bounded the text (its cut notice ends
   * `text`); an adapter that cuts the rendering again adds them to its own notice. Absent = 0.
   */
  omitted?: number;
  /**
   * A cut reply: the name of the file that holds its whole text (one of `media`, or a session
   * file on a channel without media); an adapter that cuts the rendering again names it in its
   * own notice (docs/operations-delivery.md "Long replies"). Absent = none.
   */
  full_text_file?: string | null;
  /** The web frame's `display_md` (rich channels keep the block apart from the text). */
  display_md?: string | null;
  /** True on the last message of a turn (web `final`). */
  final?: boolean;
  /**
   * The files the answered message brought, with the reference id each got (`img_1`, `file_2`;
   * first message of a reply only). The text already names them; the web page also shows the
   * ids on the message's file chips (docs/web-protocol.md `upload.refs`).
   */
  upload_refs?: { ref: string; filename: string }[];
}

/** Where an outbound message goes. */
export interface OutboundTarget {
  channel: ChannelName;
  account: string;
  chat_id: string;
  thread_id?: string | null;
  /** The chat type, when known (some platforms send differently to groups). */
  chat_type?: ChatType;
  /** The inbound message's `reply_route`, stored with the outbox row (absent = none). */
  route?: Record<string, string> | null;
}

/** The outcome of one send (the outbox decides from this whether and when to retry). */
export type SendResult =
  | { ok: true; message_ids: string[] }
  | {
      ok: false;
      /** False for permanent failures (bad token, chat not found, message too long). */
      retryable: boolean;
      /** The platform's advised wait in ms (`retry_after`, `Retry-After`, reset header). */
      retry_after_ms?: number | null;
      /** The platform's own error text, recorded and logged. */
      error: string;
      code?: string | number | null;
      /**
       * Parts of a multi-part message delivered before the failure, earlier attempts included
       * (src/channel/parts.ts); the outbox stores it and the retry resumes there. Absent = 0.
       */
      parts_done?: number;
      /** Platform message ids of the parts this attempt delivered before failing. */
      message_ids?: string[];
      /**
       * The request of part `parts_done` may have reached the platform (written, then no answer:
       * a reset or timeout after write, a 5xx; src/channel/send-outcome.ts). The outbox marks the
       * row and the next attempt resends that part with the platform's idempotency key, or with a
       * visible marker where the platform has none (docs/operations-delivery.md "Unknown outcomes").
       */
      ambiguous?: boolean;
    };

/** What the outbox tells an adapter about one send. */
export interface SendOptions {
  /**
   * Stable key of the outbox row: every retry of one row carries the same key (Feishu `uuid`,
   * any platform-side idempotency). Absent when the caller is not the outbox.
   */
  idempotencyKey?: string | null;
  /**
   * Parts of this message (text chunks, media, captions, button card) that earlier attempts
   * delivered: the adapter skips them so the user never gets a part twice (src/channel/parts.ts).
   * Absent or 0 on a first attempt.
   */
  partsDone?: number;
  /**
   * Set when an earlier attempt left the outcome of part `partsDone` unknown (it may have
   * reached the user): an adapter whose platform has no idempotency key starts that part's text
   * with this marker (src/channel/parts.ts `PartCursor.marked`); adapters with a key ignore it
   * and resend under the same key. Absent otherwise.
   */
  resendMarker?: string | null;
  /**
   * Set when an earlier attempt left the outcome of part `partsDone` unknown, for an adapter
   * with `sendIdempotency: 'platform_key'`: it resends under the same key (or, where it is its
   * own platform, looks up what that attempt stored). Absent otherwise.
   */
  unknownOutcome?: boolean;
}

/**
 * How an adapter keeps a resend after an unknown outcome from reaching the user twice
 * (docs/operations-delivery.md "Unknown outcomes"): `platform_key` — every part carries a key
 * derived from `SendOptions.idempotencyKey` + the part index that the platform deduplicates;
 * `none` — the platform has no such key, the resent part shows `SendOptions.resendMarker`.
 */
export type SendIdempotency = 'platform_key' | 'none';

/** Bytes of a fetched attachment. */
export interface FetchedAttachment {
  data: Buffer;
  /** When the platform reports a better name/MIME than the event did. */
  filename?: string | null;
  mime_type?: string | null;
}

/** What an adapter may do with the core (given to {@link ChannelAdapter.start}). */
export interface AdapterHost {
  /**
   * Hand an inbound event to the core. Resolves once it is stored (acknowledge the platform
   * only then): `accepted` (new), `duplicate` (a redelivery, dropped), `ignored` (not for us).
   * @throws when it could not be stored (answer the platform with a retryable error).
   */
  receive(msg: InboundMessage): Promise<'accepted' | 'duplicate' | 'ignored'>;
  /**
   * Answer an event the core will not process (an unsupported message type, a file over the
   * limit) with a platform notice, once per event: the core queues `message` in the outbox
   * under a key derived from the event's `dedupe_key`, so a redelivered event never repeats
   * the notice and a failed send is retried like any reply. Resolves once queued.
   * @throws when it could not be stored (answer the platform with a retryable error).
   */
  notice(event: NoticeEvent, message: OutboundMessage): Promise<void>;
  /**
   * The long connection's stored state (a resumable session), kept across restarts and
   * takeovers and written only while this replica holds the lease (src/channel/connection-state.ts).
   * Present only for a transport the core runs under a lease ({@link ChannelAdapter.longConnection}).
   */
  readonly connectionState?: ConnectionState;
}

/** The parts of an inbound event that {@link AdapterHost.notice} needs (an {@link InboundMessage} has them). */
export type NoticeEvent = Pick<InboundMessage, 'channel' | 'account' | 'dedupe_key' | 'message_id'> & {
  chat: Pick<InboundMessage['chat'], 'id' | 'type'> & { thread_id?: string | null };
};

/**
 * A channel adapter: one instance per channel account.
 * Errors: `send` never throws for a platform failure — it returns `{ok:false}` with
 * `retryable` set; it may throw only on programming errors.
 */
export interface ChannelAdapter {
  readonly channel: ChannelName;
  readonly account: string;
  readonly capabilities: AdapterCapabilities;
  /** How a resend after an unknown outcome is kept from duplicating; absent = `none`. */
  readonly sendIdempotency?: SendIdempotency;
  /**
   * Set when `start` opens a transport that must have a single consumer per account (long
   * polling, a long connection, one gateway shard): the core then calls `start`/`stop` only on
   * the replica holding the database lease `<channel>:<account>[:<shard>]`, possibly several
   * times over the process's life, and the host it gives refuses events once the lease is lost
   * (`LeaseLostError`: do not confirm them to the platform). Absent for webhook adapters, which
   * run on every replica (docs/operations-delivery.md "One owner per long connection").
   */
  readonly longConnection?: { shard?: string } | null;
  /** Begin receiving (webhook routes are mounted separately; polling/ws adapters connect here). */
  start?(host: AdapterHost): Promise<void>;
  stop?(): Promise<void>;
  /** Deliver one message. */
  send(target: OutboundTarget, message: OutboundMessage, opts?: SendOptions): Promise<SendResult>;
  /** Fetch an inbound attachment's bytes from its `platform_ref`. @throws when unavailable. */
  fetchAttachment?(att: InboundAttachment, msg: InboundMessage): Promise<FetchedAttachment>;
  /** Show that work is under way (typing indicator); best effort, never throws. */
  typing?(target: OutboundTarget): Promise<void>;
  /**
   * Show or update a transient status line (web 「处理中…」 with a skill's progress note;
   * `null` clears it). Not persisted, not retried; best effort, never throws.
   */
  progress?(target: OutboundTarget, note: string | null): Promise<void>;
}

/**
 * A webhook request as the gateway received it (docs/adapter-authoring.md), framework-neutral so the
 * contract kit can drive an adapter without an HTTP server. `body` is the raw bytes: verify the
 * signature over them before parsing anything but what the check needs.
 */
export interface WebhookRequest {
  method: string;
  /** Path after `/webhooks/<channel>/<account>` (usually `""`). */
  path: string;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string | undefined>;
  /** Query string values (the first of repeated keys). */
  query: Record<string, string | undefined>;
  body: Buffer;
  /** Client address, for logs only. */
  ip?: string;
}

/**
 * The answer to a webhook: 401 for a missing/wrong signature or token, 400 for a body that
 * cannot be parsed, 200 (possibly with a handshake body) otherwise (docs/adapter-authoring.md).
 * An object `body` is sent as JSON, a string as `text/plain` unless `headers` say otherwise.
 */
export interface WebhookResponse {
  status: number;
  body?: string | Record<string, unknown>;
  headers?: Record<string, string>;
}

/** An adapter that receives by webhook (`POST /webhooks/<channel>/<account>`). */
export interface WebhookAdapter extends ChannelAdapter {
  /**
   * Verify, normalize and hand the event to `host.receive`. Never throws for bad input
   * (answers 4xx); a storage failure may throw (the route answers 503 so the platform retries).
   */
  handleWebhook(req: WebhookRequest, host: AdapterHost): Promise<WebhookResponse>;
}
