/**
 * The chunker's lexers (docs/adapter-authoring.md "Chunking"): a text becomes atomic units
 * (graphemes; tags, entities, escapes and markup delimiters) and, at every boundary between
 * units, the markup open there — what a chunk cut at that boundary must close and the next one
 * reopen. One forward pass per format, O(length).
 *
 * - `html` (Telegram): tags `<…>` and entities `&…;`; open tags are reopened verbatim.
 * - `markdown` (Discord, Feishu card, DingTalk, and the core's source markdown): ``` / ~~~
 *   fences; GFM table headers; inline spans `**` `__` `~~` `||` `*` `_`, code spans, links
 *   `[label](url)`, autolinks/tags `<…>`, entities and backslash escapes. A delimiter opens a
 *   span only when the same character occurs again later in its paragraph; spans end at a
 *   blank line.
 * - `plain`: graphemes; the aligned tables of src/channel/render keep their header.
 *
 * Tags and links whose re-opening would leave less than an eighth of the limit (at least 8
 * units) for content (a URL longer than that, deep nesting at small limits) are dropped — the
 * opener and its closer are removed, the visible text kept — so no tag is ever cut; emphasis
 * that deep is kept verbatim and not balanced.
 */
import { graphemeBoundaries, measure, widthOf, type SplitUnit } from './chunk-text.ts';

/** What the text is (decides what must stay balanced). */
export type SplitFormat = 'markdown' | 'plain' | 'html';

/** No cut right after this unit (an opener). */
export const NO_CUT_AFTER = 1;
/** No cut right before this unit (a closer). */
export const NO_CUT_BEFORE = 2;
/** The unit opens or closes a span (a tag, a delimiter, a link's `[` / `](url)`): a chunk never starts with such a closer or ends with such an opener. */
export const MARKUP = 4;

/** Unit kinds that rank cut points. */
export enum Kind {
  Text = 0,
  Space = 1,
  Newline = 2,
}

/** Markup open at a boundary: a chain from the innermost span out. */
export interface OpenSpan {
  parent: OpenSpan | null;
  /** Placed at the chunk's edges (tags, fences, table headers) or inside its surrounding whitespace (inline markdown). */
  edge: boolean;
  open: string;
  /** The closing text; for a fence, its marker (see {@link closeEdge}). */
  close: string;
  fence: boolean;
  /** Measured width of the chain's reopening text. */
  openW: number;
  /** Measured width of the chain's closing text (a fence's counted with its newline). */
  closeW: number;
  cache?: { edgeOpen: string; innerOpen: string; innerClose: string };
}

/** The lexed text: unit `i` is `text[start[i], end[i])` carried as `out[i]` (null = verbatim). */
export interface Lexed {
  start: number[];
  end: number[];
  width: number[];
  kind: Kind[];
  glue: number[];
  out: (string | null)[];
  /** `states[i]` = markup open before unit `i` (`states.length = units + 1`). */
  states: (OpenSpan | null)[];
}

function texts(s: OpenSpan): { edgeOpen: string; innerOpen: string; innerClose: string } {
  if (s.cache) return s.cache;
  const p = s.parent ? texts(s.parent) : { edgeOpen: '', innerOpen: '', innerClose: '' };
  s.cache = {
    edgeOpen: p.edgeOpen + (s.edge ? s.open : ''),
    innerOpen: p.innerOpen + (s.edge ? '' : s.open),
    innerClose: (s.edge ? '' : s.close) + p.innerClose,
  };
  return s.cache;
}

/** Reopening text of `s`: at the chunk start (edge) and after its leading whitespace (inner). */
export function reopenOf(s: OpenSpan | null): { edge: string; inner: string } {
  if (!s) return { edge: '', inner: '' };
  const t = texts(s);
  return { edge: t.edgeOpen, inner: t.innerOpen };
}

/** Inner closing text of `s` (before the chunk's trailing whitespace). */
export function closeInner(s: OpenSpan | null): string {
  return s ? texts(s).innerClose : '';
}

/** Edge closing text of `s` at the chunk end; `nl` = the chunk body ends with a newline. */
export function closeEdge(s: OpenSpan | null, nl: boolean): string {
  let out = '';
  let first = true;
  for (let c = s; c; c = c.parent) {
    if (!c.edge) continue;
    out += c.fence ? (first && nl ? c.close : `\n${c.close}`) : c.close;
    first = false;
  }
  return out;
}

