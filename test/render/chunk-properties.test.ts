/**
 * Property tests of the chunker on every dialect (docs/adapter-authoring.md "Chunking"): random
 * markdown with nested spans, long links, CJK, emoji, code and tables, rendered by each
 * adapter's renderer, split at limits from 16 to the platform's. Every chunk is within the
 * limit, non-empty, valid in its dialect (balanced tags / no literal markup), and the visible
 * text of the chunks put together equals the input's.
 */
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';

// A fixed seed, so a run is reproducible and CI does not depend on chance; change it (or set
// FC_SEED) to explore other inputs. docs/adapter-authoring.md lists what the generator leaves out.
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261202) });
/** Runs per dialect; FC_RUNS raises it for a local search. */
const RUNS = Number(process.env.FC_RUNS ?? 200);
import { measure, splitMessageDetailed, type Chunk, type SplitFormat, type SplitUnit } from '../../src/channel/chunk.ts';
import { graphemeBoundaries } from '../../src/channel/chunk-text.ts';
import { renderDingtalkMd } from '../../adapters/dingtalk/render.ts';
import { renderDiscordMarkdown } from '../../adapters/discord/render.ts';
import { renderFeishuCardMd } from '../../adapters/feishu/render.ts';
import { renderPlain } from '../../src/channel/render/index.ts';
import { renderTelegramHtml } from '../../adapters/telegram/render.ts';

/** Words; `punctuation` adds ones full of markup characters (escaped by every renderer). */
const words = (punctuation: boolean): fc.Arbitrary<string> =>
  fc.constantFrom(
    'alpha',
    'beta',
    'x',
    'pump',
    '压力',
    '泵房三号',
    '😀',
    '👍🏽',
    '👨‍👩‍👧',
    'é',
    'R&D',
    '<tag>',
    '#1',
    '-',
    ...(punctuation ? ['2*3', 'a_b', '|', '`', '~', '[x]'] : []),
  );
const url = fc.oneof(
  fc.constantFrom('https://example.com/a', 'https://e.example/x?a=1&b=2'),
  fc.integer({ min: 20, max: 400 }).map((n) => `https://example.com/${'p'.repeat(n)}`),
);

/** Inline markdown: words and spans nested up to `depth`, never a marker inside itself. */
function inlineOf(word: fc.Arbitrary<string>, depth: number, used: string[] = []): fc.Arbitrary<string> {
  const spans: fc.Arbitrary<string>[] = [
    word.map((s) => `\`${s.replace(/`/g, '') || 'c'}\``),
    fc.tuple(word, url).map(([l, u]) => `[${l.replace(/[[\]`]/g, '') || 'l'}](${u})`),
  ];
  if (depth > 0) {
    for (const m of ['**', '*', '~~'].filter((m) => !used.some((u) => u[0] === m[0]))) {
      spans.push(
        inlineOf(word, depth - 1, [...used, m]).map((s) => `${m}${m[0] === '*' ? 'b' : 's'} ${s} ${m[0] === '*' ? 'b' : 's'}${m}`),
      );
    }
  }
  // Spans stand between spaces, as in prose (CommonMark's flanking rules make `a**b**c` ambiguous).
  return fc
    .array(fc.oneof({ weight: 4, arbitrary: word }, { weight: 1, arbitrary: fc.oneof(...spans) }), { minLength: 1, maxLength: 10 })
    .map((a) => a.join(' '));
}

function markdownOf(punctuation: boolean): fc.Arbitrary<string> {
  const word = words(punctuation);
  const inline = inlineOf(word, 2);
  const block = fc.oneof(
    { weight: 5, arbitrary: fc.array(inline, { minLength: 1, maxLength: 4 }).map((l) => l.join('\n')) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('', 'python'), fc.array(word, { minLength: 1, maxLength: 8 }))
        .map(([lang, lines]) => `\`\`\`${lang}\n${lines.join('\n').replace(/`/g, "'")}\n\`\`\``),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(word, word), { minLength: 1, maxLength: 8 })
        .map(
          (rows) =>
            `| h1 | h2 |\n| --- | --- |\n${rows.map(([a, b]) => `| ${a.replace(/[|`]/g, '')} | ${b.replace(/[|`]/g, '')} |`).join('\n')}`,
        ),
    },
    { weight: 1, arbitrary: fc.array(inline, { minLength: 1, maxLength: 4 }).map((items) => items.map((i) => `- ${i}`).join('\n')) },
    { weight: 1, arbitrary: inline.map((s) => `## h ${s}`) },
  );
  return fc.array(block, { minLength: 1, maxLength: 6 }).map((b) => b.join('\n\n'));
}

