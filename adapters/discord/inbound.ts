/**
 * Gateway dispatch JSON → the channel contract, as plain functions: MESSAGE_CREATE (DMs and guild
 * messages) and INTERACTION_CREATE (button presses, gateway or HTTP endpoint). Inputs are untrusted
 * JSON: every field is type-checked and a malformed event is ignored with a reason, never thrown.
 * Docs: https://discord.com/developers/docs/events/gateway-events#message-create,
 * https://discord.com/developers/docs/resources/message#message-object,
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object.
 */
import {
  type AttachmentKind,
  type InboundAttachment,
  type InboundMessage,
  type Lang,
  nearLimit,
  parseButtonPayload,
} from '../../src/channel/index.ts';

/** Characters per message a Discord client sends (2000; 4000 with Nitro); longer pastes arrive split. */
export const DISCORD_CLIENT_LIMITS: readonly number[] = [2000, 4000];
import { CHANNEL_GROUP_DM, COMPONENT_BUTTON, INTERACTION_COMPONENT } from './wire.ts';

/** Our bot user. */
export interface BotIdentity {
  id: string;
  username: string;
}

/** What one dispatch means for the adapter. */
export type Normalized =
  | { type: 'message'; msg: InboundMessage }
  /** A button press: `build(payload)` makes the message once the custom_id is decoded (null = expired). */
  | {
      type: 'callback';
      customId: string;
      interaction: { id: string; token: string };
      lang: Lang;
      build(payload: string | null): InboundMessage | null;
    }
  | { type: 'ignore'; reason: string; interaction?: { id: string; token: string } };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const snowflake = (v: unknown): string | null => (typeof v === 'string' && /^\d{1,20}$/.test(v) ? v : null);

/** A user object's id, username, global name (null when malformed). */
function userOf(v: unknown): { id: string; username: string; global_name: string | null; bot: boolean } | null {
  if (!isObj(v)) return null;
  const id = snowflake(v.id);
  if (!id) return null;
  return { id, username: str(v.username) ?? '', global_name: str(v.global_name), bot: v.bot === true };
}

/** Display name precedence: member.nick (guild) > author.global_name > author.username. */
function displayName(u: { username: string; global_name: string | null }, member: unknown): string {
  const nick = isObj(member) ? str(member.nick) : null;
  return nick || u.global_name || u.username;
}

function kindOf(mime: string | null): AttachmentKind {
  if (mime?.startsWith('image/')) return 'image';
  if (mime?.startsWith('audio/')) return 'audio';
  if (mime?.startsWith('video/')) return 'video';
  return 'file';
}

/** The attachment objects of a message, in order (malformed entries skipped). */
export function attachmentsOf(v: unknown): InboundAttachment[] {
  if (!Array.isArray(v)) return [];
  const out: InboundAttachment[] = [];
  for (const a of v) {
    if (!isObj(a)) continue;
    const id = snowflake(a.id);
    const url = str(a.url);
    if (!id || !url) continue;
    const mime = str(a.content_type);
    const att: InboundAttachment & { width?: number; height?: number } = {
      type: kindOf(mime),
      filename: str(a.filename),
      mime_type: mime,
      size: typeof a.size === 'number' && Number.isFinite(a.size) ? a.size : null,
      platform_ref: { attachment_id: id, url },
    };
    if (typeof a.width === 'number' && typeof a.height === 'number') {
      att.width = a.width;
      att.height = a.height;
    }
    out.push(att);
  }
  return out;
}

const MENTION_RE = /<@!?(\d{1,20})>/g;

/**
 * `content` with user mention tokens (`<@id>`, deprecated `<@!id>`) resolved to `@name` from the
 * message's `mentions[]` (unknown ids stay as they are), and the same without our bot's mention.
 */
export function resolveMentions(
  content: string,
  mentions: unknown,
  botId: string,
): { display: string; withoutBot: string; mentioned: boolean } {
  const names = new Map<string, string>();
  if (Array.isArray(mentions)) {
    for (const m of mentions) {
      const u = userOf(m);
      if (u) names.set(u.id, displayName(u, isObj(m) ? m.member : null));
    }
  }
  let mentioned = false;
  const display = content.replace(MENTION_RE, (tok, id: string) => {
    if (id === botId) mentioned = true;
    const n = names.get(id);
    return n ? `@${n}` : tok;
  });
  const withoutBot = content
    .replace(new RegExp(`\\s*<@!?${botId}>\\s*`, 'g'), ' ')
    .replace(MENTION_RE, (tok, id: string) => {
      const n = names.get(id);
      return n ? `@${n}` : tok;
    })
    .trim();
  return { display, withoutBot, mentioned };
}

function langOf(locale: unknown): Lang {
  const l = str(locale);
  return l === null || l.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en';
}

