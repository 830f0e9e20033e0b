/**
 * Telegram `Update` → {@link InboundMessage} (Bot API
 * https://core.telegram.org/bots/api#update, #message, #messageentity, #callbackquery).
 *
 * Pure: no I/O. Button payloads that were shortened (src/channel/callback-payloads.ts) are
 * resolved by the caller and passed in. Rules:
 * - dedupe key `telegram:update:<update_id>`; edits are kind `edit`;
 * - text or caption verbatim; entity offsets are UTF-16 code units, which is how JS strings
 *   index, so entity ranges are sliced directly;
 * - photos: one attachment, the largest size (width×height, then file_size), file name null;
 *   documents/voice/audio/video/video notes/animations one attachment each (an animation also
 *   sets `document`, which is then skipped); thumbnails are never attachments;
 * - our own bot's and other bots' messages are ignored; in groups and channels only messages
 *   addressed to the bot are handed over (an @mention, `/cmd@ourbot`, a general `/cmd`, a reply
 *   to the bot); `/cmd@otherbot` is not ours;
 * - forum topics: `thread_id` = `message_thread_id` when `is_topic_message`; the topic's
 *   creation message that Telegram puts in `reply_to_message` is not a reply;
 * - stickers, polls, locations, contacts, dice, games … are `unsupported` (answered politely);
 *   service messages (members joined, pinned …) and unknown update types are ignored.
 */
import {
  type InboundAttachment,
  type InboundMessage,
  type Lang,
  nearLimit,
  parseButtonPayload,
  storableCopy,
} from '../../src/channel/index.ts';
import type { Message, Update, User } from './wire.ts';

/** Our bot, from getMe. */
export interface BotIdentity {
  id: number;
  username: string;
}

/** What to do with one update. */
export type Normalized =
  | { type: 'message'; msg: InboundMessage }
  | {
      /** A button press; `data` is the raw callback_data (the caller resolves references). */
      type: 'callback';
      callback_id: string;
      data: string;
      build(resolved: string | null): InboundMessage | null;
    }
  | {
      type: 'unsupported';
      what: string;
      chat_id: string;
      thread_id: string | null;
      message_id: number;
      lang: Lang;
      dedupe_key: string;
      callback_id?: undefined;
    }
  | { type: 'ignore'; reason: string; callback_id?: string };

/** Unsupported content kinds, in the order checked (the field name is the kind). */
const UNSUPPORTED = [
  'sticker',
  'poll',
  'location',
  'venue',
  'contact',
  'dice',
  'game',
  'story',
  'paid_media',
  'invoice',
  'checklist',
] as const;

/** An update whose key fields have the wrong types (answered 400; Telegram never sends one). */
export class MalformedUpdateError extends Error {
  constructor(what: string) {
    super(`malformed update: ${what}`);
    this.name = 'MalformedUpdateError';
  }
}

function must(ok: boolean, what: string): void {
  if (!ok) throw new MalformedUpdateError(what);
}