class Builder {
  readonly l: Lexed = { start: [], end: [], width: [], kind: [], glue: [], out: [], states: [] };
  constructor(
    readonly text: string,
    readonly unit: SplitUnit,
    readonly max: number,
    readonly bounds: Uint8Array,
  ) {}

  /** One unit, in state `state`. */
  add(start: number, end: number, state: OpenSpan | null, glue = 0, out: string | null = null, kind?: Kind): void {
    const l = this.l;
    l.start.push(start);
    l.end.push(end);
    l.width.push(out === null ? widthOf(this.text, start, end, this.unit) : measure(out, this.unit));
    l.kind.push(kind ?? this.kindOf(start, end));
    l.glue.push(glue);
    l.out.push(out);
    l.states.push(state);
  }

  private kindOf(start: number, end: number): Kind {
    const c = this.text.charCodeAt(start);
    if (c === 10 || (c === 13 && end - start === 2)) return Kind.Newline;
    if ((c === 32 || c === 9 || c === 0x3000) && end - start === 1) return Kind.Space;
    return Kind.Text;
  }

  /** Grapheme units of `text[from, to)`. */
  graphemes(from: number, to: number, state: OpenSpan | null, glue = 0): void {
    let s = from;
    for (let p = from + 1; p <= to; p++) {
      if (p === to || this.bounds[p] === 1) {
        this.add(s, p, state, glue);
        s = p;
      }
    }
  }

  /** A span on top of `parent`, or null when re-opening it would take more than half the limit. */
  push(
    parent: OpenSpan | null,
    open: string,
    close: string,
    edge: boolean,
    fence = false,
    room = Math.max(8, Math.ceil(this.max / 8)),
  ): OpenSpan | null {
    const openW = (parent?.openW ?? 0) + measure(open, this.unit);
    const closeW = (parent?.closeW ?? 0) + measure(close, this.unit) + (fence ? 1 : 0);
    if (openW + closeW > this.max - room) return null;
    return { parent, edge, open, close, fence, openW, closeW };
  }

  /** Width from unit `from`'s start to offset `to`. */
  spanWidth(from: number, to: number): number {
    return widthOf(this.text, this.l.start[from]!, to, this.unit);
  }

  finish(last: OpenSpan | null): Lexed {
    this.l.states.push(last);
    return this.l;
  }
}

const VOID_TAGS = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'wbr']);