/** MESSAGE_CREATE `d` → a message, or ignore (our own/other bots, webhooks, system, nothing to read). */
export function normalizeMessage(d: unknown, account: string, bot: BotIdentity, now: Date): Normalized {
  if (!isObj(d)) return { type: 'ignore', reason: 'malformed' };
  const id = snowflake(d.id);
  const channelId = snowflake(d.channel_id);
  const author = userOf(d.author);
  if (!id || !channelId || !author) return { type: 'ignore', reason: 'malformed' };
  if (author.id === bot.id) return { type: 'ignore', reason: 'own message' };
  if (author.bot || d.webhook_id !== undefined) return { type: 'ignore', reason: 'bot or webhook' };
  if (typeof d.type === 'number' && d.type !== 0 && d.type !== 19) return { type: 'ignore', reason: 'system message' };
  const guildId = snowflake(d.guild_id);
  // A DM has no guild and channel_type 1; a group DM (3) is a group.
  const direct = !guildId && d.channel_type !== CHANNEL_GROUP_DM;
  const content = str(d.content) ?? '';
  const attachments = attachmentsOf(d.attachments);
  const m = resolveMentions(content, d.mentions, bot.id);
  const mentionedBot = m.mentioned || (Array.isArray(d.mentions) && d.mentions.some((x) => userOf(x)?.id === bot.id));
  const ref = isObj(d.message_reference) ? snowflake(d.message_reference.message_id) : null;
  const refAuthor = isObj(d.referenced_message) ? userOf(d.referenced_message.author) : null;
  const replyToBot = refAuthor?.id === bot.id;
  const addressed = direct || mentionedBot || replyToBot;
  // Mention-only mode (no MESSAGE_CONTENT intent): guild messages not addressed to us arrive empty.
  if (!addressed && content === '' && attachments.length === 0) return { type: 'ignore', reason: 'empty (no message content intent)' };
  const chat: InboundMessage['chat'] & { guild_id?: string } = {
    id: channelId,
    type: direct ? 'direct' : 'group',
    thread_id: null,
    ...(guildId ? { guild_id: guildId } : {}),
  };
  const at = str(d.timestamp);
  const received = at && !Number.isNaN(Date.parse(at)) ? new Date(at).toISOString() : now.toISOString();
  return {
    type: 'message',
    msg: {
      channel: 'discord',
      account,
      dedupe_key: `discord:message:${id}`,
      kind: 'message',
      message_id: id,
      chat,
      raw_input: content,
      // Discord clients split a paste longer than 2000 characters (4000 with Nitro).
      ...(nearLimit(content.length, DISCORD_CLIENT_LIMITS) ? { near_limit: true } : {}),
      display_input: m.display,
      input_without_bot_mention: m.withoutBot,
      attachments,
      actor: { id: author.id, display_name: displayName(author, d.member), username: author.username || null, is_bot: false },
      mentioned_bot: mentionedBot,
      addressed_to_bot: addressed,
      reply_to: ref ? { message_id: ref, ...(refAuthor ? { author_is_bot: refAuthor.bot } : {}) } : null,
      received_at: received,
    },
  };
}

/** An interaction (gateway `d` or the HTTP endpoint body) → a button press, or ignore. */
export function normalizeInteraction(d: unknown, account: string, now: Date): Normalized {
  if (!isObj(d)) return { type: 'ignore', reason: 'malformed' };
  const id = snowflake(d.id);
  const token = str(d.token);
  if (!id || !token) return { type: 'ignore', reason: 'malformed interaction' };
  const interaction = { id, token };
  const data = isObj(d.data) ? d.data : null;
  const customId = data ? str(data.custom_id) : null;
  if (d.type !== INTERACTION_COMPONENT || data?.component_type !== COMPONENT_BUTTON || !customId)
    return { type: 'ignore', reason: 'not a button press', interaction };
  const user = userOf(isObj(d.member) ? d.member.user : d.user);
  const channelId = snowflake(d.channel_id) ?? (isObj(d.channel) ? snowflake(d.channel.id) : null);
  if (!user || !channelId) return { type: 'ignore', reason: 'malformed interaction', interaction };
  const guildId = snowflake(d.guild_id);
  const message = isObj(d.message) ? d.message : null;
  const messageId = message ? snowflake(message.id) : null;
  const msgAuthor = message ? userOf(message.author) : null;
  const lang = langOf(d.locale);
  return {
    type: 'callback',
    customId,
    interaction,
    lang,
    build(payload) {
      if (payload === null) return null;
      const { action, token: confirmToken } = parseButtonPayload(payload);
      const callback: NonNullable<InboundMessage['callback']> & { interaction_token: string } = {
        id,
        action,
        token: confirmToken,
        data: payload,
        interaction_token: token,
      };
      return {
        channel: 'discord',
        account,
        dedupe_key: `discord:interaction:${id}`,
        kind: 'callback',
        message_id: messageId,
        chat: {
          id: channelId,
          type: guildId ? 'group' : 'direct',
          thread_id: null,
          ...(guildId ? { guild_id: guildId } : {}),
        } as InboundMessage['chat'],
        raw_input: null,
        attachments: [],
        actor: { id: user.id, display_name: displayName(user, d.member), username: user.username || null, is_bot: user.bot },
        mentioned_bot: false,
        addressed_to_bot: true,
        reply_to: messageId ? { message_id: messageId, ...(msgAuthor ? { author_is_bot: msgAuthor.bot } : {}) } : null,
        callback,
        received_at: now.toISOString(),
        lang,
      };
    },
  };
}

/** One gateway dispatch frame `{op: 0, t, s, d}` → what to do with it. Never throws. */
export function normalizeDispatch(frame: unknown, account: string, bot: BotIdentity, now: Date): Normalized {
  if (!isObj(frame) || frame.op !== 0) return { type: 'ignore', reason: 'not a dispatch' };
  if (frame.t === 'MESSAGE_CREATE') return normalizeMessage(frame.d, account, bot, now);
  if (frame.t === 'INTERACTION_CREATE') return normalizeInteraction(frame.d, account, now);
  return { type: 'ignore', reason: `event ${String(frame.t)} not handled` };
}
