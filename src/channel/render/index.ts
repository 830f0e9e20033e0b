/**
 * Markdown rendering shared by every adapter: parse once (`ast.ts`), walk once per dialect
 * (`visitor.ts`). Shared dialects: web HTML (sanitized), plain text; a platform's own dialect
 * lives in its adapter (`adapters/<channel>/render.ts`), built from these parts.
 */
export { parseMarkdown, type MdBlock, type MdInline, type MdAlign } from './ast.ts';
export {
  renderWith,
  renderInline,
  inlineText,
  displayWidth,
  alignedTable,
  textList,
  safeAbsoluteUrl,
  type MdVisitor,
  type BlockContext,
} from './visitor.ts';
export { renderWebHtml, escapeHtml } from './web-html.ts';
export { renderPlain } from './plain.ts';
