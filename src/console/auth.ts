/**
 * Console sign-in (docs/adapter-authoring.md `/admin`, §11 `SKILLGATE_ADMIN_TOKEN`;
 * docs/console.md "Sign-in").
 *
 * Two ways in:
 * - the operator token `SKILLGATE_ADMIN_TOKEN` (compared with {@link digestEqual}: constant
 *   time, not even its length leaks);
 * - a web token (`skillgate web token <contact>`, src/web-auth/tokens.ts) of a directory
 *   contact with `is_admin` — re-checked on every request, so revoking `is_admin` ends it.
 *
 * Either is exchanged for a session cookie `sg_admin` (HttpOnly, SameSite=Strict, Path=/admin,
 * 12 h): `<payload base64url>.<HMAC-SHA256 base64url>` keyed by the gateway's secret key and a
 * digest of the admin token, so every replica accepts it and changing the token signs every
 * token session out. API clients may send `Authorization: Bearer <SKILLGATE_ADMIN_TOKEN>`.
 *
 * CSRF: a state-changing request (not GET/HEAD) signed in by the cookie must carry
 * `X-Skillgate-Admin: 1` and no foreign `Origin` — a cross-site form can set neither.
 */
import { createHash, createHmac } from 'node:crypto';
import type express from 'express';
import { digestEqual, safeEqual } from '../channel/safe-equal.ts';
import { findContact } from '../identity/contacts.ts';
import type { Queryable } from '../store/db.ts';
import { bearerOf, readCookie, sameOrigin } from '../web-auth/request.ts';
import { verifyWebToken } from '../web-auth/tokens.ts';
import { fail, type AdminIdentity } from './kit.ts';

/** Name of the console's session cookie. */
export const ADMIN_COOKIE = 'sg_admin';
/** Lifetime of a console session, s (12 hours). */
export const ADMIN_SESSION_S = 12 * 3600;
/** The header every state-changing cookie request must carry (value `1`). */
export const CSRF_HEADER = 'x-skillgate-admin';
/** Failed sign-ins allowed per client address per window before 429. */
export const SIGNIN_FAILURES_MAX = 20;
/** Window of {@link SIGNIN_FAILURES_MAX}, ms (10 minutes). */
export const SIGNIN_WINDOW_MS = 10 * 60_000;

/** What sign-in needs. */
export interface AdminAuthDeps {
  db: Queryable;
  /** `SKILLGATE_ADMIN_TOKEN`; undefined = token sign-in off. */
  adminToken?: string;
  /** The gateway's 32-byte secret key (signs session cookies). */
  secretKey: Buffer;
  /** The organisation whose web tokens and contacts may sign in (the default role's). */
  orgId: string;
  /** Epoch ms. */
  clock: () => number;
}

interface SessionPayload {
  k: 't' | 'c';
  c?: string;
  exp: number;
}

/** Sign-in and session checks of one console. */
export class AdminAuth {
  private readonly key: Buffer;
  private readonly failures = new Map<string, { n: number; since: number }>();

  constructor(private readonly deps: AdminAuthDeps) {
    const tokenDigest = createHash('sha256')
      .update(deps.adminToken ?? '', 'utf8')
      .digest();
    this.key = createHash('sha256').update('skillgate-admin-session\u0000').update(deps.secretKey).update(tokenDigest).digest();
  }

  /** True when some way in exists: the admin token is set or a contact has `is_admin`. */
  async enabled(): Promise<boolean> {
    if (this.deps.adminToken) return true;
    const { rows } = await this.deps.db.query(`SELECT 1 FROM skillgate.contacts WHERE org_id = $1 AND is_admin LIMIT 1`, [this.deps.orgId]);
    return rows.length > 0;
  }

  /**
   * Check a presented credential (admin token or an admin contact's web token).
   * @returns the identity, or null (never says which part was wrong).
   */
  async signIn(presented: string): Promise<AdminIdentity | null> {
    if (this.deps.adminToken && digestEqual(presented, this.deps.adminToken)) return { kind: 'token' };
    const web = await verifyWebToken(this.deps.db, this.deps.orgId, presented, this.deps.clock());
    // A demo identity is for trying the chat on loopback; it never becomes a console session.
    return web && web.source !== 'demo' ? this.contactAdmin(web.contactKey) : null;
  }

