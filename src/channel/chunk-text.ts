/**
 * Linear text primitives of the chunker (docs/adapter-authoring.md "Chunking"): grapheme
 * boundaries of a whole text and widths in a platform's unit, each in one pass.
 *
 * `Intl.Segmenter` iterated over one long string costs V8 time that grows with the square of
 * the length (measured: 128 k characters ≈ 3–29 s), so the text is segmented in windows: each
 * window starts on a known boundary and its last segment (whose right context is cut off) is
 * segmented again at the start of the next window; and only the stretches around characters
 * that may join a neighbour go through it at all.
 */

/** Length unit of a platform limit. */
export type SplitUnit = 'utf16' | 'bytes' | 'chars';

const WINDOW = 1024;
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Characters that never join a neighbour into one grapheme (no Extend, ZWJ, spacing mark,
 * prepend, regional indicator, surrogate or Hangul jamo among them): Latin up to U+02FF
 * (except CR), general punctuation U+2010–2027, CJK punctuation U+3000–3029, kana, CJK
 * ideographs, Hangul syllables, fullwidth forms U+FF01–FF9D.
 */
function simple(c: number): boolean {
  if (c < 0x300) return c !== 13;
  return (
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0x3000 && c <= 0x3029) ||
    (c >= 0x3041 && c <= 0x3096) ||
    (c >= 0x30a0 && c <= 0x30ff) ||
    (c >= 0x2010 && c <= 0x2027) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xff01 && c <= 0xff9d)
  );
}

/** Boundaries strictly inside `text[from, to)`, which starts and ends on boundaries. */
function segmentRange(text: string, from: number, to: number, out: Uint8Array): void {
  let s = from;
  let size = WINDOW;
  while (s < to) {
    const e = Math.min(to, s + size);
    let last = s; // the start of the window's final segment, whose extent is not known yet
    for (const seg of segmenter.segment(text.slice(s, e))) {
      const p = s + seg.index;
      if (p > s) {
        out[p] = 1;
        last = p;
      }
    }
    if (e === to) return;
    if (last === s) {
      size *= 2; // one grapheme longer than the window
      continue;
    }
    size = WINDOW;
    s = last;
  }
}

/**
 * Grapheme boundaries of `text`: `out[p] === 1` when a cut before UTF-16 offset `p` falls
 * between two grapheme clusters (`out[0]` and `out[text.length]` are 1). O(length): between
 * two {@link simple} characters is always a boundary; only the stretches around other
 * characters go through the segmenter.
 */
export function graphemeBoundaries(text: string): Uint8Array {
  const n = text.length;
  const out = new Uint8Array(n + 1);
  out[0] = 1;
  out[n] = 1;
  let prevSimple = n > 0 && simple(text.charCodeAt(0));
  let from = -1; // first uncertain position of the current stretch
  for (let p = 1; p <= n; p++) {
    const cur = p < n && simple(text.charCodeAt(p));
    const certain = p === n || (prevSimple && cur && !(text.charCodeAt(p - 1) === 13 && text.charCodeAt(p) === 10));
    if (certain) {
      out[p] = 1;
      if (from >= 0) {
        segmentRange(text, from - 1, p, out);
        from = -1;
      }
    } else if (from < 0) from = p;
    prevSimple = cur;
  }
  return out;
}

/** Width of `text[from, to)` in `unit`. O(to - from). */
export function widthOf(text: string, from: number, to: number, unit: SplitUnit): number {
  if (unit === 'utf16') return to - from;
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > from && isHigh(text.charCodeAt(i - 1))) {
      n += unit === 'bytes' ? 2 : 0; // second half of a pair: 4 bytes / 1 code point in all
      continue;
    }
    if (unit === 'chars') n += 1;
    else n += c < 0x80 ? 1 : c < 0x800 ? 2 : isHigh(c) ? 2 : 3;
  }
  return n;
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Measure `s` in `unit` (`utf16` code units, UTF-8 `bytes`, Unicode code points `chars`). */
export function measure(s: string, unit: SplitUnit): number {
  if (unit === 'bytes') return Buffer.byteLength(s, 'utf8');
  return widthOf(s, 0, s.length, unit);
}

/**
 * The longest prefix of `text` measuring ≤ `budget` in `unit`, as a UTF-16 offset that never
 * splits a surrogate pair. Walks only the prefix (O(budget)), never the whole text.
 */
export function prefixEnd(text: string, budget: number, unit: SplitUnit): number {
  let end: number;
  if (unit === 'utf16') end = Math.min(text.length, Math.max(0, budget));
  else {
    let w = 0;
    end = 0;
    while (end < text.length) {
      const c = text.charCodeAt(end);
      const pair = isHigh(c) && end + 1 < text.length;
      const cw = unit === 'chars' ? 1 : c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
      if (w + cw > budget) break;
      w += cw;
      end += pair ? 2 : 1;
    }
  }
  if (end > 0 && end < text.length && isHigh(text.charCodeAt(end - 1))) end--;
  return end;
}
