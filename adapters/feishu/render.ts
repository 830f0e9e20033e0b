/**
 * Markdown → the Feishu / Lark card markdown dialect (the `markdown` component of card JSON 2.0;
 * open.feishu.cn "Rich text (Markdown)" component).
 * docs/results.md: Feishu is a rich display, `display_md` is rendered natively in a card.
 *
 * - emphasis `**b**` / `*i*` / `~~s~~`, inline code, fenced code (fence longer than any run of
 *   backticks inside), links `[text](url)` for http/https/mailto only, lists `- ` / `1. ` with
 *   4-space nesting, quotes `> `, `---` rules; headings become bold lines (large headings render
 *   badly in chat cards); images (a card needs an uploaded img_key) become links;
 * - text is escaped: `&`, `<`, `>` as entities (card markdown accepts some HTML tags such as
 *   `<at>`/`<font>`, so user text must not form one), markdown punctuation with a backslash;
 * - tables: a card accepts only a few (error 230099 / 11310 "card table number over limit";
 *   the docs say ≤ 4 per markdown component, ≤ 5 per card). The first `tableLimit` tables stay
 *   native, every further one degrades to an aligned monospace code block, nothing is lost.
 */
import {
  alignedTable,
  codeLang,
  delimited,
  fencedBlock,
  inlineText,
  longestBacktickRun,
  markerList,
  type MdBlock,
  type MdVisitor,
  parseMarkdown,
  quoteBlocks,
  renderWith,
  safeAbsoluteUrl,
} from '../../src/channel/index.ts';

/** Native tables kept per card by default (below the documented 4 per component; seen failing at 4+ in the wild). */
export const FEISHU_CARD_TABLE_LIMIT = 3;

/** Escape user text for card markdown. */
export function escapeFeishuMd(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_~[\]|])/g, '\\$1')
    .replace(/^(\s*)([#+-]|\d+[.)])(?=\s|$)/gm, '$1\\$2');
}

function inlineCode(text: string): string {
  const longest = longestBacktickRun(text);
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || text.startsWith(' ') || text.endsWith(' ') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The result of {@link renderFeishuCardMd}. */
export interface FeishuCardMd {
  /** Card markdown content. */
  markdown: string;
  /** Tables in the input. */
  tables: number;
  /** Tables rendered as code blocks because of the limit. */
  degraded: number;
}

function cardVisitor(tableLimit: number, count: { tables: number; degraded: number }): MdVisitor {
  return {
    text: (t) => escapeFeishuMd(t),
    code: (t) => inlineCode(t),
    softbreak: () => '\n',
    hardbreak: () => '\n',
    strong: delimited('**'),
    em: delimited('*'),
    del: delimited('~~'),
    link: (inner, n) => {
      const href = safeAbsoluteUrl(n.href);
      return href === null ? inner : `[${inner || escapeFeishuMd(href)}](${href.replace(/\(/g, '%28').replace(/\)/g, '%29')})`;
    },
    image: (n) => {
      const href = safeAbsoluteUrl(n.src);
      const label = escapeFeishuMd(n.alt || n.src);
      return href === null ? label : `[${label}](${href.replace(/\(/g, '%28').replace(/\)/g, '%29')})`;
    },
    paragraph: (inner) => inner,
    heading: (inner) => (inner === '' ? '' : `**${inner}**`),
    blockquote: (blocks) => quoteBlocks(blocks),
    list: (items, node) => markerList(items, node, { indent: () => '    ' }),
    codeBlock: (n) => fencedBlock(n.text, codeLang(n.info)),
    table: (header, rows, n) => {
      count.tables++;
      if (count.tables > tableLimit) {
        count.degraded++;
        return fencedBlock(
          alignedTable(
            n.header.map(inlineText),
            n.rows.map((r) => r.map(inlineText)),
            n.align,
          ),
        );
      }
      const cell = (s: string): string => s.replace(/\n/g, ' ');
      const cols = Math.max(header.length, ...rows.map((r) => r.length));
      const line = (cells: string[]): string => `| ${Array.from({ length: cols }, (_, c) => cell(cells[c] ?? '')).join(' | ')} |`;
      const rule = `|${Array.from({ length: cols }, (_, c) => {
        const a = n.align[c];
        return a === 'center' ? ' :-: ' : a === 'right' ? ' --: ' : a === 'left' ? ' :-- ' : ' --- ';
      }).join('|')}|`;
      return [line(header), rule, ...rows.map(line)].join('\n');
    },
    hr: () => '---',
    document: (blocks) => blocks.filter((b) => b !== '').join('\n\n'),
  };
}

/**
 * Markdown → card markdown, at most `tableLimit` native tables (the rest as code blocks).
 * Pure; never throws.
 */
export function renderFeishuCardMd(md: string, opts: { tableLimit?: number } = {}): FeishuCardMd {
  const count = { tables: 0, degraded: 0 };
  const markdown = renderWith(cardVisitor(opts.tableLimit ?? FEISHU_CARD_TABLE_LIMIT, count), parseMarkdown(md));
  return { markdown, ...count };
}

/** Number of tables in `md` (as markdown-it parses them, code blocks excluded). */
export function countTables(md: string): number {
  const walk = (blocks: MdBlock[]): number =>
    blocks.reduce(
      (n, b) =>
        n +
        (b.type === 'table'
          ? 1
          : b.type === 'blockquote'
            ? walk(b.children)
            : b.type === 'list'
              ? b.items.reduce((m, it) => m + walk(it), 0)
              : 0),
      0,
    );
  return walk(parseMarkdown(md));
}