  /** The `Set-Cookie` value of a new session for `who` (or clearing it when null). */
  cookieFor(who: AdminIdentity | null, secure: boolean): string {
    const attrs = ['Path=/admin', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
    if (!who) return [`${ADMIN_COOKIE}=`, 'Max-Age=0', ...attrs].join('; ');
    const payload: SessionPayload = { k: who.kind === 'token' ? 't' : 'c', exp: this.deps.clock() + ADMIN_SESSION_S * 1000 };
    if (who.kind === 'contact') payload.c = who.contactKey;
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return [`${ADMIN_COOKIE}=${body}.${this.mac(body)}`, `Max-Age=${ADMIN_SESSION_S}`, ...attrs].join('; ');
  }

  /** Who a request is signed in as (bearer admin token, else the session cookie), or null. */
  async identify(req: express.Request): Promise<{ who: AdminIdentity; via: 'bearer' | 'cookie' } | null> {
    const bearer = bearerOf(req);
    if (bearer !== null) {
      return this.deps.adminToken && digestEqual(bearer, this.deps.adminToken) ? { who: { kind: 'token' }, via: 'bearer' } : null;
    }
    const cookie = readCookie(req.headers.cookie, ADMIN_COOKIE);
    const payload = cookie ? this.verify(cookie) : null;
    if (!payload) return null;
    if (payload.k === 't') return this.deps.adminToken ? { who: { kind: 'token' }, via: 'cookie' } : null;
    const who = payload.c ? await this.contactAdmin(payload.c) : null;
    return who ? { who, via: 'cookie' } : null;
  }

  /**
   * Express middleware: 401 unless signed in (a wrong bearer token counts as a failed sign-in;
   * 429 past the limit); 403 on a cookie request failing the CSRF check.
   */
  middleware(): express.RequestHandler {
    return async (req, res, next) => {
      // A bearer token is a sign-in attempt too: wrong ones count toward the same per-address
      // limit as the sign-in form, so the API is no unlimited guessing oracle.
      const addr = req.socket.remoteAddress ?? '?';
      const bearer = bearerOf(req) !== null;
      if (bearer && !this.allowAttempt(addr)) return fail(res, 429, 'too_many_attempts', '登录失败次数过多，请稍后再试。');
      const found = await this.identify(req);
      if (!found) {
        if (bearer) this.recordFailure(addr);
        return fail(res, 401, 'unauthorized', '请先登录管理控制台。');
      }
      if (found.via === 'cookie' && !csrfOk(req)) return fail(res, 403, 'csrf', '请求被拒绝：缺少控制台请求头或来源不符。');
      res.locals.admin = found.who;
      next();
    };
  }

  /** False when `addr` has too many failed sign-ins in the current window. */
  allowAttempt(addr: string): boolean {
    const f = this.failures.get(addr);
    if (!f || this.deps.clock() - f.since > SIGNIN_WINDOW_MS) return true;
    return f.n < SIGNIN_FAILURES_MAX;
  }

  /** Count one failed sign-in of `addr`. */
  recordFailure(addr: string): void {
    const now = this.deps.clock();
    const f = this.failures.get(addr);
    if (!f || now - f.since > SIGNIN_WINDOW_MS) this.failures.set(addr, { n: 1, since: now });
    else f.n += 1;
    if (this.failures.size > 10_000) this.failures.clear(); // bounded memory
  }

  private async contactAdmin(contactKey: string): Promise<AdminIdentity | null> {
    const c = await findContact(this.deps.db, this.deps.orgId, contactKey);
    return c?.isAdmin ? { kind: 'contact', orgId: c.orgId, contactKey: c.contactKey, name: c.name } : null;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body, 'utf8').digest('base64url');
  }

  private verify(cookie: string): SessionPayload | null {
    const dot = cookie.indexOf('.');
    if (dot <= 0 || cookie.length > 1000) return null;
    const body = cookie.slice(0, dot);
    if (!safeEqual(cookie.slice(dot + 1), this.mac(body))) return null;
    try {
      const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionPayload;
      if (typeof p.exp !== 'number' || p.exp <= this.deps.clock()) return null;
      if (p.k !== 't' && p.k !== 'c') return null;
      return p;
    } catch {
      return null;
    }
  }
}

/** The CSRF rule for cookie requests: safe methods pass; others need the header and no foreign Origin. */
export function csrfOk(req: express.Request): boolean {
  if (req.method === 'GET' || req.method === 'HEAD') return true;
  return req.headers[CSRF_HEADER] === '1' && sameOrigin(req);
}
