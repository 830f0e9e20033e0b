/**
 * Feishu events → {@link InboundMessage} (open.feishu.cn
 * im-v1 "Receive message" and "Message content description"; card callback docs).
 *
 * - `im.message.receive_v1`: text, post (every documented element in order, top-level `files`;
 *   unknown tags reported and shown as `[tag]`), image, file, audio, media, interactive cards
 *   (title + text elements), merge_forward (children fetched through {@link FeishuLookups});
 *   sticker and other types are `unsupported`; messages whose `sender_type` is not `user` are
 *   `ignored` (bot loops).
 * - mention placeholders (`@_user_1`) → `@name` (longest key first), the bot's own mention
 *   removed in `input_without_bot_mention`; `mentioned_bot` by the bot's open_id, user_id or
 *   union_id; `@_all` addresses the bot only when the account says so
 *   (docs/adapter-authoring.md "Feishu").
 * - `card.action.trigger` → `kind: 'callback'` carrying the button's `confirm_token`.
 * Never throws for malformed event bodies (missing fields become empty values).
 */
import type { ChatType, InboundAttachment, InboundMessage } from '../../src/channel/index.ts';
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

/** Called with each post/card element tag the projection does not know. */
export type UnknownTag = (tag: string) => void;

function fileAttachment(
  el: { file_key?: unknown; file_name?: unknown },
  ref: (key: Record<string, unknown>) => Record<string, unknown>,
): Attachment | null {
  const key = str(el.file_key);
  return key
    ? { type: 'file', filename: str(el.file_name) || null, mime_type: null, platform_ref: ref({ file_key: key, resource_type: 'file' }) }
    : null;
}

/**
 * Text + attachments of a post, in order: title, then each paragraph as a line (links as
 * `text (url)`, at as its placeholder, emotions `[type]`, code blocks fenced, `hr` as `---`,
 * img/media/file as attachments), then the top-level `files`. Unknown tags become `[tag]` (and
 * their `text`, when they carry one) and are reported to `unknown`.
 */
function fromPost(
  c: Record<string, unknown>,
  ref: (key: Record<string, unknown>) => Record<string, unknown>,
  unknown: UnknownTag,
): { text: string; attachments: Attachment[] } {
  const body = postBody(c);
  const lines: string[] = [];
  const attachments: Attachment[] = [];
  if (str(body.title) !== '') lines.push(str(body.title));
  for (const para of Array.isArray(body.content) ? body.content : []) {
    let line = '';
    let mediaOnly = false;
    for (const el of Array.isArray(para) ? (para as PostElement[]) : []) {
      if (!el || typeof el !== 'object') continue;
      const e = el as Record<string, unknown>;
      switch (el.tag) {
        case 'text':
        case 'md':
          line += str(e.text);
          break;
        case 'code_block': {
          const code = str(e.text).replace(/\n$/, '');
          line += `${line === '' ? '' : '\n'}\`\`\`${str(e.language).toLowerCase()}\n${code}\n\`\`\``;
          break;
        }
        case 'hr':
          line += line === '' ? '---' : '\n---';
          break;
        case 'a': {
          const text = str(e.text);
          const href = str(e.href);
          line += text === '' || text === href ? href : href === '' ? text : `${text} (${href})`;
          break;
        }
        case 'at':
          line += str(e.user_id).startsWith('@') ? str(e.user_id) : `@${str(e.user_name) || str(e.user_id)}`;
          break;
        case 'emotion':
          line += `[${str(e.emoji_type)}]`;
          break;
        case 'img':
          mediaOnly = true;
          if (str(e.image_key))
            attachments.push({
              type: 'image',
              filename: null,
              mime_type: null,
              platform_ref: ref({ file_key: e.image_key, resource_type: 'image' }),
            });
          break;
        case 'media':
          mediaOnly = true;
          if (str(e.file_key)) {
            attachments.push({
              type: 'video',
              filename: str(e.file_name) || null,
              mime_type: null,
              platform_ref: ref({ file_key: e.file_key, resource_type: 'file', ...(e.image_key ? { cover_image_key: e.image_key } : {}) }),
            });
          }
          break;
        case 'file': {
          mediaOnly = true;
          const a = fileAttachment(e, ref);
          if (a) attachments.push(a);
          break;
        }
        default: {
          const tag = str(e.tag) || 'unknown';
          unknown(tag);
          line += str(e.text) !== '' ? str(e.text) : `[${tag}]`;
          break;
        }
      }
    }
    if (!(mediaOnly && line === '')) lines.push(line);
  }
  // Files sent with a post arrive beside its content (`files: [{file_key, file_name}]`).
  const files = (c as { files?: unknown }).files ?? (body as { files?: unknown }).files;
  for (const f of Array.isArray(files) ? files : []) {
    const a = f && typeof f === 'object' ? fileAttachment(f as Record<string, unknown>, ref) : null;
    if (a) attachments.push(a);
  }
  return { text: lines.join('\n').trim(), attachments };
}

