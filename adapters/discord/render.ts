/**
 * Markdown → Discord's markdown dialect
 * (https://discord.com/developers/docs/reference#message-formatting). Discord renders bold,
 * italics, strike, inline and fenced code, quotes, headings (`#`-`###`), lists and masked links,
 * but no tables and no images: tables become aligned text inside a code block, images `[alt](url)`
 * links. Text is escaped (`\` before markdown characters) and `@`/`<` mention syntax is
 * neutralised, so user or model text can neither change the formatting nor ping anyone (sends also
 * carry
 * `allowed_mentions: {parse: []}`).
 */
import {
  alignedTable,
  codeLang,
  delimited,
  fencedBlock,
  inlineText,
  markerList,
  type MdVisitor,
  parseMarkdown,
  quoteBlocks,
  renderWith,
  safeAbsoluteUrl,
  simpleCodeSpan,
} from '../../src/channel/index.ts';

/** Escape Discord markdown characters and mention openers in literal text. */
export function escapeDiscord(s: string): string {
  return s.replace(/([\\`*_~|[\]()>#:<-])/g, (m, c: string, at: number) => {
    // `-`, `#`, `>` and `:` only matter at a line start (lists, headings, quotes) or before a
    // custom emoji / timestamp; `<` would open a mention token.
    if (c === '-' || c === '#' || c === '>') return at === 0 || s[at - 1] === '\n' ? `\\${c}` : c;
    if (c === ':' || c === '(' || c === ')') return c;
    return `\\${m}`;
  });
}

function link(label: string, href: string | null): string {
  if (href === null) return label;
  const url = href.replace(/\(/g, '%28').replace(/\)/g, '%29');
  return label === '' || label === escapeDiscord(href) ? url : `[${label}](${url})`;
}

const discord: MdVisitor = {
  text: (t) => escapeDiscord(t),
  code: (t) => simpleCodeSpan(t),
  softbreak: () => '\n',
  hardbreak: () => '\n',
  strong: delimited('**'),
  em: delimited('*'),
  del: delimited('~~'),
  link: (inner, n) => link(inner, safeAbsoluteUrl(n.href)),
  image: (n) => link(escapeDiscord(n.alt || ''), safeAbsoluteUrl(n.src)) || escapeDiscord(n.src),
  paragraph: (inner) => inner,
  heading: (inner, level) => (inner === '' ? '' : `${'#'.repeat(Math.min(level, 3))} ${inner}`),
  blockquote: (blocks) => quoteBlocks(blocks),
  list: (items, node) => markerList(items, node, { indent: () => '   ' }),
  codeBlock: (n) => fencedBlock(n.text, codeLang(n.info)),
  table: (_h, _r, n) =>
    fencedBlock(
      alignedTable(
        n.header.map(inlineText),
        n.rows.map((r) => r.map(inlineText)),
        n.align,
      ),
    ),
  hr: () => '───',
  document: (blocks) => blocks.filter((b) => b !== '').join('\n\n'),
};

/**
 * Markdown → Discord message markdown. Pure; never throws.
 * Source: Discord "Message Formatting"; docs/results.md (rich channels render display_md natively).
 */
export function renderDiscordMarkdown(md: string): string {
  return renderWith(discord, parseMarkdown(md));
}
