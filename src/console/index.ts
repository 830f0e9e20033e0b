/**
 * The operators' console (docs/adapter-authoring.md `/admin`; docs/console.md). The
 * gateway adds {@link AdminConsole.router} to its routers; every path starts with `/admin`:
 *
 *   GET  /admin                      the console page (static shell, strict CSP, no inline script)
 *   GET  /admin/assets/*             admin.js, admin.css, sections/<id>.js, purify.min.js
 *   GET  /admin/api/session          {enabled, signed_in, admin: {kind, name?} | null, time_zone, how_to_enable?}
 *   POST /admin/api/signin           {token} → session cookie; 401 refused; 429 too many failures
 *   POST /admin/api/signout          clears the cookie
 *   GET  /admin/api/sections         [{id, title: {zh, en}}] (signed in)
 *   *    /admin/api/<section>/…      the section's routes (signed in; CSRF header on writes)
 */
import { roleTimeZone } from '../config/file.ts';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AdminAuth, csrfOk } from './auth.ts';
import { defaultRole, fail, str, type AdminDeps, type AdminSection } from './kit.ts';
import { ADMIN_SECTIONS } from './sections.ts';
import { PAGE_CSP } from '../web-auth/page-policy.ts';

export type { AdminDeps, AdminSection, AdminIdentity } from './kit.ts';
export { ADMIN_SECTIONS } from './sections.ts';

/** The folder of the console's static files. */
export const ADMIN_PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
const PURIFY_PATH = createRequire(import.meta.url).resolve('dompurify/dist/purify.min.js');

/** What {@link createAdminConsole} needs: the section deps plus sign-in settings. */
export interface AdminConsoleDeps extends AdminDeps {
  /** `SKILLGATE_ADMIN_TOKEN` (undefined = only admin contacts can sign in). */
  adminToken?: string;
  /** Epoch ms (tests inject one). */
  clock?: () => number;
  /** Sections to serve (default {@link ADMIN_SECTIONS}). */
  sections?: AdminSection[];
}

/** A built console. */
export interface AdminConsole {
  /** Routes under `/admin` (mount on the app without a path prefix). */
  readonly router: express.Router;
  /** Release resources (nothing held today; kept for the gateway's shutdown list). */
  close(): Promise<void>;
}

/** zh-CN text shown when no way to sign in exists. */
export const HOW_TO_ENABLE =
  '管理控制台未启用：请在 .env 中设置 SKILLGATE_ADMIN_TOKEN 并重启，或在通讯录中把某个联系人设为管理员（is_admin）后用 `skillgate web token <联系人>` 生成登录令牌。';

function pageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-cache');
}

/** Build the console. Sections with an invalid or repeated id throw (a programming error). */
export function createAdminConsole(deps: AdminConsoleDeps): AdminConsole {
  const sections = deps.sections ?? ADMIN_SECTIONS;
  const seen = new Set<string>();
  for (const s of sections) {
    if (!/^[a-z][a-z0-9_-]*$/.test(s.id) || seen.has(s.id))
      throw new Error(`admin section id ${JSON.stringify(s.id)} is invalid or repeated`);
    seen.add(s.id);
  }
  const clock = deps.clock ?? Date.now;
  const auth = new AdminAuth({
    db: deps.db,
    adminToken: deps.adminToken,
    secretKey: deps.services.secretKey,
    orgId: defaultRole(deps).org_id,
    clock,
  });
  const r = express.Router();

  const page = (_req: Request, res: Response): void => {
    pageHeaders(res);
    res.sendFile('index.html', { root: ADMIN_PUBLIC_DIR });
  };
  r.get('/admin', page);
  r.get('/admin/', page);
  r.get('/admin/assets/purify.min.js', (_req, res) => {
    pageHeaders(res);
    res.sendFile(PURIFY_PATH);
  });
  r.use('/admin/assets', express.static(ADMIN_PUBLIC_DIR, { index: false, fallthrough: false, setHeaders: pageHeaders }));
  // A missing asset is a plain 404, never express' default page with a stack trace.
  r.use('/admin/assets', (err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const status = (err as { status?: number }).status ?? 500;
    res
      .status(status >= 400 && status < 500 ? status : 500)
      .type('text')
      .send(status === 404 ? 'not found' : 'error');
  });

  const api = express.Router();
  api.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  api.use(express.json({ limit: '1mb' }));

  api.get('/session', async (req, res) => {
    const enabled = await auth.enabled();
    const found = await auth.identify(req);
    const who = found?.who;
    res.json({
      enabled,
      signed_in: who !== undefined,
      admin: who ? (who.kind === 'token' ? { kind: 'token' } : { kind: 'contact', name: who.name, contact_key: who.contactKey }) : null,
      // The page writes every time in this zone (docs/results.md "Times").
      time_zone: roleTimeZone(deps.config, deps.defaultRoleId),
      ...(enabled ? {} : { how_to_enable: HOW_TO_ENABLE }),
    });
  });

  api.post('/signin', async (req, res) => {
    if (!csrfOk(req)) return fail(res, 403, 'csrf', '请求被拒绝：缺少控制台请求头或来源不符。');
    const addr = req.socket.remoteAddress ?? '?';
    if (!auth.allowAttempt(addr)) return fail(res, 429, 'too_many_attempts', '登录失败次数过多，请稍后再试。');
    const token = str((req.body as { token?: unknown } | undefined)?.token);
    const who = token && token.length <= 512 ? await auth.signIn(token) : null;
    if (!who) {
      auth.recordFailure(addr);
      deps.log.warn({ addr }, 'admin console: sign-in refused');
      return fail(res, 401, 'signin_refused', '登录失败：令牌无效，或该联系人不是管理员。');
    }
    deps.log.info({ kind: who.kind, contact_key: who.kind === 'contact' ? who.contactKey : undefined }, 'admin console: signed in');
    res.setHeader('Set-Cookie', auth.cookieFor(who, req.secure));
    res.json({
      ok: true,
      admin: who.kind === 'token' ? { kind: 'token' } : { kind: 'contact', name: who.name, contact_key: who.contactKey },
    });
  });

  api.post('/signout', (req, res) => {
    if (!csrfOk(req)) return fail(res, 403, 'csrf', '请求被拒绝：缺少控制台请求头或来源不符。');
    res.setHeader('Set-Cookie', auth.cookieFor(null, req.secure));
    res.json({ ok: true });
  });

  api.use(auth.middleware());
  api.get('/sections', (_req, res) => {
    res.json(sections.map((s) => ({ id: s.id, title: s.title })));
  });
  for (const s of sections) api.use(`/${s.id}`, s.routes(deps));
  api.use((_req, res) => fail(res, 404, 'not_found', '没有这个接口。'));

  // Errors as {error, code}; never a stack trace (express' default prints one outside production).
  api.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (err as { status?: number }).status ?? (err as { statusCode?: number }).statusCode ?? 500;
    if (res.headersSent) return next(err);
    if (status >= 500) {
      deps.log.error({ err: (err as Error).message }, 'admin console: request failed');
      return fail(res, 500, 'internal', '服务器内部错误，请查看网关日志。');
    }
    if (status === 413) return fail(res, 413, 'too_large', '请求体太大。');
    fail(res, status, 'bad_request', '请求格式不正确。');
  });
  r.use('/admin/api', api);
  return { router: r, close: async () => undefined };
}