/** Text-bearing tags of an inbound card (message card JSON as the receive event renders it). */
const CARD_TEXT_TAGS = new Set(['text', 'plain_text', 'lark_md', 'markdown', 'md', 'a', 'at', 'button', 'div', 'note']);

/**
 * An inbound `interactive` card as text: its title, then the text of its elements in order
 * (text, markdown, links, notes, button labels), one line per top-level element row. Images
 * and other non-text elements are skipped; nothing is fetched.
 */
function fromCard(c: Record<string, unknown>): { text: string; attachments: Attachment[] } {
  const lines: string[] = [];
  const header = c.header as { title?: { content?: unknown } } | undefined;
  const title = str(c.title) || str(header?.title?.content);
  if (title !== '') lines.push(title);
  const textOf = (v: unknown, depth: number): string => {
    if (depth > 8 || !v || typeof v !== 'object') return typeof v === 'string' ? v : '';
    if (Array.isArray(v))
      return v
        .map((x) => textOf(x, depth + 1))
        .filter((t) => t !== '')
        .join(' ');
    const o = v as Record<string, unknown>;
    const tag = str(o.tag);
    let own = '';
    if (tag === '' || CARD_TEXT_TAGS.has(tag)) {
      own = str(o.text) || str(o.content) || (tag === 'at' ? `@${str(o.user_name) || str(o.user_id)}` : '');
      if (o.text && typeof o.text === 'object') own = textOf(o.text, depth + 1);
    }
    const inner = ['fields', 'elements', 'columns', 'actions', 'extra'].map((k) => textOf(o[k], depth + 1)).filter((t) => t !== '');
    return [own, ...inner].filter((t) => t !== '').join(' ');
  };
  const body = c.body as { elements?: unknown } | undefined;
  const rows = Array.isArray(c.elements) ? c.elements : Array.isArray(body?.elements) ? body.elements : [];
  for (const row of rows) {
    const t = textOf(row, 0).trim();
    if (t !== '') lines.push(t);
  }
  return { text: lines.join('\n').trim(), attachments: [] };
}

