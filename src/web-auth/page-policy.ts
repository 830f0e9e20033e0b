/**
 * The Content-Security-Policy of the pages people sign in on: the web chat (adapters/web/http.ts)
 * and the console (src/console/index.ts). A script injected into either could use the session.
 */

/** Same-origin only, no inline script or style. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');
