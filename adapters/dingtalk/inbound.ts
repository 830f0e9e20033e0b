/**
 * DingTalk robot callback → the channel contract's {@link InboundMessage}
 * (https://open.dingtalk.com/document/orgapp/receive-message
 * `dingtalk/*`). Pure: no I/O.
 *
 * - `dedupe_key` `dingtalk:msg:<msgId>`; `chat.id` = `conversationId`; `conversationType` '1' →
 *   direct, '2' → group (`title` = `conversationTitle`).
 * - actor: `senderStaffId` (org members) else `senderId`; `ids` = `{staff_id, dingtalk_id}`.
 * - text: `text.content` verbatim (in groups DingTalk has already cut the `@robot` part, leaving
 *   the leading space); picture / file / audio / video: an attachment whose `platform_ref` is
 *   `{download_code}` (exchanged later); richText: the text segments joined by newlines (assumed
 *   line-per-segment; the doc shows no example) plus one image attachment per picture segment.
 * - groups: `mentioned_bot` = `addressed_to_bot` = `isInAtList === true` (DingTalk delivers only
 *   @robot messages, the flag is checked anyway); single chats are always addressed.
 * - our own robot (`senderId === chatbotUserId`) → ignored.
 * - a single-chat text `确认 <ref>` / `取消 <ref>` that decodes (through the caller) to
 *   `confirm:<token>` / `cancel:<token>` is a button press: see {@link pressedButton}.
 */
import { type ChatType, type InboundAttachment, type InboundMessage, parseButtonPayload } from '../../src/channel/index.ts';
import type { RobotCallback } from './wire.ts';

/** The outcome of {@link normalizeCallback}. */
export type Normalized =
  | { kind: 'message'; msg: InboundMessage; route: { webhook: string | null; expiresAt: number; staffId: string | null } }
  | { kind: 'ignore'; reason: string }
  | { kind: 'unsupported'; msg: InboundMessage; route: { webhook: string | null; expiresAt: number; staffId: string | null } }
  | { kind: 'bad'; reason: string };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function attachment(type: InboundAttachment['type'], code: string, filename: string | null): InboundAttachment {
  return { type, filename, mime_type: null, platform_ref: { download_code: code } };
}

/** Content of a callback by message type: text and attachments, or null when unsupported. */
function contentOf(p: RobotCallback): { text: string; attachments: InboundAttachment[] } | null {
  const c = isObject(p.content) ? p.content : {};
  const code = str(c.downloadCode) ?? str(c.pictureDownloadCode);
  switch (p.msgtype) {
    case 'text':
      return { text: isObject(p.text) && typeof p.text.content === 'string' ? p.text.content : '', attachments: [] };
    case 'picture':
      return code ? { text: '', attachments: [attachment('image', code, null)] } : null;
    case 'file':
      return code ? { text: '', attachments: [attachment('file', code, str(c.fileName))] } : null;
    case 'audio':
      return code ? { text: '', attachments: [attachment('audio', code, null)] } : null;
    case 'video':
      return code ? { text: '', attachments: [attachment('video', code, null)] } : null;
    case 'richText': {
      if (!Array.isArray(c.richText)) return null;
      const texts: string[] = [];
      const atts: InboundAttachment[] = [];
      for (const seg of c.richText as unknown[]) {
        if (!isObject(seg)) continue;
        if (typeof seg.text === 'string') texts.push(seg.text);
        const segCode = str(seg.downloadCode) ?? str(seg.pictureDownloadCode);
        if (segCode && (seg.type === 'picture' || seg.type === undefined)) atts.push(attachment('image', segCode, null));
      }
      return { text: texts.join('\n'), attachments: atts };
    }
    default:
      return null;
  }
}

/**
 * Normalize one verified callback body for `account` at `nowMs` (received_at fallback).
 * `bad` = required fields missing (answer 400); `ignore` = not for the core (200).
 */