/** HTML: tags and entities atomic; open tags reopened verbatim. */
function lexHtml(b: Builder): Lexed {
  const text = b.text;
  const re = /<[^<>]*>|&(?:#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g;
  const stack: { name: string; span: OpenSpan | null; dropped: boolean; below: OpenSpan | null }[] = [];
  let state: OpenSpan | null = null;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    b.graphemes(last, m.index, state);
    const piece = m[0];
    const end = m.index + piece.length;
    last = end;
    const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(\/?)>$/.exec(piece);
    if (!tag || VOID_TAGS.has(tag[2]!.toLowerCase()) || tag[3] === '/') {
      // entity, void tag, or something tag-like: atomic; dropped when it alone takes half the limit
      const tooWide = measure(piece, b.unit) > b.max - Math.max(8, Math.ceil(b.max / 8));
      b.add(m.index, end, state, 0, tooWide && piece.startsWith('<') ? '' : null, Kind.Text);
      continue;
    }
    const name = tag[2]!.toLowerCase();
    if (tag[1] === '/') {
      let at = -1;
      for (let i = stack.length - 1; i >= 0; i--)
        if (stack[i]!.name === name) {
          at = i;
          break;
        }
      if (at < 0) {
        b.add(m.index, end, state, 0, '', Kind.Text); // a closer without opener: dropped
        continue;
      }
      const entry = stack[at]!;
      stack.length = at;
      b.add(m.index, end, state, NO_CUT_BEFORE | MARKUP, entry.dropped ? '' : null, Kind.Text);
      state = entry.below;
      continue;
    }
    const span = b.push(state, piece, `</${name}>`, true);
    stack.push({ name, span, dropped: span === null, below: state });
    b.add(m.index, end, state, NO_CUT_AFTER | MARKUP, span === null ? '' : null, Kind.Text);
    if (span) state = span;
  }
  b.graphemes(last, text.length, state);
  return b.finish(state);
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const GFM_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const PLAIN_RULE = /^(?:-{3,}|-+(?:-\+-+)+)$/;

interface Line {
  start: number;
  /** End of the line's content (before "\n" / "\r\n"). */
  end: number;
  /** Offset after the line break (= end when the text ends here). */
  next: number;
  text: string;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  for (let pos = 0; pos <= text.length; ) {
    const nl = text.indexOf('\n', pos);
    const stop = nl < 0 ? text.length : nl;
    const end = stop > pos && text.charCodeAt(stop - 1) === 13 ? stop - 1 : stop;
    out.push({ start: pos, end, next: nl < 0 ? stop : nl + 1, text: text.slice(pos, end) });
    if (nl < 0) break;
    pos = nl + 1;
  }
  return out;
}

/** Table header text to repeat, by line index of each body row after the first. */
function tableRows(lines: Line[], format: 'markdown' | 'plain', skip: (i: number) => boolean): Map<number, string> {
  const out = new Map<number, string>();
  for (let i = 0; i + 2 < lines.length; i++) {
    const head = lines[i]!;
    const rule = lines[i + 1]!;
    if (head.text.trim() === '' || skip(i) || skip(i + 1)) continue;
    const isTable =
      format === 'markdown'
        ? head.text.includes('|') && rule.text.includes('-') && GFM_DELIMITER.test(rule.text)
        : PLAIN_RULE.test(rule.text);
    if (!isTable) continue;
    const header = `${head.text}\n${rule.text}\n`;
    let j = i + 2;
    while (j < lines.length && !skip(j) && lines[j]!.text.trim() !== '' && (format === 'plain' || lines[j]!.text.includes('|'))) {
      if (j > i + 2) out.set(j, header);
      j++;
    }
    i = j - 1;
  }
  return out;
}

/** Line breaks of a line as one unit (its `\n` or `\r\n`). */
function lineBreak(b: Builder, line: Line, state: OpenSpan | null, glue = 0): void {
  if (line.next > line.end) b.add(line.end, line.next, state, glue, null, Kind.Newline);
}

/** Plain: graphemes; table headers repeated. */
function lexPlain(b: Builder): Lexed {
  const lines = linesOf(b.text);
  const rows = tableRows(lines, 'plain', () => false);
  if (rows.size === 0) {
    b.graphemes(0, b.text.length, null);
    return b.finish(null);
  }
  const spans = new Map<string, OpenSpan | null>();
  let state: OpenSpan | null = null;
  lines.forEach((line, i) => {
    const header = rows.get(i);
    state = header === undefined ? null : (spans.get(header) ?? b.push(null, header, '', true));
    if (header !== undefined) spans.set(header, state);
    b.graphemes(line.start, line.end, state);
    lineBreak(b, line, state);
  });
  return b.finish(null);
}

const EMPHASIS = ['**', '__', '~~', '||', '*', '_'];

/** Markdown: fences, table headers, inline spans. */
function lexMarkdown(b: Builder): Lexed {
  const text = b.text;
  const lines = linesOf(text);
  // Pass 1: fence lines.
  const role: Uint8Array = new Uint8Array(lines.length); // 0 text, 1 inside a fence, 2 fence opener, 3 fence closer
  const fenceOf: ({ marker: string; line: string } | null)[] = new Array(lines.length).fill(null);
  let open: { marker: string; line: string } | null = null;
  lines.forEach((line, i) => {
    const isLast = line.next === line.end; // a line without its break does not change the state
    if (open === null) {
      const m = FENCE_OPEN.exec(line.text);
      if (m && !isLast && !(m[1]!.startsWith('`') && m[2]!.includes('`'))) {
        open = { marker: m[1]!, line: line.text.trimEnd() };
        role[i] = 2;
        fenceOf[i] = open;
      }
    } else {
      fenceOf[i] = open;
      const trimmed = line.text.trim();
      const indent = line.text.length - line.text.trimStart().length;
      if (indent <= 3 && trimmed.length >= open.marker.length && trimmed === open.marker[0]!.repeat(trimmed.length)) {
        role[i] = 3;
        open = null;
      } else role[i] = 1;
    }
  });
  const rows = tableRows(lines, 'markdown', (i) => role[i] !== 0);
  const headerSpans = new Map<string, OpenSpan | null>();
  const fenceSpans = new Map<object, OpenSpan | null>();
  const fenceSpan = (f: { marker: string; line: string }): OpenSpan | null => {
    // The opening line with its info string, or the bare marker when that line is too wide.
    if (!fenceSpans.has(f))
      fenceSpans.set(f, b.push(null, `${f.line}\n`, f.marker, true, true) ?? b.push(null, `${f.marker}\n`, f.marker, true, true));
    return fenceSpans.get(f)!;
  };
  const inline = new InlineLexer(b);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const r = role[i]!;
    if (r === 1 || r === 3) {
      const base = fenceSpan(fenceOf[i]!);
      b.graphemes(line.start, line.end, base, r === 3 ? NO_CUT_BEFORE : 0);
      lineBreak(b, line, r === 3 ? null : base);
      inline.reset();
      continue;
    }
    if (r === 2) {
      b.graphemes(line.start, line.end, null, NO_CUT_AFTER);
      lineBreak(b, line, null, NO_CUT_AFTER);
      inline.reset();
      continue;
    }
    const header = rows.get(i);
    let base: OpenSpan | null = null;
    if (header !== undefined) {
      if (!headerSpans.has(header)) headerSpans.set(header, b.push(null, header, '', true));
      base = headerSpans.get(header)!;
    }
    if (line.text.trim() === '' || header !== undefined || line.text.includes('|')) inline.reset();
    inline.line(line, base, i + 1 < lines.length && role[i + 1] === 0 ? lines : null, i);
    lineBreak(b, line, inline.state(base));
    if (line.text.trim() === '' || header !== undefined || line.text.includes('|')) inline.reset();
  }
  return b.finish(null);
}

