/**
 * The one split of an outbound text (docs/operations-delivery.md "Long replies"): an adapter
 * renders a message once into its dialect and splits the rendered text here, in its own unit.
 * The core has already bounded the text (src/channel/long-reply.ts); rendering may still make
 * it longer (HTML tags, entities), so a text that would need more than `maxParts` messages is
 * cut to `maxParts`: the last part keeps what fits and ends with the cut notice, whose count
 * adds what the core left out (`omitted`) to what is dropped here and names the file that holds
 * the whole text when the core kept one (`full_text_file`).
 */
import { measure, splitMessage, type SplitFormat, type SplitUnit } from './chunk.ts';
import { cutNotice, REPLY_MAX_PARTS, type FullTextRef } from './long-reply.ts';
import type { Lang, OutboundMessage } from './types.ts';

/** What {@link splitReply} needs besides the text. */
export interface SplitReplyOptions {
  /** Markup the chunker keeps balanced (`html`, `markdown`, `plain`; default plain). */
  format?: SplitFormat;
  /** Most parts the text may take (default {@link REPLY_MAX_PARTS}). */
  maxParts?: number;
  /** Language of the cut notice (default zh-CN). */
  lang?: Lang;
  /** UTF-16 units the core already left out of this text (`OutboundMessage.omitted`; default 0). */
  omitted?: number;
  /** The file that holds the whole text (`OutboundMessage.full_text_file`): the notice names it. */
  file?: FullTextRef | null;
}

/** The options of {@link splitReply} that come from the message itself (its language, what the core cut). */
export function cutOf(
  message: Pick<OutboundMessage, 'lang' | 'omitted' | 'full_text_file' | 'media'>,
): Pick<SplitReplyOptions, 'lang' | 'omitted' | 'file'> {
  const file = message.full_text_file ?? null;
  const attached = file !== null && (message.media ?? []).some((m) => m.filename === file);
  return { lang: message.lang ?? 'zh-CN', omitted: message.omitted ?? 0, ...(file ? { file: { name: file, attached } } : {}) };
}

/**
 * Split rendered `text` into at most `maxParts` parts, each measuring ≤ `max` in `unit`
 * (rules of src/channel/chunk.ts). As {@link splitMessage}: parts of only whitespace are left
 * out unless the text is nothing else; `''` → `[]`.
 * Cost: linear in `text`, which the core has bounded. A `max` narrower than the notice itself
 * (no real platform) leaves the notice alone in the last part, over `max`.
 * @throws RangeError when `max` or `maxParts` < 1.
 */
export function splitReply(text: string, max: number, unit: SplitUnit, opts: SplitReplyOptions = {}): string[] {
  const maxParts = opts.maxParts ?? REPLY_MAX_PARTS;
  if (!(maxParts >= 1)) throw new RangeError('maxParts must be ≥ 1');
  const split = (s: string, limit: number): string[] => splitMessage(s, limit, unit, { format: opts.format ?? 'plain' });
  const parts = split(text, max);
  if (parts.length <= maxParts) return parts;
  let dropped = 0;
  for (let i = maxParts; i < parts.length; i++) dropped += parts[i]!.length;
  const last = parts[maxParts - 1]!;
  // The notice's count is written before the room for it is known: measure it at its widest.
  const lang = opts.lang ?? 'zh-CN';
  const widest = `\n\n${cutNotice(lang, (opts.omitted ?? 0) + dropped + last.length, opts.file)}`;
  const room = max - measure(widest, unit);
  const head = room >= 1 ? (split(last, room)[0] ?? '') : '';
  const notice = cutNotice(lang, (opts.omitted ?? 0) + dropped + Math.max(0, last.length - head.length), opts.file);
  const kept = parts.slice(0, maxParts - 1);
  kept.push(head.trim() === '' ? notice : `${head.trimEnd()}\n\n${notice}`);
  return kept;
}
