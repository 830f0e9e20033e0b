/**
 * Splitting long replies to a platform's per-message limit (shared/fixtures/
 * outbound-expectations.md "Generic rules"; CONTRACTS.md §9). Runs after rendering, in the
 * platform's unit.
 *
 * Rules, in order of strength:
 * 1. every chunk measures ≤ `max` in `unit` (`utf16` = UTF-16 code units, Telegram/Discord;
 *    `bytes` = UTF-8 bytes, WeCom/Feishu; `chars` = Unicode code points);
 * 2. never inside a grapheme cluster (Intl.Segmenter), hence never inside a surrogate pair —
 *    except a single grapheme longer than `max` (pathological), which is cut by code points;
 * 3. `html`: never inside a tag or an entity; tags open at the cut are closed at the end of
 *    the chunk and reopened (verbatim) at the start of the next;
 * 4. `markdown`: a ``` / ~~~ fence open at the cut is closed at the end of the chunk and
 *    reopened with the same opening line (info string kept) at the next;
 * 4b. a table split between two chunks gets its header repeated at the start of the next: a GFM
 *    table in `markdown` (header row + delimiter row, outside fences) and, in `plain`, the
 *    aligned layout of src/channel/render (`a | b` over a `---+---` rule);
 * 5. prefer a paragraph break (blank line), then a line break, then a space, then any
 *    grapheme boundary; a paragraph/line break is taken only when it keeps at least a quarter
 *    of the room, so chunks do not become tiny.
 *
 * The separator at a cut stays at the end of the earlier chunk, so the chunk bodies
 * concatenate to the input exactly (see {@link splitMessageDetailed}).
 */

/** Length unit of a platform limit. */
export type SplitUnit = 'utf16' | 'bytes' | 'chars';

/** What the text is (decides what must stay balanced). Default `plain`. */
export type SplitFormat = 'markdown' | 'plain' | 'html';

/** One chunk: `text = prefix + body + suffix`; `prefix`/`suffix` are inserted fence lines or tags. */
export interface Chunk {
  text: string;
  /** Reopened fence line + "\n", or reopened tags ("" when none). */
  prefix: string;
  /** The input slice this chunk carries. */
  body: string;
  /** "\n" + closing fence, or closing tags ("" when none). */
  suffix: string;
}

