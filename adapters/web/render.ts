/**
 * Markdown → sanitized HTML for web frames (`assistant.message.html`,
 * `confirm.request.prompt_html`). markdown-it with raw HTML off parses; sanitize-html with an
 * allowlist (no scripts, no event handlers, no styles, http/https/mailto links only, links
 * open in a new tab with `rel="noopener noreferrer nofollow"`) cleans. The page sanitizes
 * again with DOMPurify before inserting anything (defence in depth).
 *
 * Integrator: when `src/channel/render/` exports `renderWebHtml(md)`, pass it as
 * `createWebChannel({ renderHtml })` so every channel renders one way.
 */
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'strong', 'em', 'b', 'i', 's', 'del', 'code', 'pre', 'blockquote',
    'ul', 'ol', 'li', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
    'table', 'thead', 'tbody', 'tr', 'th', 'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'target', 'rel'], ol: ['start'], code: ['class'] },
  allowedClasses: { code: [/^language-[A-Za-z0-9_+-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer nofollow' }),
  },
};

/** Sanitize an HTML fragment with the web allowlist. */
export function sanitizeWebHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE);
}

/** Render CommonMark (raw HTML shown as text, never as markup) to sanitized HTML. */
export function renderMarkdownHtml(markdown: string): string {
  return sanitizeWebHtml(md.render(markdown));
}
