/**
 * Markdown building blocks shared by the dialects that emit markdown again (Discord, Feishu card
 * markdown, DingTalk; src/channel/render/*.ts): code fences, quotes, marker lists. One place so
 * the dialects cannot drift apart on the parts where their syntax is the same ("what
 * two adapters share lives once in `src/`").
 */
import type { MdBlock } from './ast.ts';

/** Length of the longest run of backticks in `text` (0 when none). */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}

/** A code fence (at least three backticks) longer than any backtick run inside `text` (CommonMark §4.5). */
export function fenceFor(text: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
}

/** `text` as a fenced code block with info string `info`; one trailing newline of `text` is dropped. */
export function fencedBlock(text: string, info = ''): string {
  const body = text.replace(/\n$/, '');
  const fence = fenceFor(body);
  return `${fence}${info}\n${body}\n${fence}`;
}

/** The language word of a code block's info string (`ts {.x}` → `ts`; `''` when none). */
export function codeLang(info: string): string {
  return /^[A-Za-z0-9_+-]+/.exec(info)?.[0] ?? '';
}

/**
 * An inline code span for dialects with simple code spans (Discord, DingTalk): single backticks,
 * or double backticks padded with spaces when `text` holds a backtick.
 */
export function simpleCodeSpan(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

/** Rendered blocks as a `> ` quote (blank quote lines without trailing space). */
export function quoteBlocks(blocks: string[]): string {
  return blocks
    .join('\n\n')
    .split('\n')
    .map((l) => `> ${l}`.trimEnd())
    .join('\n');
}

/**
 * A markdown list: `- ` or `N. ` markers, an item's blocks joined by `tightJoin` (tight list) or a
 * blank line, its continuation lines indented by `indent(marker)` (blank lines stay empty).
 */
export function markerList(
  items: string[][],
  node: Extract<MdBlock, { type: 'list' }>,
  opts: { indent: (marker: string) => string; tightJoin?: string },
): string {
  const lines: string[] = [];
  items.forEach((blocks, i) => {
    const marker = node.ordered ? `${node.start + i}. ` : '- ';
    const indent = opts.indent(marker);
    blocks
      .join(node.tight ? (opts.tightJoin ?? '\n') : '\n\n')
      .split('\n')
      .forEach((l, j) => {
        lines.push(j === 0 ? marker + l : l === '' ? '' : indent + l);
      });
  });
  return lines.join('\n');
}

/** A visitor entry wrapping non-empty inline content in `mark` (`**`, `*`, `~~`); empty stays empty. */
export function delimited(mark: string): (inner: string) => string {
  return (inner) => (inner === '' ? '' : `${mark}${inner}${mark}`);
}
