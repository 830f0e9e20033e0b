/** User-facing texts of the Discord adapter (zh-CN default, English when the client says so). */
import type { Lang } from '../../src/channel/index.ts';

/** Answer to a press on a button whose stored payload expired. */
export function expiredButtonText(lang: Lang): string {
  return lang === 'en' ? 'This button has expired. Please ask again.' : '此按钮已过期，请重新发起请求。';
}
