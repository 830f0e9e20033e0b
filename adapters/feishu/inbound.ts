/**
 * Feishu events → {@link InboundMessage} (shared/fixtures/INDEX.md "feishu"; open.feishu.cn
 * im-v1 "Receive message" and "Message content description"; card callback docs).
 *
 * - `im.message.receive_v1`: text, post (title, text, links, mentions, inline images, media),
 *   image, file, audio, media, merge_forward (children fetched through {@link FeishuLookups});
 *   sticker and other types are `unsupported`; messages whose `sender_type` is not `user` are
 *   `ignored` (bot loops).
 * - mention placeholders (`@_user_1`) → `@name` (longest key first), the bot's own mention
 *   removed in `input_without_bot_mention`; `mentioned_bot` by the bot's open_id.
 * - `card.action.trigger` → `kind: 'callback'` carrying the button's `confirm_token`.
 * Never throws for malformed event bodies (missing fields become empty values).
 */
import type { ChatType, InboundAttachment, InboundMessage } from '../../src/channel/types.ts';
import type { CardActionEvent, EventHeader, MessageEvent, PostBody, PostElement, UserIds, WireMention } from './wire.ts';

/** What normalization may look up (contact API, bot info, chat info, merged messages); each best effort. */
export interface FeishuLookups {
  /** The user's name from the contact API ("" when unknown). */
  displayName(openId: string): Promise<string>;
  /** Our bot's open_id (bot/v3/info), null when unknown. */
  botOpenId(): Promise<string | null>;
  /** `direct` / `group` for a chat id (im chat info), null when unknown. */
  chatType(chatId: string): Promise<ChatType | null>;
  /** The child messages of a merge_forward message (im message get), [] when unavailable. */
  mergedChildren(messageId: string): Promise<MergedChild[]>;
}

/** One message inside a merge_forward. */
export interface MergedChild {
  message_id: string;
  msg_type: string;
  /** JSON string, as in events. */
  content: string;
  sender_name?: string;
}

/** The outcome of normalizing one event. */
export type Normalized =
  | { outcome: 'message'; message: InboundMessage }
  /** Not for a turn (from a bot/app); the message is filled as far as known. */
  | { outcome: 'ignored'; reason: 'from_bot'; message: InboundMessage }
  | { outcome: 'unsupported'; unsupported_type: string; message: InboundMessage }
  | { outcome: 'ignored'; reason: 'event_type' };

type Attachment = InboundAttachment & { duration_ms?: number };