export function normalizeCallback(p: Record<string, unknown>, account: string, nowMs: number): Normalized {
  const cb = p as RobotCallback;
  const msgId = str(cb.msgId);
  const conversationId = str(cb.conversationId);
  const senderId = str(cb.senderId);
  const type = cb.conversationType;
  if (!msgId || !conversationId || !senderId || (type !== '1' && type !== '2') || typeof cb.msgtype !== 'string') {
    return { kind: 'bad', reason: 'msgId, conversationId, conversationType, senderId and msgtype are required' };
  }
  if (senderId === str(cb.chatbotUserId)) return { kind: 'ignore', reason: 'our own robot' };
  const chatType: ChatType = type === '1' ? 'direct' : 'group';
  const staffId = str(cb.senderStaffId);
  const botId = str(cb.chatbotUserId);
  const mentioned = chatType === 'group' && cb.isInAtList === true;
  const createdAt =
    typeof cb.createAt === 'number' && Number.isFinite(cb.createAt) && Math.abs(cb.createAt) < 8.64e15 ? cb.createAt : nowMs;
  const expires =
    typeof cb.sessionWebhookExpiredTime === 'number' && Number.isFinite(cb.sessionWebhookExpiredTime) ? cb.sessionWebhookExpiredTime : 0;
  const route = { webhook: str(cb.sessionWebhook), expiresAt: expires, staffId: chatType === 'direct' ? staffId : null };
  const others = (Array.isArray(cb.atUsers) ? cb.atUsers : [])
    .filter((u): u is { dingtalkId?: string; staffId?: string } => isObject(u) && str(u.dingtalkId) !== null && u.dingtalkId !== botId)
    .map((u) => ({ ...(str(u.staffId) ? { staff_id: u.staffId! } : {}), dingtalk_id: u.dingtalkId! }));
  const content = contentOf(cb);
  const chat: InboundMessage['chat'] & { title?: string } = { id: conversationId, type: chatType, thread_id: null };
  const title = str(cb.conversationTitle);
  if (chatType === 'group' && title) chat.title = title;
  const msg: InboundMessage & { other_mentions?: unknown[] } = {
    channel: 'dingtalk',
    account,
    dedupe_key: `dingtalk:msg:${msgId}`,
    kind: 'message',
    message_id: msgId,
    chat,
    raw_input: content?.text ?? '',
    display_input: content?.text ?? '',
    input_without_bot_mention: (content?.text ?? '').trim(),
    attachments: content?.attachments ?? [],
    actor: {
      id: staffId ?? senderId,
      ids: { ...(staffId ? { staff_id: staffId } : {}), dingtalk_id: senderId },
      display_name: typeof cb.senderNick === 'string' ? cb.senderNick : '',
      is_bot: false,
    },
    mentioned_bot: mentioned,
    addressed_to_bot: chatType === 'direct' || mentioned,
    reply_to: null,
    received_at: new Date(createdAt).toISOString(),
    // A single-chat reply goes through the Open API by staff id once the session webhook is
    // gone (restart, expiry): it travels with the outbox target.
    ...(route.staffId ? { reply_route: { staff_id: route.staffId } } : {}),
  };
  if (others.length) msg.other_mentions = others;
  return content ? { kind: 'message', msg, route } : { kind: 'unsupported', msg, route };
}

/** Words a pressed button sends, by option id (`dtmd` links make the user send `<word> <payload>`). */
export const BUTTON_WORDS: Record<'confirm' | 'cancel', string> = { confirm: '确认', cancel: '取消' };

const PRESS_RE = /^\s*(确认|取消)\s+(\S+)\s*$/;

/** The payload part of a button-press text (`确认 ~ref` → `~ref`), or null when it is not one. */
export function pressedButton(text: string): string | null {
  return PRESS_RE.exec(text)?.[2] ?? null;
}

/**
 * Turn `msg` into a callback for a decoded button payload `confirm:<token>` / `cancel:<token>`
 * (the same payload form as the other adapters' buttons); null when the payload is not one.
 */
export function asCallback(msg: InboundMessage, payload: string): InboundMessage | null {
  const { action, token } = parseButtonPayload(payload);
  if ((action !== 'confirm' && action !== 'cancel') || token === null) return null;
  return {
    ...msg,
    kind: 'callback',
    raw_input: null,
    display_input: null,
    input_without_bot_mention: null,
    callback: { id: msg.message_id, action, token, data: payload },
  };
}
