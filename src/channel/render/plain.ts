/**
 * Markdown → faithful plain text for text-only channels with no model to paraphrase
 * (docs/results.md, D-22, R-DISP-02): every word, number and list item kept verbatim, markup
 * characters removed. Links as `text (url)` (just the URL when the text is the URL), images as
 * `alt (url)`, lists as `• ` / `1. ` lines, tables as aligned rows, code kept as is, quotes
 * prefixed with `│ `, headings on their own line.
 */
import { markdownIt, parseMarkdown } from './ast.ts';
import { alignedTable, renderWith, textList, type MdVisitor } from './visitor.ts';

function shownUrl(href: string): string {
  const decoded = markdownIt().normalizeLinkText(href);
  return decoded.startsWith('mailto:') ? decoded.slice('mailto:'.length) : decoded;
}

const plain: MdVisitor = {
  text: (t) => t,
  code: (t) => t,
  softbreak: () => '\n',
  hardbreak: () => '\n',
  strong: (i) => i,
  em: (i) => i,
  del: (i) => i,
  link: (inner, n) => {
    const url = shownUrl(n.href);
    return inner === '' ? url : inner === url || inner === n.href ? inner : `${inner} (${url})`;
  },
  image: (n) => (n.alt ? `${n.alt} (${shownUrl(n.src)})` : shownUrl(n.src)),
  paragraph: (inner) => inner,
  heading: (inner) => inner,
  blockquote: (blocks) =>
    blocks
      .join('\n\n')
      .split('\n')
      .map((l) => `│ ${l}`.trimEnd())
      .join('\n'),
  list: (items, n) => textList(items, n),
  codeBlock: (n) => n.text.replace(/\n$/, ''),
  table: (header, rows, n) => alignedTable(header, rows, n.align),
  hr: () => '——————',
  document: (blocks) => blocks.filter((b) => b !== '').join('\n\n'),
};

/**
 * Markdown → plain text. Pure; never throws.
 * Source: docs/results.md ("with no model a faithful plain-text rendering is sent").
 */
export function renderPlain(md: string): string {
  return renderWith(plain, parseMarkdown(md));
}
