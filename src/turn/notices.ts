/**
 * The platform's own short messages in a turn (zh-CN default, English available). Skills'
 * texts never come from here; only what the gateway itself says.
 */

import type { Lang } from '../channel/types.ts';

export type { Lang };

const TEXTS = {
  working: { 'zh-CN': '处理中…', en: 'Working…' },
  stopped: { 'zh-CN': '已停止。以上是停止前完成的部分。', en: 'Stopped. Above is what was done before the stop.' },
  nothing_running: { 'zh-CN': '当前没有正在执行的任务。', en: 'Nothing is running right now.' },
  stop_requested: { 'zh-CN': '正在停止…', en: 'Stopping…' },
  no_pending_confirm: {
    'zh-CN': '没有待确认的操作（可能已过期或已处理）。如需继续，请重新发起。',
    en: 'There is nothing to confirm (it may have expired or been handled). Please start again if needed.',
  },
  interrupted: {
    'zh-CN': '网关在执行「{skill}」时重启了，这次执行可能没有完成，也可能已经生效。要重新执行一次吗？',
    en: 'The gateway restarted while "{skill}" was running; that run may not have finished, or may already have taken effect. Run it again?',
  },
  run_again: { 'zh-CN': '重新执行', en: 'Run again' },
  not_now: { 'zh-CN': '不用了', en: 'No' },
  no_pending_choice: {
    'zh-CN': '这个问题已经回答过或已过期，没有再做任何改动。如需继续，请重新发起。',
    en: 'That question was already answered or has expired; nothing was changed. Please start again if needed.',
  },
  choice_cancelled: { 'zh-CN': '已取消这个问题，没有做任何改动。', en: 'The question was cancelled; nothing was changed.' },
  confirm_cancelled: { 'zh-CN': '已取消，未执行任何操作。', en: 'Cancelled; nothing was done.' },
  upload_too_large: {
    'zh-CN': '文件「{files}」超过平台允许的下载上限（{mb} MB），无法接收；请压缩或拆分后重新发送。',
    en: 'The file "{files}" is over the platform\'s download limit ({mb} MB) and could not be received; please compress or split it and send it again.',
  },
  upload_failed: {
    'zh-CN': '以下文件未能接收：{files}。请重新发送。',
    en: 'These files could not be received: {files}. Please send them again.',
  },
  internal_error: {
    'zh-CN': '抱歉，处理这条消息时出错了，请稍后再试。',
    en: 'Sorry, something went wrong while handling this message. Please try again later.',
  },
} as const;

/** Keys of the platform texts. */
export type NoticeKey = keyof typeof TEXTS;

/** The text `key` in `lang`, `{name}` placeholders filled from `vars`. */
export function notice(lang: Lang, key: NoticeKey, vars: Record<string, string> = {}): string {
  const t: string = TEXTS[key][lang === 'en' ? 'en' : 'zh-CN'];
  return t.replace(/\{(\w+)\}/g, (_m, k: string) => vars[k] ?? '');
}
