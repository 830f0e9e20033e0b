/**
 * Splitting long replies to a platform's per-message limit (docs/results.md). Runs after rendering,
 * in the platform's unit.
 *
 * Rules, in order of strength:
 * 1. every chunk measures ≤ `max` in `unit` (`utf16` = UTF-16 code units, Telegram/Discord;
 *    `bytes` = UTF-8 bytes, WeCom/Feishu; `chars` = Unicode code points);
 * 2. never inside a grapheme cluster (Intl.Segmenter), hence never inside a surrogate pair —
 *    except a single grapheme longer than `max` (pathological), which is cut by code points;
 * 3. `html`: never inside a tag or an entity; tags open at the cut are closed at the end of
 *    the chunk and reopened (verbatim) at the start of the next; never right after an opening
 *    or before a closing tag (no empty pairs);
 * 4. `markdown`: a ``` / ~~~ fence open at the cut is closed at the end of the chunk and
 *    reopened with the same opening line (info string kept) at the next; inline spans
 *    (`**`, `*`, `__`, `_`, `~~`, `||`, code spans, `[label](url)`) likewise, never cut inside
 *    an escape, entity, `<…>` or a link's `](url)`;
 * 3b/4c. markup whose reopening would leave less than max(8, max/8) for content is dropped (the text it
 *    wraps is kept), so a link longer than the limit never gets cut inside its tag;
 * 4b. a table split between two chunks gets its header repeated at the start of the next: a GFM
 *    table in `markdown` (header row + delimiter row, outside fences) and, in `plain`, the
 *    aligned layout of src/channel/render (`a | b` over a `---+---` rule);
 * 5. prefer a paragraph break (blank line), then a line break, then a space, then any
 *    grapheme boundary; a paragraph/line break is taken only when it keeps at least a quarter
 *    of the room, so chunks do not become tiny.
 *
 * The separator at a cut stays at the end of the earlier chunk, so the chunk bodies
 * concatenate to the input (see {@link splitMessageDetailed}). Time and memory are linear in
 * the text (src/channel/chunk-text.ts); a reply of unbounded size is first cut by
 * {@link boundReply} so no chunker ever walks more than a bounded number of messages.
 */

import {
  closeEdge,
  closeInner,
  lex,
  Kind,
  MARKUP,
  NO_CUT_AFTER,
  NO_CUT_BEFORE,
  reopenOf,
  type OpenSpan,
  type SplitFormat,
} from './chunk-lex.ts';
import { measure, type SplitUnit } from './chunk-text.ts';

export { measure, type SplitUnit } from './chunk-text.ts';
export type { SplitFormat } from './chunk-lex.ts';
export { boundReply, type BoundedReply } from './long-reply.ts';

/**
 * One chunk. `text` is `body` wrapped in what keeps it balanced: `prefix` (reopened fence
 * line, table header, tags) at its start and `suffix` at its end; inline markdown spans are
 * reopened after the body's leading whitespace and closed before its trailing whitespace (a
 * `**` next to a space or newline would not count as a delimiter).
 */
export interface Chunk {
  text: string;
  /** Everything inserted before the body's own text ("" when none). */
  prefix: string;
  /** The input slice this chunk carries (markup dropped as too wide for the limit left out). */
  body: string;
  /** Everything inserted after the body's own text ("" when none). */
  suffix: string;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0x3000;
}

/**
 * Where a markdown chunk that starts mid-line in the input needs a backslash so its start does
 * not turn into block syntax (`- `, `# `, `> `, `1. `…), or -1.
 */