const md = new MarkdownIt({ html: false, linkify: false });

/**
 * Visible text of markdown per markdown-it: text, code and fence content; whitespace, `|`, `-`
 * and `+` dropped (table rules and rows whose header cannot be repeated at a tiny limit show as
 * text; the list-marker escape at a mid-line cut has its own test in chunk.test.ts).
 */
function mdVisible(s: string): string {
  let out = '';
  const walk = (tokens: ReturnType<typeof md.parse>): void => {
    for (const t of tokens) {
      if (t.children) walk(t.children);
      else if (t.type === 'text' || t.type === 'code_inline' || t.type === 'fence' || t.type === 'code_block' || t.type === 'html_inline')
        out += t.content;
    }
  };
  walk(md.parse(s, {}));
  return out.replace(/[\s|+-]/g, '');
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|lt|gt|amp|quot|apos);/gi, (_m, e: string) =>
    e[0] === '#'
      ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
      : ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[e.toLowerCase()]!,
  );
}

const TELEGRAM_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'tg-spoiler',
  'span',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);

/** Telegram HTML validity: only whole tags and entities, balanced, no empty element. */
function htmlProblems(s: string): string | null {
  if (/<[^>]*$/.test(s) || /&[a-z#0-9]*$/i.test(s)) return 'cut inside a tag or entity';
  const stack: string[] = [];
  for (const m of s.matchAll(/<(\/?)([a-z-]+)[^>]*>|[<>]/gi)) {
    if (m[2] === undefined) return `bare ${m[0]}`;
    const name = m[2].toLowerCase();
    if (!TELEGRAM_TAGS.has(name)) return `tag ${name}`;
    if (m[1]) {
      if (stack.pop() !== name) return `unbalanced </${name}>`;
    } else stack.push(name);
  }
  if (stack.length) return `unclosed ${stack.join(',')}`;
  if (/<([a-z-]+)[^>]*><\/\1>/i.test(s)) return 'empty element';
  return null;
}
const htmlVisible = (s: string): string => decodeEntities(s.replace(/<[^>]*>/g, '')).replace(/\s+/g, '');

interface Dialect {
  name: string;
  render: (md: string) => string;
  format: SplitFormat;
  unit: SplitUnit;
  limit: number;
  visible: (s: string) => string;
  valid?: (s: string) => string | null;
  /** The dialect's renderer escapes every markup character of a word (not so for markdown dialects, see below). */
  punctuation: boolean;
}

const plainVisible = (s: string): string => s.replace(/\s+/g, '');

const DIALECTS: Dialect[] = [
  {
    name: 'Telegram HTML',
    render: renderTelegramHtml,
    format: 'html',
    unit: 'utf16',
    limit: 4096,
    visible: htmlVisible,
    valid: htmlProblems,
    punctuation: true,
  },
  {
    name: 'Discord markdown',
    render: renderDiscordMarkdown,
    format: 'markdown',
    unit: 'utf16',
    limit: 2000,
    visible: mdVisible,
    punctuation: false,
  },
  {
    name: 'Feishu card markdown',
    render: (s) => renderFeishuCardMd(s).markdown,
    format: 'markdown',
    unit: 'bytes',
    limit: 18_000,
    visible: mdVisible,
    punctuation: false,
  },
  {
    name: 'Feishu text/post (plain)',
    render: renderPlain,
    format: 'plain',
    unit: 'bytes',
    limit: 90_000,
    visible: plainVisible,
    punctuation: true,
  },
  {
    name: 'DingTalk markdown',
    render: renderDingtalkMd,
    format: 'markdown',
    unit: 'chars',
    limit: 4000,
    visible: mdVisible,
    punctuation: false,
  },
  {
    name: 'WeCom (plain, bytes)',
    render: renderPlain,
    format: 'plain',
    unit: 'bytes',
    limit: 2048,
    visible: plainVisible,
    punctuation: true,
  },
  { name: 'plain', render: renderPlain, format: 'plain', unit: 'utf16', limit: 4096, visible: plainVisible, punctuation: true },
];

/** A table header repeated at the start of a chunk is not new visible text. */
function repeatedHeader(c: Chunk): string {
  const m = /^([^\n]*\n([-|:+ ]+)\n)/.exec(c.prefix);
  return m && m[2]!.includes('-') ? m[1]! : '';
}

// Markdown dialects get words without markup characters: CommonMark resolves runs such as
// `2*3` next to `**` by its delimiter algorithm, which the chunker approximates by flanking.
const minLimit = (unit: SplitUnit): number => (unit === 'bytes' ? 24 : 16);

/** The properties for one rendered source split at `max`. */
function checkSplit(d: Dialect, source: string, max: number): void {
  const input = d.render(source);
  const chunks = splitMessageDetailed(input, max, d.unit, { format: d.format });
  let seen = '';
  for (const c of chunks) {
    expect(measure(c.text, d.unit), c.text).toBeLessThanOrEqual(max);
    expect(c.text).not.toBe('');
    if (d.valid) expect(d.valid(c.text), c.text).toBeNull();
    const header = repeatedHeader(c);
    const v = d.visible(c.text);
    const hv = header ? d.visible(header) : '';
    expect(v.startsWith(hv)).toBe(true);
    seen += v.slice(hv.length);
  }
  expect(seen, JSON.stringify({ max, chunks: chunks.map((c) => c.text) })).toBe(d.visible(input));
}

/**
 * Inputs the generator once found broken under other seeds: a cut right before a span's closer
 * (the Feishu heading wraps bold in bold) left the span open and its closer dropped.
 */
const FOUND = [
  '## h **b 泵房三号 👍🏽 x #1 b**\n\n*b alpha b*',
  '## h *b 压力 😀 alpha b*\n\n**b x b**',
  '## h ~~s 泵房三号 👍🏽 x s~~\n\n~~s beta s~~',
  'alpha **b 泵房三号 [x 👍🏽](https://example.com/a) b** beta',
  'x *b `pump 压力` 泵房三号 b* ~~s [l](https://e.example/x?a=1&b=2) s~~',
  'alpha **b *b ~~s 泵房三号 👍🏽 `x` s~~ b* b** beta',
  'alpha **b **b 泵房三号 x b** b** beta *b _b 压力 b_ b*',
];

describe('chunker properties on every dialect', () => {
  it('Feishu card markdown: a bold span cut before its closer is closed and reopened (limit 34)', () => {
    const feishu = DIALECTS.find((d) => d.name === 'Feishu card markdown')!;
    const texts = splitMessageDetailed(feishu.render(FOUND[0]!), 34, 'bytes', { format: 'markdown' }).map((c) => c.text);
    for (const t of texts) expect(feishu.visible(t), t).not.toContain('*');
    checkSplit(feishu, FOUND[0]!, 34);
  });

  for (const d of DIALECTS) {
    it(`${d.name}: the inputs once found broken, at every limit from ${minLimit(d.unit)} to 80`, () => {
      for (const source of FOUND) for (let max = minLimit(d.unit); max <= 80; max++) checkSplit(d, source, max);
    });
  }

  for (const d of DIALECTS) {
    it(`${d.name}: chunks within the limit, non-empty, valid, visible text kept`, () => {
      fc.assert(
        // From 16 up; in bytes from 24, the widest grapheme generated (👨‍👩‍👧, 18 bytes) must fit.
        fc.property(
          markdownOf(d.punctuation),
          fc.oneof(fc.integer({ min: minLimit(d.unit), max: 120 }), fc.integer({ min: minLimit(d.unit), max: d.limit })),
          (source, max) => checkSplit(d, source, max),
        ),
        { numRuns: RUNS },
      );
    });
  }

  it('grapheme boundaries match Intl.Segmenter on the whole text', () => {
    const seg = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    const piece = fc.constantFrom(
      'a',
      ' ',
      '\r\n',
      '\n',
      '中',
      'é',
      'e\u0301',
      '😀',
      '👍🏽',
      '👨‍👩‍👧',
      '🇨🇳🇺🇸',
      '\u200d',
      '각',
      '\u1100\u1161',
      'ก\u0e33',
      '\u0915\u094d\u0937',
      '\ufe0f',
      '\ud83d',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 3000 }), (parts) => {
        const text = parts.join('');
        const want = new Set<number>([0, text.length]);
        for (const g of seg.segment(text)) want.add(g.index);
        const got = graphemeBoundaries(text);
        const list: number[] = [];
        for (let p = 0; p <= text.length; p++) if (got[p]) list.push(p);
        expect(list).toEqual([...want].sort((a, b) => a - b));
      }),
      { numRuns: 60 },
    );
  });
});
