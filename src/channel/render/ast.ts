/**
 * Markdown → a small neutral syntax tree (outbound as rendering from one neutral form). markdown-it
 * parses once with raw HTML **off** (an HTML tag in a skill's or a user's text stays literal text),
 * GFM tables and strikethrough on, bare URLs linkified, single newlines kept as line breaks (chat
 * text). Every dialect renders this tree through the visitor in `visitor.ts`.
 *
 * Links and images keep markdown-it's normalised URL (percent-encoded); markdown-it's own
 * `validateLink` already refuses `javascript:`, `vbscript:`, `file:` and non-image `data:` URLs
 * (such a link stays literal text). Each dialect applies its own stricter scheme policy on top.
 */
import type MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import { markdownItClass } from '../../config/lazy-packages.ts';

/** Column alignment of a table (GFM `:--`, `:-:`, `--:`), null when unspecified. */
export type MdAlign = 'left' | 'center' | 'right' | null;

/** Inline content. `text` is the decoded text (entities resolved, backslash escapes removed). */
export type MdInline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'softbreak' }
  | { type: 'hardbreak' }
  | { type: 'strong' | 'em' | 'del'; children: MdInline[] }
  /** `href` normalised by markdown-it (percent-encoded); `auto` for `<url>` and bare URLs. */
  | { type: 'link'; href: string; auto: boolean; children: MdInline[] }
  | { type: 'image'; src: string; alt: string };

/** Block content. */
export type MdBlock =
  | { type: 'paragraph'; children: MdInline[] }
  | { type: 'heading'; level: number; children: MdInline[] }
  | { type: 'blockquote'; children: MdBlock[] }
  /** `items[i]` = the blocks of item i; `tight` when markdown-it hid the item paragraphs. */
  | { type: 'list'; ordered: boolean; start: number; tight: boolean; items: MdBlock[][] }
  /** Fenced or indented code; `info` is the fence info string ("" when none). */
  | { type: 'code_block'; info: string; text: string }
  | { type: 'table'; align: MdAlign[]; header: MdInline[][]; rows: MdInline[][][] }
  | { type: 'hr' };

/** A markdown-it parser (the package exports its class as a value only). */
type MarkdownItInstance = InstanceType<typeof MarkdownIt>;

let md: MarkdownItInstance | undefined;

/** The shared markdown-it instance (for URL helpers such as `normalizeLinkText`), made at its first use. */
export function markdownIt(): MarkdownItInstance {
  md ??= new (markdownItClass())({ html: false, linkify: true, breaks: true });
  return md;
}

/**
 * One line of words, digits, CJK punctuation and emoji with no character that markdown,
 * linkify or HTML escaping acts on (no ASCII punctuation but `,` `?` `;` `%`, no edge
 * spaces): markdown-it would give one paragraph of exactly that text. Most chat replies are
 * such a line; they skip the parser (test/render/plain-line.test.ts checks the equivalence).
 */
const PLAIN_LINE = /^(?:[\p{L}\p{M}\p{N}\p{Extended_Pictographic}\u3000-\u303f\uff01-\uff0d\uff0f-\uff1f\uff21-\uff5e ,?;%]|\u200d)+$/u;

/** True when `src` is a plain line (see {@link PLAIN_LINE}); such text renders as itself in every dialect. */
export function isPlainLine(src: string): boolean {
  return src.length <= 4096 && src.trim() === src && PLAIN_LINE.test(src);
}

/** Parse markdown into blocks. Never throws for any input string. */
export function parseMarkdown(src: string): MdBlock[] {
  if (isPlainLine(src)) return [{ type: 'paragraph', children: [{ type: 'text', text: src }] }];
  const tokens = markdownIt().parse(src, {});
  const cursor = { i: 0 };
  return parseBlocks(tokens, cursor, null);
}

function attr(t: Token, name: string): string | null {
  const found = t.attrs?.find(([k]) => k === name);
  return found ? String(found[1]) : null;
}

