/**
 * The platform's own texts for async skills (R-ASYNC-02, A-48): zh-CN by default, English
 * available. Skill texts never come from here.
 */
import type { Lang } from '../channel/types.ts';

const TEXTS = {
  accepted: {
    'zh-CN': '「{skill}」已在后台开始执行，完成后会把结果发到这里。',
    en: '"{skill}" is running in the background; the result will be posted here when it is done.',
  },
  crashed: {
    'zh-CN': '后台任务「{skill}」执行出错，请稍后重试。',
    en: 'The background task "{skill}" failed. Please try again later.',
  },
} as const;

/** The text `key` in `lang` with `{skill}` filled. */
export function asyncText(lang: Lang, key: keyof typeof TEXTS, skill: string): string {
  return TEXTS[key][lang === 'en' ? 'en' : 'zh-CN'].replace('{skill}', skill);
}