function isId(v: unknown): boolean {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** Check the fields the normalizer reads have their Bot API types. @throws MalformedUpdateError */
function checkMessage(m: Message): void {
  must(isId(m.message_id), 'message_id');
  must(!!m.chat && typeof m.chat === 'object' && isId(m.chat.id) && typeof m.chat.type === 'string', 'chat');
  for (const u of [m.from, m.reply_to_message?.from]) {
    if (u !== undefined) must(!!u && typeof u === 'object' && isId(u.id) && typeof u.first_name === 'string', 'user');
  }
  if (m.reply_to_message !== undefined) must(!!m.reply_to_message && isId(m.reply_to_message.message_id), 'reply_to_message');
  for (const k of ['text', 'caption', 'author_signature'] as const) must(m[k] === undefined || typeof m[k] === 'string', k);
  for (const k of ['entities', 'caption_entities', 'photo'] as const) must(m[k] === undefined || Array.isArray(m[k]), k);
  for (const e of [...(m.entities ?? []), ...(m.caption_entities ?? [])])
    must(!!e && typeof e === 'object' && typeof e.type === 'string', 'entity');
  for (const f of [...(m.photo ?? []), m.document, m.video, m.voice, m.audio, m.video_note, m.animation]) {
    if (f !== undefined)
      must(!!f && typeof f === 'object' && typeof f.file_id === 'string' && typeof f.file_unique_id === 'string', 'file');
  }
  for (const f of m.photo ?? []) must(typeof f.width === 'number' && typeof f.height === 'number', 'photo size');
  if (m.sender_chat !== undefined) must(!!m.sender_chat && isId(m.sender_chat.id), 'sender_chat');
  if (m.message_thread_id !== undefined) must(isId(m.message_thread_id), 'message_thread_id');
}

/** Language of a Telegram user (`language_code` IETF tag): zh → zh-CN, en → en, else undefined. */
export function langOf(user: User | undefined): Lang | undefined {
  const code = typeof user?.language_code === 'string' ? user.language_code.toLowerCase() : '';
  if (code.startsWith('zh')) return 'zh-CN';
  if (code.startsWith('en')) return 'en';
  return undefined;
}

/** A string field, or null when absent or of another type. */
function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** A numeric field, or null. */
function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function displayName(u: User): string {
  return [str(u.first_name), str(u.last_name)].filter((s): s is string => !!s && s.trim() !== '').join(' ');
}

function chatType(t: string): InboundMessage['chat']['type'] {
  return t === 'private' ? 'direct' : t === 'channel' ? 'channel' : 'group';
}

function largestPhoto(sizes: NonNullable<Message['photo']>) {
  return [...sizes].sort((a, b) => b.width * b.height - a.width * a.height || (b.file_size ?? 0) - (a.file_size ?? 0))[0];
}

function ref(f: { file_id: string; file_unique_id: string }): Record<string, unknown> {
  return { file_id: f.file_id, file_unique_id: f.file_unique_id };
}

/** The attachments of a message, in a fixed order. */
export function attachmentsOf(m: Message): InboundAttachment[] {
  const out: InboundAttachment[] = [];
  const photo = m.photo?.length ? largestPhoto(m.photo) : undefined;
  if (photo) out.push({ type: 'image', filename: null, mime_type: 'image/jpeg', size: num(photo.file_size), platform_ref: ref(photo) });
  if (m.animation) {
    out.push({
      type: 'video',
      filename: str(m.animation.file_name),
      mime_type: str(m.animation.mime_type),
      size: num(m.animation.file_size),
      platform_ref: ref(m.animation),
    });
  } else if (m.document) {
    out.push({
      type: 'file',
      filename: str(m.document.file_name),
      mime_type: str(m.document.mime_type),
      size: num(m.document.file_size),
      platform_ref: ref(m.document),
    });
  }
  if (m.video)
    out.push({
      type: 'video',
      filename: str(m.video.file_name),
      mime_type: str(m.video.mime_type),
      size: num(m.video.file_size),
      platform_ref: ref(m.video),
    });
  if (m.video_note)
    out.push({ type: 'video', filename: null, mime_type: 'video/mp4', size: num(m.video_note.file_size), platform_ref: ref(m.video_note) });
  if (m.voice)
    out.push({
      type: 'audio',
      filename: null,
      mime_type: str(m.voice.mime_type),
      size: num(m.voice.file_size),
      platform_ref: ref(m.voice),
    });
  if (m.audio)
    out.push({
      type: 'audio',
      filename: str(m.audio.file_name),
      mime_type: str(m.audio.mime_type),
      size: num(m.audio.file_size),
      platform_ref: ref(m.audio),
    });
  return out;
}

/** How the text addresses the bot, and the text without our mentions. */
export interface Addressing {
  mentioned: boolean;
  /** `/cmd@ourbot` or a general `/cmd` at the start. */
  command: boolean;
  /** `/cmd@otherbot`. */
  otherBotCommand: boolean;
  without: string;
}

/** Read mention/command entities (UTF-16 ranges) against our bot. */
export function addressing(text: string, entities: Message['entities'], bot: BotIdentity): Addressing {
  const ours = `@${bot.username}`.toLowerCase();
  const cuts: [number, number][] = [];
  let mentioned = false;
  let command = false;
  let otherBotCommand = false;
  for (const e of entities ?? []) {
    if (typeof e?.offset !== 'number' || typeof e.length !== 'number' || e.offset < 0 || e.length <= 0) continue;
    const slice = text.slice(e.offset, e.offset + e.length);
    if (e.type === 'mention' && slice.toLowerCase() === ours) {
      mentioned = true;
      cuts.push([e.offset, e.offset + e.length]);
    } else if (e.type === 'text_mention' && e.user?.id === bot.id) {
      mentioned = true;
    } else if (e.type === 'bot_command') {
      const at = slice.indexOf('@');
      if (at < 0) command ||= e.offset === 0;
      else if (slice.slice(at).toLowerCase() === ours) {
        command = true;
        mentioned = true;
        cuts.push([e.offset + at, e.offset + e.length]);
      } else otherBotCommand = true;
    }
  }
  let without = '';
  let last = 0;
  for (const [a, b] of cuts.sort((x, y) => x[0] - y[0])) {
    if (a < last) continue;
    without += text.slice(last, a);
    last = b;
    // no doubled whitespace where the mention was: skip the blanks after it when the kept text ends in one
    if (without === '' || /\s$/.test(without)) while (last < text.length && /\s/.test(text[last]!)) last++;
  }
  without += text.slice(last);
  return { mentioned, command: command && !otherBotCommand, otherBotCommand, without: without.trim() };
}

function isoFromUnix(s: unknown, fallback: Date): string {
  return typeof s === 'number' && Number.isFinite(s) && s > 0 && s < 1e11 ? new Date(s * 1000).toISOString() : fallback.toISOString();
}

function normalizeMessage(update: Update, m: Message, edit: boolean, account: string, bot: BotIdentity, now: Date): Normalized {
  checkMessage(m);
  const from = m.from;
  if (from && from.id === bot.id) return { type: 'ignore', reason: 'own message' };
  if (from?.is_bot) return { type: 'ignore', reason: 'from another bot' };
  const type = chatType(String(m.chat.type));
  const text = typeof m.text === 'string' ? m.text : typeof m.caption === 'string' ? m.caption : '';
  const entities = (typeof m.text === 'string' ? m.entities : m.caption_entities) ?? [];
  const attachments = attachmentsOf(m);
  const thread = m.is_topic_message && m.message_thread_id !== undefined ? String(m.message_thread_id) : null;
  const lang = langOf(from);
  const rec = m as unknown as Record<string, unknown>;
  if (text === '' && attachments.length === 0) {
    const what = UNSUPPORTED.find((k) => rec[k] !== undefined && rec[k] !== null);
    if (!what) return { type: 'ignore', reason: 'service message' };
    if (type !== 'direct') return { type: 'ignore', reason: `unsupported ${what} in a group` };
    return {
      type: 'unsupported',
      what,
      chat_id: String(m.chat.id),
      thread_id: thread,
      message_id: m.message_id,
      lang: lang ?? 'zh-CN',
      dedupe_key: `telegram:update:${update.update_id}`,
    };
  }
  const a = addressing(text, Array.isArray(entities) ? entities : [], bot);
  const quoted = m.reply_to_message;
  const topicRoot = m.is_topic_message && quoted?.message_id === m.message_thread_id;
  const replyTo =
    quoted && !topicRoot && typeof quoted.message_id === 'number'
      ? { message_id: String(quoted.message_id), author_is_bot: quoted.from?.is_bot === true }
      : null;
  const replyToBot = !!quoted && !topicRoot && quoted.from?.id === bot.id;
  const addressed = type === 'direct' || a.mentioned || a.command || replyToBot;
  if (!addressed) return { type: 'ignore', reason: a.otherBotCommand ? 'command for another bot' : 'not addressed to the bot' };
  const actor = from
    ? { id: String(from.id), display_name: displayName(from), username: str(from.username), is_bot: false }
    : {
        id: String(m.sender_chat?.id ?? m.chat.id),
        display_name: str(m.author_signature) ?? str(m.sender_chat?.title) ?? '',
        username: str(m.sender_chat?.username),
        is_bot: false,
      };
  const msg: InboundMessage = {
    channel: 'telegram',
    account,
    dedupe_key: `telegram:update:${update.update_id}`,
    kind: edit ? 'edit' : 'message',
    message_id: String(m.message_id),
    chat: { id: String(m.chat.id), type, thread_id: thread },
    raw_input: text,
    display_input: text,
    input_without_bot_mention: a.without,
    attachments,
    actor,
    mentioned_bot: a.mentioned,
    addressed_to_bot: true,
    reply_to: replyTo,
    callback: null,
    received_at: isoFromUnix(edit ? (m.edit_date ?? m.date) : m.date, now),
  };
  if (lang) msg.lang = lang;
  if (!edit && typeof m.media_group_id === 'string' && m.media_group_id !== '') msg.media_group_id = m.media_group_id;
  // Telegram clients split a paste longer than 4096 UTF-16 units into several messages.
  if (!edit && typeof m.text === 'string' && nearLimit(m.text.length, [TELEGRAM_CLIENT_LIMIT])) msg.near_limit = true;
  return { type: 'message', msg: storableCopy(msg) };
}

/** Characters (UTF-16 units) per message a Telegram client sends; longer pastes arrive split. */
export const TELEGRAM_CLIENT_LIMIT = 4096;

/**
 * Normalize one update (any JSON object that passed the secret check).
 * @param now when the adapter received it (fallback for `received_at`)
 * @throws MalformedUpdateError when a field it reads has the wrong type
 */
export function normalizeUpdate(update: Update, account: string, bot: BotIdentity, now: Date): Normalized {
  for (const [field, edit] of [
    ['message', false],
    ['edited_message', true],
    ['channel_post', false],
    ['edited_channel_post', true],
  ] as const) {
    const m = (update as unknown as Record<string, unknown>)[field];
    if (m !== undefined && m !== null) {
      must(typeof m === 'object' && !Array.isArray(m), field);
      return normalizeMessage(update, m as Message, edit, account, bot, now);
    }
  }
  const cq = update.callback_query;
  if (cq && typeof cq === 'object') {
    must(
      typeof cq.id === 'string' && !!cq.from && typeof cq.from === 'object' && isId(cq.from.id) && typeof cq.from.first_name === 'string',
      'callback_query',
    );
    if (cq.message !== undefined)
      must(
        !!cq.message && typeof cq.message === 'object' && isId(cq.message.message_id) && !!cq.message.chat && isId(cq.message.chat.id),
        'callback_query.message',
      );
    if (typeof cq.data !== 'string') return { type: 'ignore', reason: 'callback without data', callback_id: cq.id };
    const from = cq.from;
    const chat = cq.message?.chat;
    const thread =
      cq.message && 'is_topic_message' in cq.message && cq.message.is_topic_message ? String(cq.message.message_thread_id) : null;
    return {
      type: 'callback',
      callback_id: cq.id,
      data: cq.data,
      build(resolved) {
        if (resolved === null) return null;
        const { action, token } = parseButtonPayload(resolved);
        const msg: InboundMessage = {
          channel: 'telegram',
          account,
          dedupe_key: `telegram:update:${update.update_id}`,
          kind: 'callback',
          message_id: null,
          chat: { id: String(chat?.id ?? from.id), type: chatType(String(chat?.type ?? 'private')), thread_id: thread },
          raw_input: null,
          display_input: null,
          input_without_bot_mention: null,
          attachments: [],
          actor: { id: String(from.id), display_name: displayName(from), username: str(from.username), is_bot: from.is_bot === true },
          mentioned_bot: false,
          addressed_to_bot: true,
          reply_to: cq.message ? { message_id: String(cq.message.message_id), author_is_bot: true } : null,
          callback: { id: cq.id, action, token, data: resolved },
          received_at: now.toISOString(),
        };
        const lang = langOf(from);
        if (lang) msg.lang = lang;
        return storableCopy(msg);
      },
    };
  }
  return { type: 'ignore', reason: 'update type not handled' };
}
