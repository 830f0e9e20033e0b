/**
 * Markdown → HTML for the web chat page (docs/web-protocol.md; R-DISP-01). Rendered by the
 * shared visitor with every text escaped, then cleaned by sanitize-html with a strict
 * allowlist as a second line of defence: p, br, strong, em, del, code, pre, blockquote, ul, ol,
 * li, a (http/https/mailto or our `/files/` path, always `target="_blank"
 * rel="noopener noreferrer"`), tables, h1–h6, hr, and img only for our own `/files/<id>`
 * sources. No script, style, event handler, iframe, svg or `javascript:`/`data:` URL survives.
 */
import { createRequire } from 'node:module';
import type sanitizeHtmlType from 'sanitize-html';
import { isPlainLine, parseMarkdown } from './ast.ts';
import { isOwnFilePath, renderWith, safeAbsoluteUrl, type MdVisitor } from './visitor.ts';

/** Escape text for HTML content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function webHref(href: string): string | null {
  return safeAbsoluteUrl(href) ?? (isOwnFilePath(href) ? href : null);
}

const web: MdVisitor = {
  text: (t) => escapeHtml(t),
  code: (t) => `<code>${escapeHtml(t)}</code>`,
  softbreak: () => '<br>\n',
  hardbreak: () => '<br>\n',
  strong: (i) => `<strong>${i}</strong>`,
  em: (i) => `<em>${i}</em>`,
  del: (i) => `<del>${i}</del>`,
  link: (inner, n) => {
    const href = webHref(n.href);
    return href === null ? inner : `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${inner}</a>`;
  },
  image: (n) => {
    if (isOwnFilePath(n.src)) return `<img src="${escapeHtml(n.src)}" alt="${escapeHtml(n.alt)}">`;
    const href = safeAbsoluteUrl(n.src);
    const label = escapeHtml(n.alt || n.src);
    return href === null ? label : `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${label}</a>`;
  },
  paragraph: (inner, ctx) => (ctx.tight ? inner : `<p>${inner}</p>`),
  heading: (inner, level) => `<h${level}>${inner}</h${level}>`,
  blockquote: (blocks) => `<blockquote>\n${blocks.join('\n')}\n</blockquote>`,
  list: (items, n) => {
    const tag = n.ordered ? 'ol' : 'ul';
    const start = n.ordered && n.start !== 1 ? ` start="${n.start}"` : '';
    return `<${tag}${start}>\n${items.map((b) => `<li>${b.join('\n')}</li>`).join('\n')}\n</${tag}>`;
  },
  codeBlock: (n) => {
    const lang = /^[A-Za-z0-9_+-]+/.exec(n.info)?.[0];
    return `<pre><code${lang ? ` class="language-${lang}"` : ''}>${escapeHtml(n.text)}</code></pre>`;
  },
  table: (header, rows) =>
    `<table>\n<thead><tr>${header.map((h) => `<th>${h}</th>`).join('')}</tr></thead>\n<tbody>\n${rows
      .map((r) => `<tr>${header.map((_, c) => `<td>${r[c] ?? ''}</td>`).join('')}</tr>`)
      .join('\n')}\n</tbody>\n</table>`,
  hr: () => '<hr>',
  document: (blocks) => blocks.join('\n'),
};

const SANITIZE: sanitizeHtmlType.IOptions = {
  allowedTags: [
    'p',
    'br',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'img',
  ],
  allowedAttributes: { a: ['href', 'target', 'rel'], img: ['src', 'alt'], ol: ['start'], code: ['class'] },
  allowedClasses: { code: [/^language-[A-Za-z0-9_+-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: [] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: (tagName, attribs) => {
      const href = attribs.href !== undefined ? webHref(attribs.href) : null;
      const out: sanitizeHtmlType.Attributes = href === null ? {} : { href, target: '_blank', rel: 'noopener noreferrer' };
      return { tagName, attribs: out };
    },
  },
  exclusiveFilter: (frame) => frame.tag === 'img' && !isOwnFilePath(frame.attribs.src ?? ''),
};

let sanitizer: typeof sanitizeHtmlType | undefined;

/** sanitize-html (with postcss, ~6 MB), required on the first render rather than at start. */
function sanitizeHtml(): typeof sanitizeHtmlType {
  sanitizer ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtmlType;
  return sanitizer;
}

/**
 * Markdown → sanitized HTML for the web page. Pure; never throws.
 * Source: docs/results.md (rich channel), R-DISP-01; allowlist above.
 */
export function renderWebHtml(md: string): string {
  if (isPlainLine(md)) return `<p>${md}</p>`; // nothing in it to escape or sanitize
  return sanitizeHtml()(renderWith(web, parseMarkdown(md)), SANITIZE);
}
