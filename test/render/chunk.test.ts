import { describe, expect, it } from 'vitest';
import { measure, splitMessage, splitMessageDetailed, type SplitUnit } from '../../src/channel/chunk.ts';

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'word ',
  'longerword ',
  '中文字符',
  '泵房3 压力 2.1 bar。',
  '😀',
  '👍🏽',
  '👨‍👩‍👧',
  'é',
  '\n',
  '\n\n',
  '(code)',
  'a',
  ' ',
  'ﬁ',
  '𠜎',
];

function randomText(r: () => number, n: number, fences: boolean): string {
  let s = '';
  let open = false;
  for (let i = 0; i < n; i++) {
    if (fences && r() < 0.05) {
      s += s.endsWith('\n') || s === '' ? '' : '\n';
      s += open ? '```\n' : r() < 0.5 ? '```python\n' : '```\n';
      open = !open;
      continue;
    }
    s += PIECES[Math.floor(r() * PIECES.length)];
  }
  return s;
}

const graphemes = (s: string): string[] => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);

/** Fence balance of one chunk: every opened fence is closed within it. */
function fencesBalanced(chunk: string): boolean {
  let open: string | null = null;
  for (const line of chunk.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    if (open === null) open = m[1]!;
    else if (m[2]!.trim() === '' && m[1]![0] === open[0] && m[1]!.length >= open.length) open = null;
  }
  return open === null;
}

/** How many fences the input leaves open at its end (the last chunk may inherit that). */
function inputEndsOpen(text: string): boolean {
  return !fencesBalanced(text);
}

