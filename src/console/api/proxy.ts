/**
 * Console section `proxy` — admin proxy fill (R-ADM-01..03,
 * R-DEPT-08; docs/console-sections.md "Proxy fill"): an admin picks a role, one of the role's skills and
 * the contact the run is for, fills the input, and the call runs through the same pipeline as a
 * chat turn (`runSkill`, audited, line `chat`, channel `web_admin`).
 *
 * Who "fills in" (the actor):
 * - signed in as a directory contact with `is_admin`: that contact, resolved in its own directory;
 * - signed in with `SKILLGATE_ADMIN_TOKEN`: the built-in operator {@link OPERATOR_KEY}
 *   (`actor_name` "operator", no phone, no e-mail) — there is no directory record behind a token.
 * Either way `actor_is_admin` is true and, before injection, actor_title, actor_department,
 * actor_department_path, actor_position, actor_tags, actor_key, actor_id and actor_emp_no are
 * cleared (R-ADM-01; `actorFieldsFor` … `applyAdminProxyFill`), actor_name / actor_phone /
 * actor_email stay the filler's (R-ADM-02), so every consumer — in-process handlers,
 * `SKILL_CONTEXT` of subprocesses, `call_skill` children, chain steps — sees the cleared values
 * (R-ADM-03). A skill that needs the applicant's title asks for it (R-ADM-04).
 *
 * The contact the run is for supplies the platform keys `user_id` (its contact key), `team_id` and
 * `team_role`, and owns the session (`p_<hash of role and contact>`, one workspace per role and
 * contact). The session is an admin session: `is_admin` true; `chat_mode` true.
 *
 *   GET  skills?role=R    → {role, roles, tools: [{name, description, parameters}]} (the role's
 *                           tools as the model sees them: secret parameters removed)
 *   GET  contacts?role=R&q=TEXT → {contacts: [{contact_key, name, emp_no, department}]} (≤ 50)
 *   POST run {role?, skill, for, input?: object}
 *        → {envelope, display_html, filled_by: {kind, name}, for}; `display_html` is the
 *          envelope's `display_md` rendered and sanitized (renderWebHtml), or null.
 *          400 `unknown_skill` (not a tool of the role), 404 `unknown_contact`.
 */
import { createHash } from 'node:crypto';
import express from 'express';
import { renderWebHtml } from '../../channel/render/web-html.ts';
import { roleSkills, type RoleConfig } from '../../config/file.ts';
import type { RunSkillRequest } from '../../executor/skill-call.ts';
import { callActorOf } from '../../executor/request.ts';
import { actorFieldsFor, emptyActorFields, resolveActor } from '../../identity/resolve.ts';
import { directoryOrgId } from '../../identity/org.ts';
import type { ResolvedActor } from '../../identity/types.ts';
import { adminOf, fail, str, type AdminDeps, type AdminIdentity, type AdminSection } from '../kit.ts';
import { adminOfSafe, pageContacts, requestRole } from './directory.ts';

/** The contact key and `actor_name` of the filler when signed in with the admin token. */
export const OPERATOR_KEY = 'operator';

/** The role's tools as the model sees them (names, descriptions, provider schemas). */
export function roleTools(
  deps: Pick<AdminDeps, 'services' | 'config'>,
  roleId: string,
): { name: string; description: string; parameters: unknown }[] {
  const skills = deps.services.lifecycle?.skillsFor(roleId) ?? roleSkills(deps.config, roleId) ?? '*';
  return deps.services.registry
    .tools({ skills })
    .map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters }));
}

/**
 * The filler as a resolved actor: the signed-in admin contact (from its own directory; it must
 * still be `is_admin` there), or the built-in operator for the admin token.
 * @returns null when the contact is no longer an admin.
 */
export async function fillerOf(deps: Pick<AdminDeps, 'db'>, who: AdminIdentity): Promise<ResolvedActor | null> {
  if (who.kind === 'token') {
    return {
      known: true,
      contactKey: OPERATOR_KEY,
      teamRole: 'member',
      isAdmin: true,
      fields: { ...emptyActorFields(), actor_name: OPERATOR_KEY },
      teamId: '',
      channel: 'web_admin',
      platformIds: [OPERATOR_KEY],
    };
  }
  const actor = await resolveActor(deps.db, {
    orgId: who.orgId,
    roleId: '',
    channel: 'web_admin',
    platformId: who.contactKey,
    nickname: who.name,
  });
  return actor.known && actor.isAdmin ? actor : null;
}