/** Text and attachments of one message body by type; null = unsupported type. */
export function contentOf(
  type: string,
  c: Record<string, unknown>,
  messageId: string,
  unknown: UnknownTag = () => {},
): { text: string; attachments: Attachment[] } | null {
  const ref = (extra: Record<string, unknown>): Record<string, unknown> => ({ message_id: messageId, ...extra });
  const duration = num(c.duration);
  switch (type) {
    case 'text':
      return { text: str(c.text), attachments: [] };
    case 'post':
      return fromPost(c, ref, unknown);
    case 'interactive':
      return fromCard(c);
    case 'image':
      return str(c.image_key)
        ? {
            text: '',
            attachments: [
              { type: 'image', filename: null, mime_type: null, platform_ref: ref({ file_key: c.image_key, resource_type: 'image' }) },
            ],
          }
        : { text: '', attachments: [] };
    case 'file':
      return {
        text: '',
        attachments: [
          {
            type: 'file',
            filename: str(c.file_name) || null,
            mime_type: null,
            platform_ref: ref({ file_key: str(c.file_key), resource_type: 'file' }),
          },
        ],
      };
    case 'audio':
      return {
        text: '',
        attachments: [
          {
            type: 'audio',
            filename: null,
            mime_type: null,
            ...(duration !== undefined ? { duration_ms: duration } : {}),
            platform_ref: ref({ file_key: str(c.file_key), resource_type: 'file' }),
          },
        ],
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
            platform_ref: ref({
              file_key: str(c.file_key),
              resource_type: 'file',
              ...(str(c.image_key) ? { cover_image_key: c.image_key } : {}),
            }),
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

/** The bot's own ids, as far as the account knows them (open_id from bot/v3/info when not set). */
export interface FeishuBotIds {
  user_id?: string;
  union_id?: string;
}

/** How mentions address the bot, and where unknown content is reported (all optional). */
export interface FeishuInboundOptions {
  bot?: FeishuBotIds;
  /** `@_all` (everyone) counts as addressing the bot (default false). */
  atAllAddressesBot?: boolean;
  /** Called with each post/card tag the projection does not know. */
  unknownTag?: UnknownTag;
}

function isBotMention(m: WireMention, botOpenId: string | null, bot: FeishuBotIds): boolean {
  const id = m.id ?? {};
  if (botOpenId && id.open_id === botOpenId) return true;
  if (bot.user_id && id.user_id === bot.user_id) return true;
  if (bot.union_id && id.union_id === bot.union_id) return true;
  if (botOpenId || bot.user_id || bot.union_id) return false;
  // Unknown bot id: bots carry an empty user_id (INDEX.md "Bot mentions carry an empty id.user_id").
  return id.user_id === '' && !!id.open_id;
}

/** Normalize an `im.message.receive_v1` event. */
export async function normalizeMessage(
  header: EventHeader,
  event: MessageEvent,
  account: string,
  look: FeishuLookups,
  opts: FeishuInboundOptions = {},
): Promise<Normalized> {
  const msg = event.message ?? {};
  const messageId = str(msg.message_id);
  const senderIds = event.sender?.sender_id;
  const fromUser = (event.sender?.sender_type ?? 'user') === 'user';
  const openId = str(senderIds?.open_id) || str(senderIds?.user_id) || str(senderIds?.union_id);
  const mentions = Array.isArray(msg.mentions) ? msg.mentions.filter((m) => m && typeof m === 'object') : [];
  const botId = mentions.length > 0 ? await look.botOpenId() : null;
  const botKeys = new Set(mentions.filter((m) => m.key !== '@_all' && isBotMention(m, botId, opts.bot ?? {})).map((m) => m.key));
  const type = str(msg.message_type);
  const content = parseObject(msg.content);

  let body = contentOf(type, content, messageId, opts.unknownTag);
  if (type === 'merge_forward') body = await mergedContent(messageId, look);
  const raw = body?.text ?? '';
  const chatType = chatTypeOf(msg.chat_type);
  // `@_all` addresses everyone: the bot only when configured (then it is removed like the bot's own mention).
  const atAll = mentions.some((m) => m.key === '@_all') || /@_all(?![\w])/.test(raw);
  if (atAll && opts.atAllAddressesBot) botKeys.add('@_all');
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
  return {
    action: str(obj.action) || 'unknown',
    token: str(obj.confirm_token) || str(obj.token) || null,
    data: typeof v === 'string' ? v : JSON.stringify(v ?? null),
  };
}

/** Normalize a `card.action.trigger` callback (or a legacy flat card callback mapped to the same shape). */
export async function normalizeCardAction(
  header: EventHeader,
  event: CardActionEvent,
  account: string,
  look: FeishuLookups,
): Promise<Normalized> {
  const op = event.operator ?? {};
  const openId = str(op.open_id) || str(op.user_id) || str(op.union_id);
  const chatId = str(event.context?.open_chat_id);
  const cardMessageId = str(event.context?.open_message_id);
  const value = buttonValue(event.action?.value);
  const [displayName, chatType] = await Promise.all([
    openId ? look.displayName(openId) : Promise.resolve(''),
    chatId ? look.chatType(chatId) : Promise.resolve(null),
  ]);
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
    callback: {
      id: header.event_id,
      action: value.action,
      token: value.token,
      data: value.data,
      card_message_id: cardMessageId || null,
    } as InboundMessage['callback'],
    received_at: receivedAt(header.create_time),
  };
  return { outcome: 'message', message };
}

export { storableCopy as toStorable } from '../../src/channel/index.ts';
