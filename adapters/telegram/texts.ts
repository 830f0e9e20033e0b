/**
 * User-facing texts of the Telegram adapter, zh-CN by default with English.
 */
import type { Lang } from '../../src/channel/index.ts';
import { langOf } from './inbound.ts';
import type { User } from './wire.ts';

const KIND: Record<string, { 'zh-CN': string; en: string }> = {
  sticker: { 'zh-CN': '贴纸', en: 'Stickers' },
  poll: { 'zh-CN': '投票', en: 'Polls' },
  location: { 'zh-CN': '位置', en: 'Locations' },
  venue: { 'zh-CN': '地点', en: 'Venues' },
  contact: { 'zh-CN': '联系人名片', en: 'Contacts' },
  dice: { 'zh-CN': '骰子', en: 'Dice' },
  game: { 'zh-CN': '游戏', en: 'Games' },
  story: { 'zh-CN': '动态', en: 'Stories' },
};

/** The polite answer to content the gateway does not handle (sticker, poll …). */
export function unsupportedText(what: string, lang: Lang): string {
  const k = KIND[what];
  if (lang === 'en')
    return `${k?.en ?? 'This kind of message'} ${k ? 'are' : 'is'} not supported yet. Please send text, a photo or a file.`;
  return `暂不支持${k?.['zh-CN'] ?? '这种'}消息，请发送文字、图片或文件。`;
}

/** Shown on a pressed button whose payload is unknown or expired. */
export function expiredButtonText(user: User | undefined): string {
  return langOf(user) === 'en' ? 'This button has expired.' : '该按钮已失效。';
}

/** The error text when a file is over the 20 MB download limit (zh-CN, then English). */
export function tooLargeText(filename: string | null): string {
  const name = filename ? `「${filename}」` : '';
  return `文件${name}超过 20 MB，Telegram 机器人无法下载，请压缩或拆分后重新发送。 (The file is larger than 20 MB, the Telegram bot download limit; please compress or split it and send it again.)`;
}
