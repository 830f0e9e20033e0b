/**
 * User-facing strings of reply composition, zh-CN (default) and English.
 */

import type { Lang } from '../../channel/types.ts';

export type { Lang };

const STRINGS = {
  done: { zh: '已完成。', en: 'Done.' },
  check_params: { zh: '请检查参数后重试', en: 'Please check the parameters and try again' },
  transient: { zh: '服务暂时不可用，请稍后再试', en: 'The service is temporarily unavailable, please try again later' },
  config: { zh: '该技能尚未配置完成，请联系管理员', en: 'This skill is not fully configured yet, please contact the administrator' },
  need_param: { zh: '还需要参数：', en: 'Missing parameters: ' },
  failed: { zh: '操作未成功', en: 'The request did not succeed' },
  next_steps: { zh: '可继续的操作：', en: 'Next steps:' },
  file: { zh: '文件：', en: 'File: ' },
  truncated: { zh: '（内容较长，已截断；完整结果共 {n} 字符）', en: '(long result truncated; {n} characters in full)' },
  confirm: { zh: '确认', en: 'Confirm' },
  cancel: { zh: '取消', en: 'Cancel' },
  confirm_text_prompt: {
    zh: '回复「确认」继续，回复「取消」放弃。',
    en: 'Reply "确认" or "confirm" to proceed, "取消" or "cancel" to give up.',
  },
} as const;

/** The string `key` in `lang`, with `{name}` placeholders filled. */
export function t(lang: Lang, key: keyof typeof STRINGS, vars: Record<string, string | number> = {}): string {
  const s: string = lang === 'en' ? STRINGS[key].en : STRINGS[key].zh;
  return s.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}