interface InlineOpen {
  marker: string;
  span: OpenSpan | null;
  /** For a link: the offset of its `](`, and the end of `](url)`. */
  linkAt?: number;
  linkEnd?: number;
  verbatim?: boolean;
  /** Index of the opener's unit. */
  unit?: number;
}

const blank = (c: string | undefined): boolean => c === undefined || /\s/u.test(c);
const punct = (c: string | undefined): boolean => c !== undefined && /[\p{P}\p{S}]/u.test(c);

/** Inline spans over the lines of one paragraph. */
class InlineLexer {
  private stack: InlineOpen[] = [];
  /** Open emphasis too deep to reopen (kept verbatim): no cut inside it. */
  private verbatim = 0;
  /** Last offset of each delimiter character in the current paragraph. */
  private lastOf = new Map<string, number>();
  private paraEnd = -1;
  private closeLink = -1; // next "](" at or after the scan position
  private gt = -1; // next ">" at or after the scan position
  constructor(private readonly b: Builder) {}

  reset(): void {
    this.stack = [];
    this.verbatim = 0;
    this.paraEnd = -1;
  }

  state(base: OpenSpan | null): OpenSpan | null {
    for (let i = this.stack.length - 1; i >= 0; i--) if (this.stack[i]!.span) return this.stack[i]!.span;
    return base;
  }

  private paragraph(from: number, lines: Line[] | null, index: number): void {
    if (this.paraEnd >= from) return;
    let end = lines ? lines[index]!.end : from;
    if (lines) {
      for (let i = index; (i < lines.length && lines[i]!.text.trim() !== '' && !lines[i]!.text.includes('|')) || i === index; i++) {
        end = lines[i]!.end;
        if (i + 1 < lines.length && FENCE_OPEN.test(lines[i + 1]!.text)) break;
      }
    }
    this.paraEnd = end;
    this.lastOf.clear();
    const t = this.b.text;
    for (let p = from; p < end; p++) {
      const c = t[p]!;
      if (c === '*' || c === '_' || c === '~' || c === '|' || c === '`') this.lastOf.set(c, p);
    }
  }