/** The proxy session id of (role, contact): stable, path-safe. */
export function proxySessionId(roleId: string, contactKey: string): string {
  return `p_${createHash('sha256').update(`admin-proxy\u0000${roleId}\u0000${contactKey}`, 'utf8').digest('base64url').slice(0, 24)}`;
}

/**
 * The request of one proxy-fill run: `given` from the filler with admin proxy fill applied
 * (R-ADM-01..03), platform keys from the contact it is for.
 */
export function proxyRequest(
  role: RoleConfig,
  filler: ResolvedActor,
  forContact: ResolvedActor,
  skill: string,
  input: Record<string, unknown>,
): RunSkillRequest {
  const actor = actorFieldsFor(filler, { channel: 'web_admin', actingAsAdmin: true });
  return {
    skill,
    input,
    actor: callActorOf({ ...actor, user_id: forContact.contactKey, team_id: forContact.teamId ?? '' }, forContact.contactKey),
    origin: {
      roleId: role.id,
      orgId: role.org_id,
      channel: 'web_admin',
      rawInput: '',
      chatMode: true,
      allowSql: true,
      isAdmin: true,
      teamRole: forContact.teamRole,
    },
    session: { open: { id: proxySessionId(role.id, forContact.contactKey) } },
    line: 'chat',
    lang: 'zh-CN',
  };
}

/** The `proxy` section. */
export const proxySection: AdminSection = {
  id: 'proxy',
  title: { zh: '代填', en: 'Proxy fill' },
  routes(deps) {
    const r = express.Router();

    r.get('/skills', (req, res) => {
      const role = requestRole(deps, req, res);
      if (!role) return;
      res.json({ role: role.id, roles: deps.config.roles.map((x) => x.id), tools: roleTools(deps, role.id) });
    });

    r.get('/contacts', async (req, res) => {
      const role = requestRole(deps, req, res);
      if (!role) return;
      const page = await pageContacts(deps, directoryOrgId(role.org_id, role.id), {
        q: str(req.query.q)?.slice(0, 200),
        offset: 0,
        limit: 50,
      });
      res.json({
        contacts: page.contacts.map((c) => ({ contact_key: c.contact_key, name: c.name, emp_no: c.emp_no, department: c.department })),
      });
    });

    r.post('/run', async (req, res) => {
      const role = requestRole(deps, req, res);
      if (!role) return;
      const b = (req.body ?? {}) as Record<string, unknown>;
      const skill = str(b.skill) ?? '';
      if (!roleTools(deps, role.id).some((t) => t.name === skill))
        return fail(res, 400, 'unknown_skill', `角色「${role.id}」没有技能「${skill}」。`);
      const input = b.input === undefined || b.input === null ? {} : b.input;
      if (typeof input !== 'object' || Array.isArray(input)) return fail(res, 400, 'bad_input', '输入必须是 JSON 对象。');
      const forKey = str(b.for) ?? '';
      const forContact = forKey
        ? await resolveActor(deps.db, { orgId: role.org_id, roleId: role.id, channel: 'web_admin', platformId: forKey, nickname: '' })
        : undefined;
      if (!forContact?.known) return fail(res, 404, 'unknown_contact', `角色「${role.id}」的通讯录里没有联系人「${forKey}」。`);
      const who = adminOf(res);
      const filler = await fillerOf(deps, who);
      if (!filler) return fail(res, 403, 'not_admin', '当前登录的联系人已不是管理员。');
      deps.log.info({ admin: adminOfSafe(res), role: role.id, skill, for: forContact.contactKey }, 'admin console: proxy fill');
      const envelope = await deps.services.call(proxyRequest(role, filler, forContact, skill, input as Record<string, unknown>));
      const md = typeof envelope.display_md === 'string' ? envelope.display_md : '';
      res.json({
        envelope,
        display_html: md ? renderWebHtml(md) : null,
        filled_by: { kind: who.kind, name: filler.fields.actor_name },
        for: forContact.contactKey,
      });
    });

    return r;
  },
};
