/**
 * Replies of unbounded size (docs/operations-delivery.md "Long replies"): before anything walks
 * a reply grapheme by grapheme (rendering, chunking), a text longer than `maxParts` messages of
 * the channel's limit is cut there, at a line break when one is near, and ends with a notice
 * that points to the full text (an attached file when the caller offloaded it, else the size
 * that was left out). Cost: O(kept part), never O(whole text) for `utf16`/`chars` units.
 */
import { prefixEnd, type SplitUnit } from './chunk-text.ts';
import type { Lang } from './types.ts';

/** Messages a reply may take before it is cut (at the channel's `max_length`). */
export const REPLY_MAX_PARTS = 8;

/** The result of {@link boundReply}. */
export interface BoundedReply {
  /** The text to split and send (the input when it fits). */
  text: string;
  /** True when the input was cut. */
  cut: boolean;
  /** UTF-16 code units of the input left out (0 when not cut). */
  omitted: number;
}

/**
 * Where the whole text of a cut reply is: a file sent with the reply (`attached`), or a file kept
 * in the session (a channel that cannot send files).
 */
export interface FullTextRef {
  name: string;
  attached: boolean;
}

const NOTICE = {
  zh: {
    head: '（回复过长，只发送了前一部分，省略约 {n} 字符',
    file: '；全文见附件 {file}',
    saved: '；全文已保存为会话文件 {file}',
    end: '）',
  },
  en: {
    head: '(reply too long: only the first part was sent, about {n} characters left out',
    file: '; the full text is attached as {file}',
    saved: '; the full text is saved as the session file {file}',
    end: ')',
  },
} as const;

/** The notice that ends a cut reply; a string `file` is an attached one. */
export function cutNotice(lang: Lang, omitted: number, file?: FullTextRef | string | null): string {
  const s = lang === 'en' ? NOTICE.en : NOTICE.zh;
  const ref = typeof file === 'string' ? { name: file, attached: true } : file;
  const where = ref && ref.name !== '' ? (ref.attached ? s.file : s.saved).replace('{file}', ref.name) : '';
  return s.head.replace('{n}', String(omitted)) + where + s.end;
}

/**
 * Bound `text` to `maxParts` messages of `max` in `unit`.
 * @param opts.file the file that holds the full text, when the caller keeps one (a string: attached).
 * @returns the text to send (input, or its head + "\n\n" + the notice).
 * @throws RangeError when `max` or `maxParts` < 1.
 */
export function boundReply(
  text: string,
  max: number,
  unit: SplitUnit,
  opts: { lang?: Lang; maxParts?: number; file?: FullTextRef | string | null } = {},
): BoundedReply {
  const parts = opts.maxParts ?? REPLY_MAX_PARTS;
  if (!(max >= 1) || !(parts >= 1)) throw new RangeError('max and maxParts must be ≥ 1');
  const budget = max * parts;
  // UTF-16 length bounds both other units from below (bytes ≥ code units ≥ code points).
  if (text.length <= budget && unit !== 'bytes') return { text, cut: false, omitted: 0 };
  if (unit === 'bytes' && Buffer.byteLength(text, 'utf8') <= budget) return { text, cut: false, omitted: 0 };
  const lang: Lang = opts.lang ?? 'zh-CN';
  const reserve = cutNotice(lang, text.length, opts.file).length * 4 + 4; // generous in any unit
  let end = prefixEnd(text, Math.max(1, budget - reserve), unit);
  const nl = text.lastIndexOf('\n', end - 1);
  if (nl > 0 && end - nl < max) end = nl;
  const omitted = text.length - end;
  return { text: `${text.slice(0, end).trimEnd()}\n\n${cutNotice(lang, omitted, opts.file)}`, cut: true, omitted };
}
