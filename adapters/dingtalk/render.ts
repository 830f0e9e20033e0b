/**
 * Markdown → DingTalk's markdown subset (robot `markdown` / `sampleMarkdown` messages;
 * https://open.dingtalk.com/document/orgapp/types-of-messages-sent-by-robots). The documented
 * subset: headings `#`…`######`, quotes `>`, `**bold**`, `*italic*`, links `[t](url)`, images
 * `![](url)`, `- ` and `1. ` lists. Beyond it we emit only what degrades readably where a client
 * does not render it:
 * - tables as GFM pipe tables that always carry the separator row (`| --- |`, alignment kept)
 *   — without that row no client shows a table ;
 * - fenced code blocks as ``` fences (shown as literal lines where not rendered);
 * - strikethrough is dropped (not in the subset; the text is kept).
 * Line breaks are written as `"  \n"` (two trailing spaces), which DingTalk's renderer needs to
 * keep a single newline. Characters that would start markup in user text (`\ * _ [ ] ` and a
 * leading `#`, `>`, `-`, `+`, `1.`) are backslash-escaped; assumption: DingTalk honours
 * CommonMark backslash escapes (it renders through a CommonMark-style engine; not stated on the
 * official page).
 *
 * `title` is required by DingTalk and is what the notification and the conversation list show:
 * {@link dingtalkTitle} derives it from the message.
 */
import {
  codeLang,
  delimited,
  fencedBlock,
  markerList,
  type MdVisitor,
  parseMarkdown,
  quoteBlocks,
  renderPlain,
  renderWith,
  safeAbsoluteUrl,
  simpleCodeSpan,
} from '../../src/channel/index.ts';

/** Longest derived title, in code points (a notification preview line). */
export const DINGTALK_TITLE_MAX = 20;

/** Escape user text so DingTalk shows it literally. */
export function escapeDingtalkMd(s: string): string {
  return s
    .replace(/[\\*_[\]`|<]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([#>+-])(?=\s|$)/gm, (_m, sp: string, mark: string) => `${sp}\\${mark}`)
    .replace(/^(\s*\d+)\.(?=\s|$)/gm, (_m, num: string) => `${num}\\.`);
}

const BR = '  \n';

function escapeCell(s: string): string {
  return s.replace(/\n| {2}\n/g, ' ').trim();
}

function alignRule(a: string | null): string {
  return a === 'center' ? ':---:' : a === 'right' ? '---:' : a === 'left' ? ':---' : '---';
}

const dingtalk: MdVisitor = {
  text: (t) => escapeDingtalkMd(t).replace(/\n/g, BR),
  code: (t) => simpleCodeSpan(t),
  softbreak: () => BR,
  hardbreak: () => BR,
  strong: delimited('**'),
  em: delimited('*'),
  del: (i) => i,
  link: (inner, n) => {
    const href = safeAbsoluteUrl(n.href);
    if (href === null) return inner;
    return `[${inner === '' ? escapeDingtalkMd(href) : inner}](${href.replace(/\)/g, '%29')})`;
  },
  image: (n) => {
    const src = safeAbsoluteUrl(n.src);
    return src === null ? escapeDingtalkMd(n.alt) : `![${escapeDingtalkMd(n.alt)}](${src.replace(/\)/g, '%29')})`;
  },
  paragraph: (inner) => inner,
  heading: (inner, level) => `${'#'.repeat(Math.min(6, Math.max(1, level)))} ${inner}`,
  blockquote: (blocks) => quoteBlocks(blocks),
  list: (items, n) => markerList(items, n, { indent: (marker) => ' '.repeat(marker.length), tightJoin: BR }),
  codeBlock: (n) => fencedBlock(n.text, codeLang(n.info)),
  table: (header, rows, n) => {
    const cols = Math.max(header.length, ...rows.map((r) => r.length));
    const line = (cells: string[]): string => `| ${Array.from({ length: cols }, (_, c) => escapeCell(cells[c] ?? '')).join(' | ')} |`;
    const rule = `| ${Array.from({ length: cols }, (_, c) => alignRule(n.align[c] ?? null)).join(' | ')} |`;
    return [line(header), rule, ...rows.map(line)].join('\n');
  },
  hr: () => '---',
  document: (blocks) => blocks.filter((b) => b !== '').join('\n\n'),
};

/**
 * Markdown → DingTalk markdown text. Pure; never throws.
 * Source: docs/results.md (DingTalk is rich: markdown, D-22);.
 */
export function renderDingtalkMd(md: string): string {
  return renderWith(dingtalk, parseMarkdown(md));
}

/**
 * The required `title` of a markdown message: the first non-empty line of the message's plain
 * rendering, at most {@link DINGTALK_TITLE_MAX} code points (`…` when cut); `fallback` when the
 * message has no text.
 */
export function dingtalkTitle(md: string, fallback = '消息'): string {
  const first = renderPlain(md)
    .split('\n')
    .map((l) => l.replace(/^[│•\s]+/, '').trim())
    .find((l) => l !== '');
  if (!first) return fallback;
  const cps = [...first];
  return cps.length <= DINGTALK_TITLE_MAX ? first : `${cps.slice(0, DINGTALK_TITLE_MAX - 1).join('')}…`;
}