function leadEscape(body: string): number {
  const m = /^[ \t]*(?:\d{1,9}(?=[.)](?:\s|$))|(?=#{1,6}(?:\s|$))|(?=>)|(?=[+*-](?:\s|$))|(?=[=-]+[ \t]*(?:\r?\n|$)))/.exec(body);
  return m ? m[0].length : -1;
}

function assemble(body: string, open: OpenSpan | null, close: OpenSpan | null, midLine = false, markdown = false): Chunk {
  const re = reopenOf(open);
  if (markdown && re.edge === '') {
    // An indentation of 4 columns would make the message start with an indented code block.
    const lead = /^\s*/.exec(body)![0];
    const indent = lead.slice(lead.lastIndexOf('\n') + 1);
    if (lead.length < body.length && (indent.includes('\t') || indent.length >= 4)) {
      const rest = assemble(body.slice(lead.length), open, close, midLine && !lead.includes('\n'));
      return { ...rest, body };
    }
  }
  const esc = midLine && re.edge === '' && re.inner === '' ? leadEscape(body) : -1;
  if (esc >= 0) {
    const rest = assemble(body.slice(esc), null, close);
    return { text: `${body.slice(0, esc)}\\${rest.text}`, prefix: esc === 0 ? '\\' : '', body, suffix: rest.suffix };
  }
  const innerClose = closeInner(close);
  let lead = 0;
  while (lead < body.length && isBlank(body.charCodeAt(lead))) lead++;
  let trail = body.length;
  while (trail > lead && isBlank(body.charCodeAt(trail - 1))) trail--;
  const edgeClose = closeEdge(close, body.endsWith('\n'));
  if (lead === trail) return { text: re.edge + body + edgeClose, prefix: re.edge, body, suffix: edgeClose };
  if (re.inner === '' && innerClose === '') {
    const prefix = re.edge + re.inner;
    const suffix = innerClose + edgeClose;
    return { text: prefix + body + suffix, prefix, body, suffix };
  }
  const text = re.edge + body.slice(0, lead) + re.inner + body.slice(lead, trail) + innerClose + body.slice(trail) + edgeClose;
  return { text, prefix: re.edge + re.inner, body, suffix: innerClose + edgeClose };
}

/**
 * Split `text` into chunks each measuring ≤ `max` in `unit`, with what was inserted to keep
 * fences, tags and inline spans balanced. `''` → `[]`. O(length of text).
 * Bodies concatenate to `text` exactly, except markup too wide to reopen within `max`.
 * @throws RangeError when `max` < 1.
 */
export function splitMessageDetailed(text: string, max: number, unit: SplitUnit, opts: { format?: SplitFormat } = {}): Chunk[] {
  if (!(max >= 1)) throw new RangeError('max must be ≥ 1');
  if (text === '') return [];
  if (measure(text, unit) <= max) return [{ text, prefix: '', body: text, suffix: '' }];
  const l = lex(text, opts.format ?? 'plain', unit, max);
  const n = l.start.length;
  const piece = (i: number): string => l.out[i] ?? text.slice(l.start[i]!, l.end[i]!);
  const openW = (s: OpenSpan | null): number => s?.openW ?? 0;
  const closeW = (s: OpenSpan | null): number => s?.closeW ?? 0;
  const markdown = opts.format === 'markdown';
  /** A markdown chunk starting mid-line gets a backslash before a would-be block marker. */
  const midLine = (i: number): boolean => markdown && i > 0 && l.kind[i - 1] !== Kind.Newline;
  const escapes = (i: number): boolean => midLine(i) && leadEscape(text.slice(l.start[i]!, l.start[i]! + 16)) >= 0;
  const chunks: Chunk[] = [];
  const emit = (from: number, to: number): void => {
    // A closer at the start was closed by the previous chunk; an opener at the end is reopened by the next.
    while (from < to && l.glue[from]! & MARKUP && l.glue[from]! & NO_CUT_BEFORE) from++;
    while (to > from && l.glue[to - 1]! & MARKUP && l.glue[to - 1]! & NO_CUT_AFTER) to--;
    let body = '';
    for (let i = from; i < to; i++) body += piece(i);
    if (body === '') return;
    chunks.push(assemble(body, l.states[from]!, to < n ? l.states[to]! : null, midLine(from), markdown));
  };
  let k = 0;
  while (k < n) {
    const prefixW = openW(l.states[k]!) + (escapes(k) ? 1 : 0);
    let bodyW = 0;
    let best = -1;
    let loose = -1; // fits, ignoring the no-cut rules around openers/closers
    let para = -1;
    let line = -1;
    let word = -1;
    for (let j = k; j < n; j++) {
      bodyW += l.width[j]!;
      const end = j + 1;
      const suffixW = end < n ? closeW(l.states[end]!) : 0;
      if (prefixW + bodyW > max) break;
      if (prefixW + bodyW + suffixW > max) continue;
      if (end === n) {
        best = end;
        break;
      }
      loose = end;
      if (l.glue[j]! & NO_CUT_AFTER || l.glue[end]! & NO_CUT_BEFORE) continue;
      best = end;
      if (l.kind[j] === Kind.Newline) {
        line = end;
        if (j > k && l.kind[j - 1] === Kind.Newline) para = end;
      } else if (l.kind[j] === Kind.Space) word = end;
    }
    const room = max - prefixW;
    const keeps = (e: number): boolean => {
      let w = 0;
      for (let i = k; i < e; i++) w += l.width[i]!;
      return e > k && w * 4 >= room;
    };
    let end = best === n ? n : para > 0 && keeps(para) ? para : line > 0 && keeps(line) ? line : word > 0 ? word : best;
    if (end <= k) end = loose;
    if (end > k) {
      emit(k, end);
      k = end;
      continue;
    }
    // One unit wider than the room left by the balancing text: markup is left out, text sent
    // without the balancing, and a grapheme wider than `max` itself (pathological) is cut by
    // code points.
    const whole = piece(k);
    if (l.glue[k]! & MARKUP || whole === '') {
      // nothing to send
    } else if (measure(whole, unit) <= max) chunks.push({ text: whole, prefix: '', body: whole, suffix: '' });
    else {
      let part = '';
      for (const cp of whole) {
        if (part !== '' && measure(part + cp, unit) > max) {
          chunks.push({ text: part, prefix: '', body: part, suffix: '' });
          part = '';
        }
        part += cp;
      }
      if (part !== '') chunks.push({ text: part, prefix: '', body: part, suffix: '' });
    }
    k++;
  }
  return chunks;
}

/**
 * Split `text` for a platform limit (see the module doc for the rules).
 * @param max the limit in `unit` (Telegram 4096 utf16, Discord 2000, WeCom 2048 bytes).
 * @returns the chunks in order, none of only whitespace unless the text is; `[]` for `''`;
 *   `[text]` when it fits.
 * @throws RangeError when `max` < 1.
 */
export function splitMessage(text: string, max: number, unit: SplitUnit, opts?: { format?: SplitFormat }): string[] {
  const all = splitMessageDetailed(text, max, unit, opts).map((c) => c.text);
  // A chunk of only whitespace (a long run of blank lines) is nothing to send.
  const sent = all.filter((c) => c.trim() !== '');
  return sent.length > 0 ? sent : all.slice(0, 1);
}
