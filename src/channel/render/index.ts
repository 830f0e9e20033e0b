/**
 * Markdown rendering shared by every adapter: parse once (`ast.ts`), walk once per dialect
 * (`visitor.ts`). Dialects: web HTML (sanitized), Telegram HTML, plain text.
 */
export { parseMarkdown, type MdBlock, type MdInline, type MdAlign } from './ast.ts';
export { renderWith, renderInline, inlineText, displayWidth, type MdVisitor, type BlockContext } from './visitor.ts';
export { renderWebHtml, escapeHtml } from './web-html.ts';
export { renderTelegramHtml, escapeTelegram } from './telegram-html.ts';
export { renderPlain } from './plain.ts';
