/**
 * Markdown → Telegram's HTML dialect (parse_mode `HTML`;
 * https://core.telegram.org/bots/api#html-style). Only the documented tags are produced: `b`,
 * `i`, `s`, `a href` (http/https/mailto), `code`, `pre` (with `<code class="language-x">`),
 * `blockquote` (never nested: an inner quote loses its tag). `<`, `>`, `&` (and `"` in
 * attributes) are escaped as `&lt; &gt; &amp; &quot;` — the only named entities Telegram
 * accepts. Headings are bold lines, lists `• ` / `1. ` lines, tables aligned text in `<pre>`.
 */
import { alignedTable, inlineText, type MdVisitor, parseMarkdown, renderWith, safeAbsoluteUrl, textList } from '../../src/channel/index.ts';

/** Escape text for Telegram HTML (`&`, `<`, `>`, and `"` for attribute values). */
export function escapeTelegram(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const telegram: MdVisitor = {
  text: (t) => escapeTelegram(t),
  code: (t) => `<code>${escapeTelegram(t)}</code>`,
  softbreak: () => '\n',
  hardbreak: () => '\n',
  strong: (i) => `<b>${i}</b>`,
  em: (i) => `<i>${i}</i>`,
  del: (i) => `<s>${i}</s>`,
  link: (inner, n) => {
    const href = safeAbsoluteUrl(n.href);
    return href === null ? inner : `<a href="${escapeTelegram(href)}">${inner}</a>`;
  },
  image: (n) => {
    const href = safeAbsoluteUrl(n.src);
    const label = escapeTelegram(n.alt || n.src);
    return href === null ? label : `<a href="${escapeTelegram(href)}">${label}</a>`;
  },
  paragraph: (inner) => inner,
  heading: (inner) => `<b>${inner}</b>`,
  blockquote: (blocks) => `<blockquote>${blocks.join('\n\n').replace(/<\/?blockquote>/g, '')}</blockquote>`,
  list: (items, n) => textList(items, n),
  codeBlock: (n) => {
    const lang = /^[A-Za-z0-9_+-]+/.exec(n.info)?.[0];
    const body = escapeTelegram(n.text.replace(/\n$/, ''));
    return lang ? `<pre><code class="language-${lang}">${body}</code></pre>` : `<pre>${body}</pre>`;
  },
  table: (_h, _r, n) =>
    `<pre>${escapeTelegram(
      alignedTable(
        n.header.map(inlineText),
        n.rows.map((r) => r.map(inlineText)),
        n.align,
      ),
    )}</pre>`,
  hr: () => '——————',
  document: (blocks) => blocks.filter((b) => b !== '').join('\n\n'),
};

/**
 * Markdown → Telegram HTML (send with `parse_mode: 'HTML'`). Pure; never throws.
 * Source: docs/results.md (Telegram is rich, D-22); Telegram Bot API "HTML style".
 */
export function renderTelegramHtml(md: string): string {
  return renderWith(telegram, parseMarkdown(md));
}
