/**
 * A decrypted WeCom callback (parsed XML) → the normalized {@link InboundMessage}
 * (developer.work.weixin.qq.com/document/path/90239 普通消息, /90240 事件, /90236 模板卡片事件
 * `template_card_event` `wecom/text_plain.xml`).
 *
 * Self-built app messages are always one member ↔ the app: chat type `direct`, chat id = the
 * member's UserID (`FromUserName`), always addressed to the bot. Dedup keys: `wecom:msg:<MsgId>`
 * for messages; events have no id, so `wecom:event:<FromUserName>:<CreateTime>:<Event>` (plus
 * `:<EventKey>` when the event has one, so two different buttons pressed in one second stay two).
 * Pure: the display-name lookup and button-payload resolution are passed in.
 */
import type { AttachmentKind, InboundAttachment, InboundMessage } from '../../src/channel/index.ts';
import type { WecomXml } from './wire.ts';

/** What a callback is. */
export type WecomInbound =
  | { type: 'message'; msg: InboundMessage }
  /** A button press; `data` is the raw `EventKey` (the caller resolves references). */
  | { type: 'callback'; msg: InboundMessage; data: string }
  | { type: 'unsupported'; what: string; msg: InboundMessage }
  | { type: 'ignore'; reason: string }
  | { type: 'invalid'; reason: string };

const MEDIA_KIND: Record<string, AttachmentKind> = { image: 'image', voice: 'audio', video: 'video', file: 'file' };
const MEDIA_MIME: Record<string, string | null> = { image: null, voice: 'audio/amr', video: 'video/mp4', file: null };

function isoFromUnix(s: string | undefined, now: () => number): string {
  const n = s !== undefined && /^\d{1,12}$/.test(s) ? Number(s) * 1000 : now();
  return new Date(n).toISOString();
}

/**
 * Normalize one callback. `displayName` is the member's name from the directory lookup ('' when
 * unknown). Missing required fields → `invalid` (the webhook answers 400).
 */
export function normalizeWecom(x: WecomXml, o: { account: string; displayName: string; now: () => number }): WecomInbound {
  const from = x.FromUserName ?? '';
  const type = x.MsgType ?? '';
  if (from === '' || type === '') return { type: 'invalid', reason: 'FromUserName/MsgType missing' };
  const base = (dedupe_key: string, message_id: string | null): InboundMessage => ({
    channel: 'wecom',
    account: o.account,
    dedupe_key,
    kind: 'message',
    message_id,
    chat: { id: from, type: 'direct', thread_id: null },
    raw_input: '',
    display_input: '',
    input_without_bot_mention: '',
    attachments: [],
    actor: { id: from, display_name: o.displayName, is_bot: false },
    mentioned_bot: false,
    addressed_to_bot: true,
    reply_to: null,
    callback: null,
    received_at: isoFromUnix(x.CreateTime, o.now),
  });

  if (type === 'event') {
    const event = x.Event ?? '';
    if (event === '') return { type: 'invalid', reason: 'Event missing' };
    const key = ['wecom:event', from, x.CreateTime ?? '', event, ...(x.EventKey ? [x.EventKey] : [])].join(':');
    if (event === 'template_card_event' && typeof x.EventKey === 'string' && x.EventKey !== '') {
      const msg = { ...base(key, null), kind: 'callback' as const, raw_input: null, display_input: null, input_without_bot_mention: null };
      return { type: 'callback', msg, data: x.EventKey };
    }
    return { type: 'ignore', reason: `event ${event}` };
  }

  const msgId = x.MsgId ?? '';
  if (!/^\d{1,32}$/.test(msgId)) return { type: 'invalid', reason: 'MsgId missing' };
  const msg = base(`wecom:msg:${msgId}`, msgId);
  if (type === 'text') {
    const text = x.Content ?? '';
    return { type: 'message', msg: { ...msg, raw_input: text, display_input: text, input_without_bot_mention: text.trim() } };
  }
  const kind = MEDIA_KIND[type];
  if (kind) {
    const mediaId = x.MediaId ?? '';
    if (mediaId === '') return { type: 'invalid', reason: 'MediaId missing' };
    const ref: Record<string, unknown> = { media_id: mediaId };
    if (x.PicUrl) ref.pic_url = x.PicUrl;
    if (x.Format) ref.format = x.Format;
    const att: InboundAttachment = {
      type: kind,
      filename: x.FileName ? x.FileName : null,
      mime_type: type === 'voice' && x.Format && x.Format.toLowerCase() !== 'amr' ? null : MEDIA_MIME[type],
      size: x.FileSize && /^\d+$/.test(x.FileSize) ? Number(x.FileSize) : null,
      platform_ref: ref,
    };
    return { type: 'message', msg: { ...msg, attachments: [att] } };
  }
  return { type: 'unsupported', what: type, msg };
}