/** Blocks until the closing token `closeType` (or the end). */
function parseBlocks(tokens: Token[], c: { i: number }, closeType: string | null): MdBlock[] {
  const out: MdBlock[] = [];
  while (c.i < tokens.length) {
    const t = tokens[c.i]!;
    if (closeType !== null && t.type === closeType) {
      c.i++;
      return out;
    }
    c.i++;
    switch (t.type) {
      case 'paragraph_open': {
        const inline = tokens[c.i]!;
        c.i += 2; // inline + paragraph_close
        out.push({ type: 'paragraph', children: parseInline(inline.children ?? []) });
        break;
      }
      case 'heading_open': {
        const inline = tokens[c.i]!;
        c.i += 2;
        out.push({ type: 'heading', level: Number(t.tag.slice(1)) || 1, children: parseInline(inline.children ?? []) });
        break;
      }
      case 'blockquote_open':
        out.push({ type: 'blockquote', children: parseBlocks(tokens, c, 'blockquote_close') });
        break;
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const ordered = t.type === 'ordered_list_open';
        const start = ordered ? Number(attr(t, 'start') ?? '1') || 1 : 1;
        const closeList = ordered ? 'ordered_list_close' : 'bullet_list_close';
        const items: MdBlock[][] = [];
        let tight = true;
        while (c.i < tokens.length && tokens[c.i]!.type !== closeList) {
          const item = tokens[c.i]!;
          c.i++;
          if (item.type !== 'list_item_open') continue;
          const firstPara = tokens[c.i];
          if (firstPara?.type === 'paragraph_open' && !firstPara.hidden) tight = false;
          items.push(parseBlocks(tokens, c, 'list_item_close'));
        }
        c.i++;
        out.push({ type: 'list', ordered, start, tight, items });
        break;
      }
      case 'fence':
        out.push({ type: 'code_block', info: t.info.trim(), text: t.content });
        break;
      case 'code_block':
        out.push({ type: 'code_block', info: '', text: t.content });
        break;
      case 'hr':
        out.push({ type: 'hr' });
        break;
      case 'table_open':
        out.push(parseTable(tokens, c));
        break;
      case 'html_block':
        // Unreachable with html:false; kept literal for safety.
        out.push({ type: 'paragraph', children: [{ type: 'text', text: t.content }] });
        break;
      default:
        break;
    }
  }
  return out;
}

function alignOf(t: Token): MdAlign {
  const style = attr(t, 'style') ?? '';
  const m = /text-align:(left|center|right)/.exec(style);
  return m ? (m[1] as MdAlign) : null;
}

function parseTable(tokens: Token[], c: { i: number }): MdBlock {
  const header: MdInline[][] = [];
  const rows: MdInline[][][] = [];
  const align: MdAlign[] = [];
  let row: MdInline[][] | null = null;
  let inHead = false;
  while (c.i < tokens.length) {
    const t = tokens[c.i]!;
    c.i++;
    if (t.type === 'table_close') break;
    if (t.type === 'thead_open') inHead = true;
    else if (t.type === 'thead_close') inHead = false;
    else if (t.type === 'tr_open') row = [];
    else if (t.type === 'tr_close') {
      if (row && !inHead) rows.push(row);
      row = null;
    } else if (t.type === 'th_open' || t.type === 'td_open') {
      const inline = tokens[c.i]!;
      const cell = inline.type === 'inline' ? parseInline(inline.children ?? []) : [];
      if (inHead) {
        header.push(cell);
        align.push(alignOf(t));
      } else row?.push(cell);
    }
  }
  return { type: 'table', align, header, rows };
}

/** Inline tokens → inline nodes (nesting rebuilt from *_open / *_close pairs). */
function parseInline(tokens: Token[]): MdInline[] {
  const root: MdInline[] = [];
  const stack: { node: MdInline & { children: MdInline[] }; close: string }[] = [];
  const push = (n: MdInline): void => {
    (stack.length ? stack[stack.length - 1]!.node.children : root).push(n);
  };
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
      case 'text_special':
      case 'html_inline':
        push({ type: 'text', text: t.content });
        break;
      case 'code_inline':
        push({ type: 'code', text: t.content });
        break;
      case 'softbreak':
        push({ type: 'softbreak' });
        break;
      case 'hardbreak':
        push({ type: 'hardbreak' });
        break;
      case 'image':
        push({ type: 'image', src: attr(t, 'src') ?? '', alt: t.content });
        break;
      case 'strong_open':
      case 'em_open':
      case 's_open':
      case 'link_open': {
        const node: MdInline & { children: MdInline[] } =
          t.type === 'link_open'
            ? { type: 'link', href: attr(t, 'href') ?? '', auto: t.info === 'auto' || t.markup === 'linkify', children: [] }
            : { type: t.type === 'strong_open' ? 'strong' : t.type === 'em_open' ? 'em' : 'del', children: [] };
        push(node);
        stack.push({ node, close: t.type.replace('_open', '_close') });
        break;
      }
      case 'strong_close':
      case 'em_close':
      case 's_close':
      case 'link_close':
        if (stack.length && stack[stack.length - 1]!.close === t.type) stack.pop();
        break;
      default:
        if (t.content) push({ type: 'text', text: t.content });
    }
  }
  return mergeText(root);
}

/** Adjacent text nodes merged (keeps dialect output compact). */
function mergeText(nodes: MdInline[]): MdInline[] {
  const out: MdInline[] = [];
  for (const n of nodes) {
    const last = out[out.length - 1];
    if (n.type === 'text' && last?.type === 'text') out[out.length - 1] = { type: 'text', text: last.text + n.text };
    else out.push(n);
  }
  return out;
}