/** Measure `s` in `unit`. */
export function measure(s: string, unit: SplitUnit): number {
  if (unit === 'utf16') return s.length;
  if (unit === 'bytes') return Buffer.byteLength(s, 'utf8');
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** An atomic piece of the input: a grapheme, or (html) a whole tag or entity. */
interface Unit {
  start: number;
  end: number;
}

/** The balancing state at a boundary: what must be reopened after a cut there. */
interface State {
  /** Text to insert at the start of the next chunk. */
  reopen: string;
  /** Text to append at the end of a chunk cut here (may depend on the body's last char). */
  close(bodyEndsWithNewline: boolean): string;
}

const NONE: State = { reopen: '', close: () => '' };

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function graphemeUnits(text: string, from: number, to: number, out: Unit[]): void {
  for (const seg of graphemes.segment(text.slice(from, to))) {
    out.push({ start: from + seg.index, end: from + seg.index + seg.segment.length });
  }
}

/** HTML: tags `<…>` and entities `&…;` are atomic. */
function htmlUnits(text: string): { units: Unit[]; states: State[] } {
  const units: Unit[] = [];
  const re = /<[^<>]*>|&(?:#[0-9]+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    graphemeUnits(text, last, m.index, units);
    units.push({ start: m.index, end: m.index + m[0].length });
    last = m.index + m[0].length;
  }
  graphemeUnits(text, last, text.length, units);
  // states[k] = state after units[k-1] (states[0] = start).
  const states: State[] = [NONE];
  let stack: { name: string; open: string }[] = [];
  for (const u of units) {
    const piece = text.slice(u.start, u.end);
    const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(\/?)>$/.exec(piece);
    if (tag && !VOID_TAGS.has(tag[2]!.toLowerCase()) && tag[3] !== '/') {
      const name = tag[2]!.toLowerCase();
      if (tag[1] === '/') {
        const at = stack.map((s) => s.name).lastIndexOf(name);
        if (at >= 0) stack = stack.slice(0, at);
      } else stack = [...stack, { name, open: piece }];
      const frozen = stack;
      states.push(
        frozen.length === 0
          ? NONE
          : {
              reopen: frozen.map((s) => s.open).join(''),
              close: () => frozen.map((s) => `</${s.name}>`).reverse().join(''),
            },
      );
    } else states.push(states[states.length - 1]!);
  }
  return { units, states };
}

const VOID_TAGS = new Set(['br', 'hr', 'img', 'input', 'meta', 'link', 'wbr']);

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Markdown: graphemes; the state is the fence open at the start of each line. */
function markdownUnits(text: string): { units: Unit[]; states: State[] } {
  const units: Unit[] = [];
  graphemeUnits(text, 0, text.length, units);
  // Fence state per line start offset.
  const fenceAt = new Map<number, { marker: string; line: string } | null>();
  let open: { marker: string; line: string } | null = null;
  let pos = 0;
  while (pos <= text.length) {
    fenceAt.set(pos, open);
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl < 0 ? text.length : nl;
    const line = text.slice(pos, lineEnd).replace(/\r$/, '');
    if (nl >= 0) {
      // Only complete lines change the state (a cut mid-line keeps the state of the line start).
      if (open === null) {
        const m = FENCE_OPEN.exec(line);
        if (m && !(m[1]!.startsWith('`') && m[2]!.includes('`'))) open = { marker: m[1]!, line: line.trimEnd() };
      } else {
        const trimmed = line.trim();
        const ch = open.marker[0]!;
        if (/^ {0,3}$/.test(line.slice(0, line.length - line.trimStart().length)) && trimmed.length >= open.marker.length && trimmed === ch.repeat(trimmed.length)) open = null;
      }
    }
    if (nl < 0) break;
    pos = nl + 1;
  }
  const stateFor = (f: { marker: string; line: string } | null): State =>
    f === null ? NONE : { reopen: `${f.line}\n`, close: (nl) => (nl ? f.marker : `\n${f.marker}`) };
  const headers = tableHeaders(text, 'markdown', (start) => (fenceAt.get(start) ?? null) !== null);
  return { units, states: lineStates(text, units, (start) => stateFor(fenceAt.get(start) ?? null), headers) };
}

const GFM_DELIMITER = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const PLAIN_RULE = /^-+(?:-\+-+)*$/;

/**
 * The table header to repeat after a cut at each line start (by offset): from the first body row
 * of a table to the line after its last row. `inFence(offset)` excludes fenced code.
 */
function tableHeaders(text: string, format: 'markdown' | 'plain', inFence: (lineStart: number) => boolean): Map<number, string> {
  const lines: { start: number; text: string }[] = [];
  for (let pos = 0; pos <= text.length; ) {
    const nl = text.indexOf('\n', pos);
    lines.push({ start: pos, text: text.slice(pos, nl < 0 ? text.length : nl).replace(/\r$/, '') });
    if (nl < 0) break;
    pos = nl + 1;
  }
  const out = new Map<number, string>();
  for (let i = 0; i + 2 < lines.length; i++) {
    const head = lines[i]!;
    const rule = lines[i + 1]!;
    if (head.text.trim() === '' || inFence(head.start)) continue;
    const isTable = format === 'markdown' ? head.text.includes('|') && rule.text.includes('-') && GFM_DELIMITER.test(rule.text) : PLAIN_RULE.test(rule.text);
    if (!isTable) continue;
    const header = `${head.text}\n${rule.text}\n`;
    let j = i + 2;
    while (j < lines.length && lines[j]!.text.trim() !== '' && (format === 'plain' || lines[j]!.text.includes('|'))) {
      if (j > i + 2) out.set(lines[j]!.start, header);
      j++;
    }
    i = j - 1;
  }
  return out;
}

/** States from line-start table headers (a cut mid-line keeps the state of its line start). */
function lineStates(text: string, units: Unit[], base: (lineStart: number) => State, headers: Map<number, string>): State[] {
  const stateAt = (lineStart: number): State => {
    const b = base(lineStart);
    if (b !== NONE) return b;
    const h = headers.get(lineStart);
    return h === undefined ? NONE : { reopen: h, close: () => '' };
  };
  let current = stateAt(0);
  const states: State[] = [current];
  for (const u of units) {
    if (text.slice(u.start, u.end).includes('\n')) current = stateAt(u.end);
    states.push(current);
  }
  return states;
}

function plainUnits(text: string): { units: Unit[]; states: State[] } {
  const units: Unit[] = [];
  graphemeUnits(text, 0, text.length, units);
  const headers = tableHeaders(text, 'plain', () => false);
  if (headers.size === 0) return { units, states: units.map(() => NONE).concat(NONE) };
  return { units, states: lineStates(text, units, () => NONE, headers) };
}

/**
 * Split `text` into chunks each measuring ≤ `max` in `unit`, with what was inserted to keep
 * fences/tags balanced. `''` → `[]`. Bodies concatenate to `text` exactly.
 * @throws RangeError when `max` < 1.
 */
export function splitMessageDetailed(text: string, max: number, unit: SplitUnit, opts: { format?: SplitFormat } = {}): Chunk[] {
  if (!(max >= 1)) throw new RangeError('max must be ≥ 1');
  if (text === '') return [];
  if (measure(text, unit) <= max) return [{ text, prefix: '', body: text, suffix: '' }];
  const format = opts.format ?? 'plain';
  const { units, states } = format === 'html' ? htmlUnits(text) : format === 'markdown' ? markdownUnits(text) : plainUnits(text);
  const chunks: Chunk[] = [];
  let k = 0; // index of the first unit of the next chunk
  while (k < units.length) {
    let prefix = states[k]!.reopen;
    let prefixLen = measure(prefix, unit);
    if (prefixLen >= max) {
      prefix = '';
      prefixLen = 0;
    }
    const start = units[k]!.start;
    let bodyLen = 0;
    let best = -1; // unit index (exclusive end) of the last fitting boundary
    let para = -1;
    let line = -1;
    let word = -1;
    for (let j = k; j < units.length; j++) {
      const u = units[j]!;
      bodyLen += measure(text.slice(u.start, u.end), unit);
      if (prefixLen + bodyLen > max) break;
      const end = j + 1;
      const endsNl = text[u.end - 1] === '\n';
      const suffix = end < units.length ? states[end]!.close(endsNl) : '';
      if (prefixLen + bodyLen + measure(suffix, unit) > max) continue;
      best = end;
      const piece = text.slice(u.start, u.end);
      if (piece === '\n' || piece === '\r\n') {
        line = end;
        if (u.start > start && text[u.start - 1] === '\n') para = end;
      } else if (/^\s+$/u.test(piece)) word = end;
    }
    const room = max - prefixLen;
    const atLeast = (e: number): boolean => e > k && measure(text.slice(start, units[e - 1]!.end), unit) >= room / 4;
    let end = best === units.length ? best : para > 0 && atLeast(para) ? para : line > 0 && atLeast(line) ? line : word > 0 ? word : best;
    if (end <= k) {
      // Nothing fits with the balancing text: emit without it, cutting one oversized unit if needed.
      const u = units[k]!;
      const piece = text.slice(u.start, u.end);
      if (measure(piece, unit) <= max) {
        chunks.push({ text: piece, prefix: '', body: piece, suffix: '' });
      } else {
        let part = '';
        for (const cp of piece) {
          if (part !== '' && measure(part + cp, unit) > max) {
            chunks.push({ text: part, prefix: '', body: part, suffix: '' });
            part = '';
          }
          part += cp;
        }
        if (part !== '') chunks.push({ text: part, prefix: '', body: part, suffix: '' });
      }
      k++;
      continue;
    }
    const body = text.slice(start, units[end - 1]!.end);
    const suffix = end < units.length ? states[end]!.close(body.endsWith('\n')) : '';
    chunks.push({ text: prefix + body + suffix, prefix, body, suffix });
    k = end;
  }
  return chunks;
}

/**
 * Split `text` for a platform limit (see the module doc for the rules).
 * @param max the limit in `unit` (Telegram 4096 utf16, Discord 2000, WeCom 2048 bytes).
 * @returns the chunks in order; `[]` for `''`; `[text]` when it fits.
 * @throws RangeError when `max` < 1.
 */
export function splitMessage(text: string, max: number, unit: SplitUnit, opts?: { format?: SplitFormat }): string[] {
  return splitMessageDetailed(text, max, unit, opts).map((c) => c.text);
}