/** Parse a JSON string into an object, `{}` when it is not one. */
export function parseObject(s: unknown): Record<string, unknown> {
  if (typeof s !== 'string') return {};
  try {
    const v: unknown = JSON.parse(s);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function ids(u: UserIds | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['union_id', 'user_id', 'open_id'] as const) if (u && typeof u[k] === 'string' && u[k] !== '') out[k] = u[k]!;
  return out;
}

function receivedAt(ms: string | undefined): string | undefined {
  const n = Number(ms);
  return ms && Number.isFinite(n) && n > 0 ? new Date(n).toISOString() : undefined;
}

function chatTypeOf(t: string | undefined): ChatType {
  return t === 'p2p' ? 'direct' : 'group';
}

/** Post content of the event: `{title, content}` directly, or under a language key. */
function postBody(c: Record<string, unknown>): PostBody {
  if (Array.isArray(c.content)) return c as PostBody;
  for (const v of Object.values(c)) if (v && typeof v === 'object' && Array.isArray((v as PostBody).content)) return v as PostBody;
  return {};
}

/** Text + attachments of a post (paragraph per line; links as `text (url)`; at as its placeholder). */
function fromPost(c: Record<string, unknown>, ref: (key: Record<string, unknown>) => Record<string, unknown>): { text: string; attachments: Attachment[] } {
  const body = postBody(c);
  const lines: string[] = [];
  const attachments: Attachment[] = [];
  if (str(body.title) !== '') lines.push(str(body.title));
  for (const para of Array.isArray(body.content) ? body.content : []) {
    let line = '';
    let mediaOnly = false;
    for (const el of Array.isArray(para) ? (para as PostElement[]) : []) {
      if (!el || typeof el !== 'object') continue;
      switch (el.tag) {
        case 'text':
        case 'md':
          line += str(el.text);
          break;
        case 'code_block':
          line += str(el.text);
          break;
        case 'a': {
          const text = str(el.text);
          const href = str(el.href);
          line += text === '' || text === href ? href : href === '' ? text : `${text} (${href})`;
          break;
        }
        case 'at':
          line += str(el.user_id).startsWith('@') ? str(el.user_id) : `@${str(el.user_name) || str(el.user_id)}`;
          break;
        case 'emotion':
          line += `[${str(el.emoji_type)}]`;
          break;
        case 'img':
          mediaOnly = true;
          if (str(el.image_key)) attachments.push({ type: 'image', filename: null, mime_type: null, platform_ref: ref({ file_key: el.image_key, resource_type: 'image' }) });
          break;
        case 'media':
          mediaOnly = true;
          if (str(el.file_key)) {
            attachments.push({
              type: 'video',
              filename: null,
              mime_type: null,
              platform_ref: ref({ file_key: el.file_key, resource_type: 'file', ...(el.image_key ? { cover_image_key: el.image_key } : {}) }),
            });
          }
          break;
        default:
          break;
      }
    }
    if (!(mediaOnly && line === '')) lines.push(line);
  }
  return { text: lines.join('\n').trim(), attachments };
}

/** Text and attachments of one message body by type; null = unsupported type. */
export function contentOf(type: string, c: Record<string, unknown>, messageId: string): { text: string; attachments: Attachment[] } | null {
  const ref = (extra: Record<string, unknown>): Record<string, unknown> => ({ message_id: messageId, ...extra });
  const duration = num(c.duration);
  switch (type) {
    case 'text':
      return { text: str(c.text), attachments: [] };
    case 'post':
      return fromPost(c, ref);
    case 'image':
      return str(c.image_key) ? { text: '', attachments: [{ type: 'image', filename: null, mime_type: null, platform_ref: ref({ file_key: c.image_key, resource_type: 'image' }) }] } : { text: '', attachments: [] };
    case 'file':
      return { text: '', attachments: [{ type: 'file', filename: str(c.file_name) || null, mime_type: null, platform_ref: ref({ file_key: str(c.file_key), resource_type: 'file' }) }] };
    case 'audio':
      return {
        text: '',
        attachments: [{ type: 'audio', filename: null, mime_type: null, ...(duration !== undefined ? { duration_ms: duration } : {}), platform_ref: ref({ file_key: str(c.file_key), resource_type: 'file' }) }],
      };
    case 'media':
      return {
        text: '',
        attachments: [
          {
            type: 'video',
            filename: str(c.file_name) || null,
            mime_type: null,
            ...(duration !== undefined ? { duration_ms: duration } : {}),
            platform_ref: ref({ file_key: str(c.file_key), resource_type: 'file', ...(str(c.image_key) ? { cover_image_key: c.image_key } : {}) }),
          },
        ],
      };
    default:
      return null;
  }
}

/** Replace placeholders longest first; `drop` keys are removed instead. */
function resolveMentions(text: string, mentions: WireMention[], drop: ReadonlySet<string>): string {
  const sorted = [...mentions].filter((m) => typeof m?.key === 'string' && m.key !== '').sort((a, b) => b.key.length - a.key.length);
  let out = text;
  for (const m of sorted) {
    const replacement = drop.has(m.key) ? '\u0000' : `@${m.name ?? ''}`;
    out = out.split(m.key).join(replacement);
  }
  if (out.includes('@_all')) out = out.split('@_all').join('@所有人');
  // A removed mention takes the spaces around it with it (none left at a line's start or end).
  return out
    .replace(/(^|\n)[ \t]*\u0000[ \t]*/g, '$1')
    .replace(/[ \t]*\u0000[ \t]*(?=\n|$)/g, '')
    .replace(/[ \t]*\u0000[ \t]*/g, ' ');
}

function isBotMention(m: WireMention, botOpenId: string | null): boolean {
  if (botOpenId) return m.id?.open_id === botOpenId;
  // Unknown bot id: bots carry an empty user_id (INDEX.md "Bot mentions carry an empty id.user_id").
  return m.id?.user_id === '' && !!m.id?.open_id;
}

/** Normalize an `im.message.receive_v1` event. */
export async function normalizeMessage(header: EventHeader, event: MessageEvent, account: string, look: FeishuLookups): Promise<Normalized> {
  const msg = event.message ?? {};
  const messageId = str(msg.message_id);
  const senderIds = event.sender?.sender_id;
  const fromUser = (event.sender?.sender_type ?? 'user') === 'user';
  const openId = str(senderIds?.open_id) || str(senderIds?.user_id) || str(senderIds?.union_id);
  const mentions = Array.isArray(msg.mentions) ? msg.mentions.filter((m) => m && typeof m === 'object') : [];
  const botId = mentions.length > 0 ? await look.botOpenId() : null;
  const botKeys = new Set(mentions.filter((m) => isBotMention(m, botId)).map((m) => m.key));
  const type = str(msg.message_type);
  const content = parseObject(msg.content);

  let body = contentOf(type, content, messageId);
  if (type === 'merge_forward') body = await mergedContent(messageId, look);
  const raw = body?.text ?? '';
  const chatType = chatTypeOf(msg.chat_type);
  const mentioned = botKeys.size > 0;
  const displayName = fromUser && openId ? await look.displayName(openId) : '';
  const message: InboundMessage & { reply_to: (InboundMessage['reply_to'] & { root_id?: string }) | null } = {
    channel: 'feishu',
    account,
    dedupe_key: `feishu:event:${header.event_id}`,
    kind: 'message',
    message_id: messageId || null,
    chat: { id: str(msg.chat_id), type: chatType, thread_id: str(msg.thread_id) || null },
    raw_input: raw,
    display_input: resolveMentions(raw, mentions, new Set()),
    input_without_bot_mention: resolveMentions(raw, mentions, botKeys).trim(),
    attachments: body?.attachments ?? [],
    actor: { id: openId, ids: ids(senderIds), display_name: displayName, is_bot: !fromUser },
    mentioned_bot: mentioned,
    addressed_to_bot: fromUser && (chatType === 'direct' || mentioned),
    reply_to: str(msg.parent_id) ? { message_id: str(msg.parent_id), ...(str(msg.root_id) ? { root_id: str(msg.root_id) } : {}) } : null,
    received_at: receivedAt(msg.create_time ?? header.create_time),
  };
  if (!fromUser) return { outcome: 'ignored', reason: 'from_bot', message };
  if (body === null) return { outcome: 'unsupported', unsupported_type: type || 'unknown', message: { ...message, attachments: [] } };
  return { outcome: 'message', message };
}

/** A merge_forward: each child as `name: text` lines, its attachments kept (ref = the child's id). */
async function mergedContent(messageId: string, look: FeishuLookups): Promise<{ text: string; attachments: Attachment[] }> {
  const children = await look.mergedChildren(messageId);
  const lines: string[] = [];
  const attachments: Attachment[] = [];
  for (const child of children) {
    const c = contentOf(child.msg_type, parseObject(child.content), child.message_id);
    if (!c) continue;
    if (c.text !== '') lines.push(child.sender_name ? `${child.sender_name}: ${c.text}` : c.text);
    attachments.push(...c.attachments);
  }
  return { text: lines.join('\n'), attachments };
}

/** The confirm token and action of a card button value (`{action, confirm_token}` or a JSON string of it). */
export function buttonValue(v: unknown): { action: string; token: string | null; data: string } {
  const obj = typeof v === 'string' ? parseObject(v) : v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  return { action: str(obj.action) || 'unknown', token: str(obj.confirm_token) || str(obj.token) || null, data: typeof v === 'string' ? v : JSON.stringify(v ?? null) };
}

/** Normalize a `card.action.trigger` callback (or a legacy flat card callback mapped to the same shape). */
export async function normalizeCardAction(header: EventHeader, event: CardActionEvent, account: string, look: FeishuLookups): Promise<Normalized> {
  const op = event.operator ?? {};
  const openId = str(op.open_id) || str(op.user_id) || str(op.union_id);
  const chatId = str(event.context?.open_chat_id);
  const cardMessageId = str(event.context?.open_message_id);
  const value = buttonValue(event.action?.value);
  const [displayName, chatType] = await Promise.all([openId ? look.displayName(openId) : Promise.resolve(''), chatId ? look.chatType(chatId) : Promise.resolve(null)]);
  const message: InboundMessage = {
    channel: 'feishu',
    account,
    dedupe_key: `feishu:event:${header.event_id}`,
    kind: 'callback',
    message_id: null,
    chat: { id: chatId, type: chatType ?? 'group', thread_id: null },
    raw_input: null,
    attachments: [],
    actor: { id: openId, ids: ids(op), display_name: displayName, is_bot: false },
    mentioned_bot: false,
    addressed_to_bot: true,
    reply_to: cardMessageId ? { message_id: cardMessageId, author_is_bot: true } : null,
    callback: { id: header.event_id, action: value.action, token: value.token, data: value.data, card_message_id: cardMessageId || null } as InboundMessage['callback'],
    received_at: receivedAt(header.create_time),
  };
  return { outcome: 'message', message };
}

export { storableCopy as toStorable } from '../../src/channel/storable.ts';