  line(line: Line, base: OpenSpan | null, lines: Line[] | null, index: number): void {
    const b = this.b;
    const t = b.text;
    this.paragraph(line.start, lines ?? [line], lines ? index : 0);
    let p = line.start;
    let textFrom = p;
    const flush = (to: number): void => {
      if (to > textFrom) b.graphemes(textFrom, to, this.state(base), this.verbatim > 0 ? NO_CUT_AFTER : 0);
    };
    while (p < line.end) {
      const c = t[p]!;
      // The end of the innermost open link: `](url)`.
      const link = this.stack.findLast((s) => s.linkAt !== undefined);
      if (link && p === link.linkAt) {
        flush(p);
        while (this.stack[this.stack.length - 1] !== link) this.stack.pop();
        // A closer carries the state it closes: a cut before it closes the span there.
        const inside = this.state(base);
        this.stack.pop();
        b.add(p, link.linkEnd!, inside, NO_CUT_BEFORE | MARKUP, link.span ? null : '', Kind.Text);
        p = textFrom = link.linkEnd!;
        continue;
      }
      if (c === '\\' && p + 1 < line.end && /[!-/:-@[-`{-~]/.test(t[p + 1]!)) {
        flush(p);
        b.add(p, p + 2, this.state(base), 0, null, Kind.Text);
        p = textFrom = p + 2;
        continue;
      }
      if (c === '&') {
        const m = /&(?:#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});/y;
        m.lastIndex = p;
        const hit = m.exec(t);
        if (hit) {
          flush(p);
          b.add(p, p + hit[0].length, this.state(base), 0, null, Kind.Text);
          p = textFrom = p + hit[0].length;
          continue;
        }
      }
      if (c === '<') {
        if (this.gt < p) this.gt = t.indexOf('>', p) < 0 ? Infinity : t.indexOf('>', p);
        const gt = this.gt;
        if (gt < line.end && gt - p <= 200 && !/[<\n]/.test(t.slice(p + 1, gt))) {
          flush(p);
          b.add(p, gt + 1, this.state(base), 0, null, Kind.Text);
          p = textFrom = gt + 1;
          continue;
        }
      }
      if (c === '`') {
        let n = 1;
        while (t[p + n] === '`') n++;
        const close = this.codeClose(p, n, line.end);
        if (close >= 0) {
          flush(p);
          const run = '`'.repeat(n);
          const span = b.push(this.state(base), run, run, false);
          b.add(p, p + n, this.state(base), span ? NO_CUT_AFTER | MARKUP : NO_CUT_AFTER, null, Kind.Text);
          // Cut with its backticks reopened; one too deep to reopen stays whole where it fits,
          // else its backticks are dropped.
          const outer = this.state(base);
          const fits = widthOf(t, p, close + n, b.unit) + (outer?.openW ?? 0) + (outer?.closeW ?? 0) <= b.max;
          if (!span && !fits) {
            b.l.out[b.l.out.length - 1] = '';
            b.l.width[b.l.width.length - 1] = 0;
            b.l.glue[b.l.glue.length - 1] = MARKUP | NO_CUT_AFTER;
          }
          b.graphemes(p + n, close, span ?? outer, span || !fits ? 0 : NO_CUT_AFTER);
          b.add(
            close,
            close + n,
            span ?? outer,
            span || !fits ? NO_CUT_BEFORE | MARKUP : NO_CUT_BEFORE,
            span || fits ? null : '',
            Kind.Text,
          );
          p = textFrom = close + n;
          continue;
        }
        p += n;
        continue;
      }
      if (c === '[') {
        const hit = this.linkAt(p, line.end);
        if (hit) {
          flush(p);
          // A link keeps half of the limit for its label, else its markup is dropped.
          const span = b.push(this.state(base), '[', t.slice(hit.at, hit.end), false, false, b.max / 2);
          b.add(p, p + 1, this.state(base), NO_CUT_AFTER | MARKUP, span ? null : '', Kind.Text);
          this.stack.push({ marker: '[', span, linkAt: hit.at, linkEnd: hit.end });
          p = textFrom = p + 1;
          continue;
        }
      }
      const marker = EMPHASIS.find((m) => t.startsWith(m, p));
      if (marker) {
        // CommonMark's flanking rules decide whether a delimiter run can open or close.
        const next = t[p + marker.length];
        const prev = p > 0 ? t[p - 1] : undefined;
        const leftF = !blank(next) && (!punct(next) || blank(prev) || punct(prev));
        const rightF = !blank(prev) && (!punct(prev) || blank(next) || punct(next));
        const word = marker[0] === '_';
        const canOpen = word ? leftF && (!rightF || punct(prev)) : leftF;
        const canClose = word ? rightF && (!leftF || punct(next)) : rightF;
        let at = -1;
        if (canClose) {
          for (let i = this.stack.length - 1; i >= 0 && this.stack[i]!.linkAt === undefined; i--) {
            if (this.stack[i]!.marker === marker) {
              at = i;
              break;
            }
          }
        }
        if (at >= 0) {
          flush(p);
          const entry = this.stack[at]!;
          for (const e of this.stack.splice(at + 1)) if (e.verbatim) this.verbatim--;
          const inside = this.state(base);
          this.stack.pop();
          if (entry.verbatim) this.verbatim--;
          // A verbatim span too long to stay in one chunk is dropped (its text kept).
          const outer = this.state(base);
          const drop =
            entry.verbatim === true &&
            entry.unit !== undefined &&
            b.spanWidth(entry.unit, p + marker.length) + (outer?.openW ?? 0) + (outer?.closeW ?? 0) > b.max;
          if (drop) {
            b.l.out[entry.unit!] = '';
            b.l.width[entry.unit!] = 0;
          }
          b.add(p, p + marker.length, inside, NO_CUT_BEFORE | (entry.span || drop ? MARKUP : 0), drop ? '' : null, Kind.Text);
          p = textFrom = p + marker.length;
          continue;
        }
        const later = (this.lastOf.get(marker[0]!) ?? -1) >= p + marker.length;
        if (later && canOpen) {
          flush(p);
          // Too deep to reopen: kept verbatim, and no cut until it closes.
          // The same marker inside itself cannot be reopened either (`~~` + `~~` is one run).
          const nested = this.stack.some((e) => e.marker === marker);
          const span = nested ? null : b.push(this.state(base), marker, marker, false);
          const unit = b.l.start.length;
          b.add(p, p + marker.length, this.state(base), NO_CUT_AFTER | (span ? MARKUP : 0), null, Kind.Text);
          this.stack.push({ marker, span, verbatim: span === null, unit });
          if (span === null) this.verbatim++;
          p = textFrom = p + marker.length;
          continue;
        }
        p += marker.length;
        continue;
      }
      p++;
    }
    flush(line.end);
  }

  /** The closing backtick run of exactly `n` for a run at `p`, within the paragraph, or -1. */
  private codeClose(p: number, n: number, lineEnd: number): number {
    const t = this.b.text;
    if ((this.lastOf.get('`') ?? -1) < p + n) return -1;
    const limit = Math.min(lineEnd, p + n + 4096);
    for (let q = p + n; q < limit; ) {
      if (t[q] !== '`') {
        q++;
        continue;
      }
      let m = 1;
      while (t[q + m] === '`') m++;
      if (m === n) return q;
      q += m;
    }
    return -1;
  }

  /** A link `[label](url)` starting at `p` on this line: where its `](` is and where it ends. */
  private linkAt(p: number, lineEnd: number): { at: number; end: number } | null {
    const t = this.b.text;
    if (this.closeLink < p + 1) {
      const i = t.indexOf('](', p + 1);
      this.closeLink = i < 0 ? Infinity : i;
    }
    const at = this.closeLink;
    if (at >= lineEnd) return null;
    for (let q = p + 1; q < at; q++) {
      const c = t[q];
      if (c === '\\') q++;
      else if (c === '[' || c === ']') return null;
    }
    let q = at + 2;
    const limit = Math.min(lineEnd, q + 4096);
    while (q < limit && t[q] !== ')' && !/\s/.test(t[q]!)) q++;
    if (q >= limit || t[q] !== ')') return null;
    return { at, end: q + 1 };
  }
}

/**
 * Lex `text` for a limit of `max` in `unit`.
 * @returns parallel arrays of units and the markup open at each boundary.
 */
export function lex(text: string, format: SplitFormat, unit: SplitUnit, max: number): Lexed {
  const b = new Builder(text, unit, max, graphemeBoundaries(text));
  return format === 'html' ? lexHtml(b) : format === 'markdown' ? lexMarkdown(b) : lexPlain(b);
}
