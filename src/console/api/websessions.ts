/**
 * Console section `websessions`: a contact's web chat sessions — list, revoke one or all —
 * and a single-use sign-in link issued for them (src/web-auth/signin-links.ts; docs/console.md
 * "Web sessions"). The web chat's organisation is the default role's.
 *
 *   GET  ?contact=<key>                  {contact: {contact_key, name}, sessions: WebSession[]} | 404 not_in_directory
 *   POST link    {contact}               {url, expires_at} (the link is shown once; hand it to that person only)
 *   POST revoke  {contact, id?}          {revoked: n} — the session `id`, or every live one without `id`
 */
import express from 'express';
import { findContact } from '../../identity/contacts.ts';
import { identityDirectory } from '../../web-auth/directory.ts';
import { issueSigninLink } from '../../web-auth/signin-links.ts';
import { listWebSessions, revokeWebSessions } from '../../web-auth/tokens.ts';
import { adminOf, defaultRole, fail, str, type AdminDeps, type AdminSection } from '../kit.ts';

function routes(deps: AdminDeps): express.Router {
  const r = express.Router();
  const directory = identityDirectory(deps.db, deps.findContact ?? findContact);
  const orgId = (): string => defaultRole(deps).org_id;
  const contactOf = async (res: express.Response, key: string | undefined) => {
    const c = key ? await directory.find(orgId(), key).catch(() => null) : null;
    if (!c) fail(res, 404, 'not_in_directory', `联系人 ${key ?? ''} 不在通讯录中。`);
    return c;
  };

  r.get('/', async (req, res) => {
    const c = await contactOf(res, str(req.query.contact));
    if (!c) return;
    res.json({ contact: { contact_key: c.contact_key, name: c.name }, sessions: await listWebSessions(deps.db, orgId(), c.contact_key) });
  });

  r.post('/link', async (req, res) => {
    const c = await contactOf(res, str((req.body as { contact?: unknown })?.contact));
    if (!c) return;
    // The page base: SKILLGATE_PUBLIC_URL, else the address this console was reached at (the same server).
    const base = process.env.SKILLGATE_PUBLIC_URL?.trim() || `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    const link = await issueSigninLink(deps.db, orgId(), c.contact_key, { via: 'console', nowMs: Date.now(), base });
    deps.log.info({ contact_key: c.contact_key, by: adminOf(res).kind }, 'admin console: web sign-in link issued');
    res.setHeader('Cache-Control', 'no-store');
    res.json({ url: link.url, expires_at: link.expiresAt.toISOString() });
  });

  r.post('/revoke', async (req, res) => {
    const body = (req.body ?? {}) as { contact?: unknown; id?: unknown };
    const c = await contactOf(res, str(body.contact));
    if (!c) return;
    const revoked = await revokeWebSessions(deps.db, orgId(), c.contact_key, str(body.id));
    deps.log.info({ contact_key: c.contact_key, revoked, by: adminOf(res).kind }, 'admin console: web sessions revoked');
    res.json({ revoked });
  });
  return r;
}

/** The `websessions` section. */
export const webSessionsSection: AdminSection = {
  id: 'websessions',
  title: { zh: '网页会话', en: 'Web sessions' },
  routes,
};