describe('splitMessage (outbound-expectations.md generic rules)', () => {
  const units: SplitUnit[] = ['utf16', 'bytes', 'chars'];
  for (const unit of units) {
    it(`property: random emoji/CJK/fenced text, unit ${unit}: every chunk ≤ max, bodies rejoin to the input, no grapheme split, fences balanced`, () => {
      const r = rng(unit.length * 7919);
      for (let round = 0; round < 150; round++) {
        const text = randomText(r, 20 + Math.floor(r() * 300), true);
        const max = 30 + Math.floor(r() * 200);
        const chunks = splitMessageDetailed(text, max, unit, { format: 'markdown' });
        // 1. limit
        for (const c of chunks) expect(measure(c.text, unit), JSON.stringify({ text, max, c })).toBeLessThanOrEqual(max);
        // 2. content: bodies concatenate to the input; inserted text is only fence lines
        expect(chunks.map((c) => c.body).join('')).toBe(text);
        for (const c of chunks) {
          expect(c.text).toBe(c.prefix + c.body + c.suffix);
          if (c.prefix) expect(c.prefix).toMatch(/^```[^\n]*\n$/);
          if (c.suffix) expect(c.suffix).toMatch(/^\n?```$/);
        }
        // 3. graphemes: every cut falls on a grapheme boundary of the input
        const bounds = new Set<number>([0]);
        let pos = 0;
        for (const g of graphemes(text)) bounds.add((pos += g.length));
        let at = 0;
        for (const c of chunks) expect(bounds.has((at += c.body.length))).toBe(true);
        // 4. fences: each chunk balanced (the last one as balanced as the input)
        chunks.forEach((c, i) => {
          if (i < chunks.length - 1 || !inputEndsOpen(text)) expect(fencesBalanced(c.text), JSON.stringify(c)).toBe(true);
        });
      }
    });
  }

  it('property: plain text never splits a surrogate pair and keeps every character', () => {
    const r = rng(42);
    for (let round = 0; round < 200; round++) {
      const text = randomText(r, 10 + Math.floor(r() * 200), false);
      const max = 8 + Math.floor(r() * 60);
      const chunks = splitMessageDetailed(text, max, 'utf16').map((c) => c.text);
      expect(chunks.join('')).toBe(text);
      // What is sent leaves out only chunks of whitespace.
      expect(splitMessage(text, max, 'utf16')).toEqual(chunks.filter((c) => c.trim() !== ''));
      for (const c of chunks) {
        expect(c.length).toBeLessThanOrEqual(max);
        expect(/^[\uDC00-\uDFFF]/.test(c) || /[\uD800-\uDBFF]$/.test(c)).toBe(false);
      }
    }
  });

  it('fits → one chunk; empty → none', () => {
    expect(splitMessage('hello', 5, 'chars')).toEqual(['hello']);
    expect(splitMessage('', 5, 'chars')).toEqual([]);
    expect(() => splitMessage('x', 0, 'chars')).toThrow(RangeError);
  });

  it('prefers a paragraph break, then a line break, then a space', () => {
    const para = 'aaaa bbbb cccc\ndddd\n\neeee ffff gggg';
    expect(splitMessage(para, 24, 'chars')).toEqual(['aaaa bbbb cccc\ndddd\n\n', 'eeee ffff gggg']);
    expect(splitMessage('aaaa bbbb\ncccc dddd eeee', 14, 'chars')).toEqual(['aaaa bbbb\n', 'cccc dddd eeee']);
    expect(splitMessage('aaaa bbbb cccc dddd', 12, 'chars')).toEqual(['aaaa bbbb ', 'cccc dddd']);
  });

  it('counts units: WeCom 2048 bytes holds 682 CJK characters; Telegram counts UTF-16', () => {
    const cjk = '中'.repeat(2000);
    const chunks = splitMessage(cjk, 2048, 'bytes');
    expect(chunks.map((c) => c.length)).toEqual([682, 682, 636]);
    const emoji = '😀'.repeat(3000); // 6000 UTF-16 units
    const tg = splitMessage(emoji, 4096, 'utf16');
    expect(tg.map((c) => c.length)).toEqual([4096, 1904]);
    expect(splitMessage(emoji, 4096, 'chars')).toHaveLength(1);
  });

  it('markdown: a fence open at the cut is closed and reopened with its info string', () => {
    const text = 'intro\n\n```python\n' + 'print(1)\n'.repeat(12) + '```\nafter';
    const chunks = splitMessage(text, 60, 'utf16', { format: 'markdown' });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks[1]!.startsWith('```python\n')).toBe(true);
    expect(chunks[1]!.endsWith('\n```')).toBe(true);
    expect(chunks[2]!.startsWith('```python\nprint(1)')).toBe(true);
    for (const c of chunks) expect(fencesBalanced(c)).toBe(true);
  });

  it('html: never inside a tag or entity; open tags closed and reopened', () => {
    const html = '<b>bold text here and <i>ital &amp; more words</i></b> tail <a href="https://e.example/x?a=1&amp;b=2">link text</a>';
    for (let max = 56; max <= 90; max += 3) {
      const chunks = splitMessageDetailed(html, max, 'utf16', { format: 'html' });
      expect(chunks.map((c) => c.body).join('')).toBe(html);
      for (const c of chunks) {
        expect(c.text.length).toBeLessThanOrEqual(max);
        // no partial tag or entity at either edge of the body
        expect(c.body).not.toMatch(/<[^>]*$|^[^<]*>|&[a-z#0-9]*$/);
        // balanced: every opened tag closed within the chunk
        const stack: string[] = [];
        for (const m of c.text.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
          if (m[1]) expect(stack.pop()).toBe(m[2]);
          else stack.push(m[2]!);
        }
        expect(stack).toEqual([]);
      }
    }
  });
});

describe('chunker kinds (docs/adapter-authoring.md "Chunking")', () => {
  it('a link whose <a href> alone exceeds the limit is never cut inside its tag: the tag is dropped, the text kept', () => {
    const href = `https://example.com/${'p'.repeat(5000)}`;
    const html = `see <a href="${href}">the report</a> now`;
    const chunks = splitMessage(html, 4096, 'utf16', { format: 'html' });
    expect(chunks).toEqual(['see the report now']);
  });

  it('html at small limits: no empty tag pairs, no lone tags', () => {
    const html = '<b>bold <i>ital</i> text</b> and <code>x = 1</code>';
    for (let max = 16; max <= 40; max++) {
      for (const c of splitMessage(html, max, 'utf16', { format: 'html' })) {
        expect(c).not.toMatch(/<([a-z]+)[^>]*><\/\1>/);
        expect(c.match(/<[a-z]+/g)?.length ?? 0).toBe(c.match(/<\/[a-z]+/g)?.length ?? 0);
      }
    }
  });

  it('markdown: bold, inline code and links crossing a cut are closed and reopened', () => {
    const md = `**${'word '.repeat(30)}end** and \`${'c'.repeat(60)}\` then [${'label '.repeat(12)}](https://e.example/a)`;
    const chunks = splitMessage(md, 64, 'utf16', { format: 'markdown' });
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.length).toBeLessThanOrEqual(64);
      expect((c.match(/\*\*/g) ?? []).length % 2).toBe(0);
      expect((c.match(/`/g) ?? []).length % 2).toBe(0);
      expect(c.includes('[')).toBe(c.includes('](https://e.example/a)'));
    }
  });

  it('markdown: a chunk starting mid-line gets its would-be list marker escaped', () => {
    const md = `${'a'.repeat(20)} - b`;
    const chunks = splitMessage(md, 22, 'utf16', { format: 'markdown' });
    expect(chunks).toEqual([`${'a'.repeat(20)} `, '\\- b']);
  });
});
