/**
 * The web chat's HTTP routes (docs/adapter-authoring.md): the page and its assets under a strict
 * Content-Security-Policy, sign-in, uploads and file downloads.
 *
 *   GET  /                      the chat page
 *   GET  /favicon.ico           the page's icon
 *   GET  /assets/*              app.js, style.css, purify.min.js (DOMPurify's browser build)
 *   GET  /api/web/config        {demo: [{contact_key, name}] | null, me: {contact_key, name} | null, limits}
 *   POST /api/web/signin        {token} | {link} (single use) | {demo: contact_key} → sets the HttpOnly cookie; {user}
 *   POST /api/web/signout       clears the cookie, revokes its token
 *   POST /api/uploads           multipart, one file ≤ 50 MiB → {upload_id, filename, mime_type, size, sha256}
 *   GET  /files/:id             an own upload or an attachment of an own session; else 404
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { authenticateRequest, signinCookie, tokenOf } from './auth.ts';
import { displayNameOf, type WebContext } from './context.ts';
import { findServable, serveFile } from './files.ts';
import {
  acceptedIdentity,
  consumeSigninLink,
  DEMO_CONTACT_KEYS,
  isDemoContact,
  issueWebToken,
  PAGE_CSP,
  revokeWebToken,
  sameOrigin,
  verifyWebToken,
} from '../../src/channel/index.ts';
import { receiveUpload, UploadError } from './uploads.ts';
import { LIMITS } from './wire.ts';
import { COOKIE_MAX_AGE_S } from './auth.ts';

/** The folder of the static page. */
export const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
const PURIFY_PATH = createRequire(import.meta.url).resolve('dompurify/dist/purify.min.js');

function pageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
}

/** The express router of one web channel. */
export function createWebRouter(ctx: WebContext): express.Router {
  const r = express.Router();

  r.get('/', (_req, res) => {
    pageHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile('index.html', { root: PUBLIC_DIR });
  });
  r.get('/favicon.ico', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('image/x-icon');
    res.sendFile('favicon.ico', { root: PUBLIC_DIR });
  });
  r.get('/assets/purify.min.js', (_req, res) => {
    pageHeaders(res);
    res.sendFile(PURIFY_PATH);
  });
  r.use(
    '/assets',
    express.static(PUBLIC_DIR, {
      index: false,
      fallthrough: false,
      setHeaders: (res) => {
        pageHeaders(res);
        res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );

  const whoAmI = (req: Request) => authenticateRequest(ctx.db, ctx.orgId, req, ctx.clock(), ctx.demo);

  r.get('/api/web/config', async (req, res) => {
    let demo: { contact_key: string; name: string }[] | null = null;
    if (ctx.demo) {
      demo = [];
      for (const key of DEMO_CONTACT_KEYS) {
        const c = await ctx.directory.find(ctx.orgId, key).catch(() => null);
        if (c) demo.push({ contact_key: c.contact_key, name: c.name });
      }
    }
    const me = await whoAmI(req);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      demo,
      me: me ? { contact_key: me.contactKey, name: await displayNameOf(ctx, me.contactKey) } : null,
      limits: LIMITS,
    });
  });

  r.post('/api/web/signin', express.json({ limit: '4kb' }), async (req, res) => {
    if (!sameOrigin(req)) {
      res.status(403).json({ error: 'cross-origin sign-in refused' });
      return;
    }
    const body = (req.body ?? {}) as { token?: unknown; demo?: unknown; link?: unknown };
    let token: string | null = null;
    let contactKey: string | null = null;
    if (typeof body.link === 'string') {
      // A single-use sign-in link (src/web-auth/signin-links.ts): used up here, a session token issued.
      const linked = await consumeSigninLink(ctx.db, ctx.orgId, body.link, ctx.clock());
      if (linked && (await ctx.directory.find(ctx.orgId, linked).catch(() => null))) {
        contactKey = linked;
        // A demo contact's link could have been asked for from a demo session: its session stays a
        // demo one (no console; gone once demo identities are off), never an ordinary session.
        token = await issueWebToken(ctx.db, ctx.orgId, linked, {
          expiresAt: new Date(ctx.clock() + COOKIE_MAX_AGE_S * 1000),
          source: isDemoContact(linked) ? 'demo' : 'issued',
        });
      }
    } else if (typeof body.token === 'string') {
      const id = acceptedIdentity(await verifyWebToken(ctx.db, ctx.orgId, body.token, ctx.clock()), ctx.demo);
      if (id) {
        token = body.token;
        contactKey = id.contactKey;
      }
    } else if (typeof body.demo === 'string' && ctx.demo && isDemoContact(body.demo)) {
      // Only the seeded demo contacts: never any other contact of the directory (an admin).
      const c = await ctx.directory.find(ctx.orgId, body.demo).catch(() => null);
      if (c) {
        contactKey = c.contact_key;
        token = await issueWebToken(ctx.db, ctx.orgId, contactKey, {
          expiresAt: new Date(ctx.clock() + COOKIE_MAX_AGE_S * 1000),
          source: 'demo',
        });
      }
    }
    if (!token || !contactKey) {
      res.status(401).json({ error: 'sign-in refused' });
      return;
    }
    res.setHeader('Set-Cookie', signinCookie(token, req.secure));
    res.setHeader('Cache-Control', 'no-store');
    res.json({ user: { contact_key: contactKey, name: await displayNameOf(ctx, contactKey) } });
  });

  r.post('/api/web/signout', async (req, res) => {
    if (!sameOrigin(req)) {
      res.status(403).json({ error: 'cross-origin request refused' });
      return;
    }
    const token = tokenOf(req);
    if (token) await revokeWebToken(ctx.db, token);
    res.setHeader('Set-Cookie', signinCookie(null, req.secure));
    res.json({ ok: true });
  });

  r.post('/api/uploads', async (req, res) => {
    if (!sameOrigin(req)) {
      res.status(403).json({ error: 'cross-origin upload refused' });
      return;
    }
    const me = await whoAmI(req);
    if (!me) {
      res.status(401).json({ error: 'sign in first' });
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > LIMITS.max_upload_bytes + 64 * 1024) {
      res.setHeader('Connection', 'close');
      res.status(413).json({ error: `file larger than ${LIMITS.max_upload_bytes} bytes`, limit_bytes: LIMITS.max_upload_bytes });
      return;
    }
    try {
      const rec = await receiveUpload(req, { q: ctx.db, dataDir: ctx.dataDir, orgId: ctx.orgId, contactKey: me.contactKey });
      res.status(201).json(rec);
    } catch (err) {
      if (err instanceof UploadError) {
        if (err.status === 413) res.setHeader('Connection', 'close');
        res.status(err.status).json({ error: err.message, ...(err.status === 413 ? { limit_bytes: LIMITS.max_upload_bytes } : {}) });
        return;
      }
      throw err;
    }
  });

  r.get('/files/:id', async (req, res) => {
    const me = await whoAmI(req);
    const id = String(req.params.id ?? '');
    const f = me ? await findServable(ctx.db, { dataDir: ctx.dataDir, orgId: ctx.orgId, contactKey: me.contactKey, id }) : null;
    if (!f) {
      res.status(404).json({ error: 'not found' });
      return;
    }
    serveFile(res, f, req);
  });

  // No stack trace ever reaches a user (express' default handler prints one outside production).
  r.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) ctx.log.error({ err: (err as Error).message }, 'web: request failed');
    if (res.headersSent) {
      next(err);
      return;
    }
    res.status(status).json({ error: status === 404 ? 'not found' : status < 500 ? 'bad request' : 'internal error' });
  });
  return r;
}
