/**
 * The one token walk every dialect shares. A dialect is an {@link MdVisitor}: one method per
 * node type, called bottom-up with its children already rendered (and the node itself when a
 * dialect needs the raw content, e.g. a table aligned as plain text). Adding a dialect (Feishu
 * post, Discord, DingTalk) is one file implementing this interface.
 */
import type { MdAlign, MdBlock, MdInline } from './ast.ts';

/** Where a block sits, for dialects that lay out tight list items differently. */
export interface BlockContext {
  /** Inside an item of a tight list (paragraphs are not separated by blank lines). */
  tight: boolean;
}

/** A dialect. Every method returns the rendered text of its node. */
export interface MdVisitor {
  text(text: string): string;
  code(text: string): string;
  softbreak(): string;
  hardbreak(): string;
  strong(inner: string): string;
  em(inner: string): string;
  del(inner: string): string;
  link(inner: string, node: Extract<MdInline, { type: 'link' }>): string;
  image(node: Extract<MdInline, { type: 'image' }>): string;
  paragraph(inner: string, ctx: BlockContext): string;
  heading(inner: string, level: number): string;
  /** `blocks` = the quoted blocks, rendered. */
  blockquote(blocks: string[]): string;
  /** `items[i]` = the rendered blocks of item i. */
  list(items: string[][], node: Extract<MdBlock, { type: 'list' }>): string;
  codeBlock(node: Extract<MdBlock, { type: 'code_block' }>): string;
  /** `header[c]`, `rows[r][c]` = rendered cells. */
  table(header: string[], rows: string[][], node: Extract<MdBlock, { type: 'table' }>): string;
  hr(): string;
  /** Joins the top-level blocks. */
  document(blocks: string[]): string;
}

/** Render `blocks` with the dialect `v`. Pure. */
export function renderWith(v: MdVisitor, blocks: MdBlock[]): string {
  return v.document(blocks.map((b) => renderBlock(v, b, { tight: false })));
}

function renderBlock(v: MdVisitor, b: MdBlock, ctx: BlockContext): string {
  switch (b.type) {
    case 'paragraph':
      return v.paragraph(renderInline(v, b.children), ctx);
    case 'heading':
      return v.heading(renderInline(v, b.children), b.level);
    case 'blockquote':
      return v.blockquote(b.children.map((c) => renderBlock(v, c, { tight: false })));
    case 'list':
      return v.list(
        b.items.map((item) => item.map((c) => renderBlock(v, c, { tight: b.tight }))),
        b,
      );
    case 'code_block':
      return v.codeBlock(b);
    case 'table':
      return v.table(
        b.header.map((c) => renderInline(v, c)),
        b.rows.map((r) => r.map((c) => renderInline(v, c))),
        b,
      );
    case 'hr':
      return v.hr();
  }
}

/** Render inline nodes with `v`. */
export function renderInline(v: MdVisitor, nodes: MdInline[]): string {
  let out = '';
  for (const n of nodes) {
    switch (n.type) {
      case 'text':
        out += v.text(n.text);
        break;
      case 'code':
        out += v.code(n.text);
        break;
      case 'softbreak':
        out += v.softbreak();
        break;
      case 'hardbreak':
        out += v.hardbreak();
        break;
      case 'strong':
        out += v.strong(renderInline(v, n.children));
        break;
      case 'em':
        out += v.em(renderInline(v, n.children));
        break;
      case 'del':
        out += v.del(renderInline(v, n.children));
        break;
      case 'link':
        out += v.link(renderInline(v, n.children), n);
        break;
      case 'image':
        out += v.image(n);
        break;
    }
  }
  return out;
}

/** The plain text of inline nodes (link text, image alt, code content; breaks → space). */
export function inlineText(nodes: MdInline[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'text' || n.type === 'code') out += n.text;
    else if (n.type === 'softbreak' || n.type === 'hardbreak') out += ' ';
    else if (n.type === 'image') out += n.alt;
    else out += inlineText(n.children);
  }
  return out;
}

/**
 * Display width of `s` in a monospace font, in columns: East Asian wide/fullwidth characters
 * and emoji count 2, combining marks 0, everything else 1 (approximation of UAX #11).
 */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (/\p{Mn}|\p{Me}|\u200d|[\ufe00-\ufe0f]/u.test(ch)) continue;
    if (
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x1f300 && cp <= 0x1faff) ||
      (cp >= 0x20000 && cp <= 0x3fffd)
    ) {
      w += 2;
    } else w += 1;
  }
  return w;
}

/** `s` padded with spaces to `width` columns, honouring the column alignment. */
export function padCell(s: string, width: number, align: MdAlign): string {
  const gap = Math.max(0, width - displayWidth(s));
  if (align === 'right') return ' '.repeat(gap) + s;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(gap - Math.floor(gap / 2));
  return s + ' '.repeat(gap);
}

/**
 * A table as aligned monospace rows (header, a `-` rule, the rows; columns separated by
 * `" | "`), from plain-text cells. Trailing spaces trimmed.
 */
export function alignedTable(header: string[], rows: string[][], align: MdAlign[]): string {
  const cols = Math.max(header.length, ...rows.map((r) => r.length));
  const widths: number[] = [];
  for (let c = 0; c < cols; c++) {
    widths.push(Math.max(1, displayWidth(header[c] ?? ''), ...rows.map((r) => displayWidth(r[c] ?? ''))));
  }
  const line = (cells: string[]): string =>
    widths
      .map((w, c) => padCell(cells[c] ?? '', w, align[c] ?? null))
      .join(' | ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-+-'), ...rows.map(line)].join('\n');
}

/**
 * Lay out a list as text lines: `• ` bullets or `N. ` numbers, continuation lines of an item
 * indented under its text (nested lists thereby indented). `sep` joins the blocks of one item.
 */
export function textList(items: string[][], node: Extract<MdBlock, { type: 'list' }>, bullet = '• '): string {
  const lines: string[] = [];
  items.forEach((blocks, i) => {
    const marker = node.ordered ? `${node.start + i}. ` : bullet;
    const body = blocks.join(node.tight ? '\n' : '\n\n');
    const indent = ' '.repeat(marker.length);
    for (const [j, l] of body.split('\n').entries()) lines.push(j === 0 ? marker + l : l === '' ? '' : indent + l);
  });
  return lines.join(node.tight ? '\n' : '\n\n').replace(/\n{3,}/g, '\n\n');
}

/** Schemes a rendered link may use (every dialect; web also allows our own `/files/` paths). */
export const LINK_SCHEMES: ReadonlySet<string> = new Set(['http:', 'https:', 'mailto:']);

/**
 * The URL if it is an absolute http/https/mailto URL (after markdown-it normalisation), else
 * null. Control characters and whitespace refuse the URL.
 */
export function safeAbsoluteUrl(href: string): string | null {
  if (/[\u0000-\u0020\u007f]/.test(href)) return null;
  try {
    const u = new URL(href);
    return LINK_SCHEMES.has(u.protocol) ? href : null;
  } catch {
    return null;
  }
}

/** True for our own served files: `/files/<id>` (no `//`, no `..`, no scheme). */
export function isOwnFilePath(href: string): boolean {
  return /^\/files\/[A-Za-z0-9_-]+(?:\/[A-Za-z0-9._%-]+)?(?:\?[A-Za-z0-9=&_%.-]*)?$/.test(href) && !href.includes('..');
}
