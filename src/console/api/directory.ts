/**
 * Console section `directory` (docs/configuration.md "Directory import"; docs/console-sections.md
 * "Directory"): the contacts and the department tree of one role's directory, and an import of a
 * CSV or JSON file (the same `importDirectory` as `skillgate directory import`).
 *
 *   GET  contacts?role=R&q=TEXT&offset=N&limit=N
 *        → {role, roles, org_id, total, offset, limit, contacts: [ContactView]} — `q` matches (case-
 *          insensitive substring) contact key, name, emp_no, department, phone, email; phone and
 *          email are shown (the viewer is an admin); limit 1..200 (default 50).
 *   GET  departments?role=R
 *        → {role, org_id, departments: [{id, name, path, parent_id, disabled, contacts}]}, by path.
 *   POST import {role?, format: 'csv'|'json', data: <file text>}
 *        → {report: ImportReport} — every refused row in `report.errors` with row, column, message;
 *          400 `bad_file` when the file as a whole cannot be read.
 *
 * The directory org is `directoryOrgId(role.org_id, role.id)` (R-ORG-02).
 */
import express from 'express';
import { CONTACT_COLUMNS, toContact, type ContactRow } from '../../identity/contacts.ts';
import { DirectoryFormatError, importDirectory } from '../../identity/import.ts';
import { directoryOrgId } from '../../identity/org.ts';
import type { Contact } from '../../identity/types.ts';
import type { RoleConfig } from '../../config/file.ts';
import { defaultRole, fail, roleOf, str, type AdminDeps, type AdminSection } from '../kit.ts';

/** Largest page of contacts. */
export const MAX_PAGE = 200;

/** One contact as the console shows it (snake_case, the directory file's column names). */
export interface ContactView {
  contact_key: string;
  name: string;
  emp_no: string;
  department: string;
  position: string;
  title: string;
  phone: string;
  email: string;
  tags: string[];
  team: string;
  team_role: string;
  is_admin: boolean;
  /** Platform ids per channel (`telegram`, `feishu`…). */
  channel_ids: Record<string, string[]>;
}

function view(c: Contact): ContactView {
  return {
    contact_key: c.contactKey,
    name: c.name,
    emp_no: c.empNo,
    department: c.department,
    position: c.position,
    title: c.title,
    phone: c.phone,
    email: c.email,
    tags: c.tags,
    team: c.team,
    team_role: c.teamRole,
    is_admin: c.isAdmin,
    channel_ids: c.channelIds,
  };
}

/** A non-negative integer from a query value, clamped to `[min, max]`; `dflt` when absent or not a number. */
export function intParam(v: unknown, dflt: number, min: number, max: number): number {
  const n = typeof v === 'string' && /^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : dflt;
  return Math.min(max, Math.max(min, n));
}

/**
 * The role a request names (`role` in the query or body), else the default role.
 * Sends 400 `unknown_role` and returns undefined when it names an unknown role.
 */
export function requestRole(deps: AdminDeps, req: express.Request, res: express.Response): RoleConfig | undefined {
  const asked = str((req.query as Record<string, unknown>).role) ?? str((req.body as Record<string, unknown> | undefined)?.role);
  if (asked === undefined) return defaultRole(deps);
  const role = roleOf(deps, asked);
  if (!role) fail(res, 400, 'unknown_role', `没有角色「${asked}」；可选：${deps.config.roles.map((r) => r.id).join('、')}`);
  return role;
}

/** One page of contacts of `orgId` matching `q` (case-insensitive substring), with platform ids. */
export async function pageContacts(
  deps: Pick<AdminDeps, 'db'>,
  orgId: string,
  opts: { q?: string; offset: number; limit: number },
): Promise<{ total: number; contacts: ContactView[] }> {
  const q = opts.q ?? '';
  const where = `c.org_id = $1 AND ($2 = '' OR strpos(lower(c.contact_key || ' ' || c.name || ' ' || c.emp_no || ' ' || c.department || ' ' || c.phone || ' ' || c.email), lower($2)) > 0)`;
  const total = await deps.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM skillgate.contacts c WHERE ${where}`, [orgId, q]);
  const { rows } = await deps.db.query<ContactRow>(
    `SELECT ${CONTACT_COLUMNS} FROM skillgate.contacts c WHERE ${where} ORDER BY c.contact_key COLLATE "C" LIMIT $3 OFFSET $4`,
    [orgId, q, opts.limit, opts.offset],
  );
  const keys = rows.map((r) => r.contact_key);
  const ids = keys.length
    ? await deps.db.query<{ contact_key: string; channel: string; platform_id: string }>(
        `SELECT contact_key, channel, platform_id FROM skillgate.contact_channel_ids
          WHERE org_id = $1 AND contact_key = ANY($2::text[]) ORDER BY channel COLLATE "C", platform_id COLLATE "C"`,
        [orgId, keys],
      )
    : { rows: [] };
  return {
    total: Number(total.rows[0]?.n ?? 0),
    contacts: rows.map((r) =>
      view(
        toContact(
          r,
          ids.rows.filter((i) => i.contact_key === r.contact_key),
        ),
      ),
    ),
  };
}

/** The `directory` section. */
export const directorySection: AdminSection = {
  id: 'directory',
  title: { zh: '通讯录', en: 'Directory' },
  routes(deps) {
    const r = express.Router();

    r.get('/contacts', async (req, res) => {
      const role = requestRole(deps, req, res);
      if (!role) return;
      const orgId = directoryOrgId(role.org_id, role.id);
      const offset = intParam(req.query.offset, 0, 0, 1_000_000_000);
      const limit = intParam(req.query.limit, 50, 1, MAX_PAGE);
      const q = str(req.query.q)?.slice(0, 200);
      const page = await pageContacts(deps, orgId, { q, offset, limit });
      res.json({ role: role.id, roles: deps.config.roles.map((x) => x.id), org_id: orgId, offset, limit, ...page });
    });

    r.get('/departments', async (req, res) => {
      const role = requestRole(deps, req, res);
      if (!role) return;
      const orgId = directoryOrgId(role.org_id, role.id);
      const { rows } = await deps.db.query<{
        id: string;
        name: string;
        path: string;
        parent_id: string | null;
        disabled: boolean;
        contacts: string;
      }>(
        `SELECT d.id::text AS id, d.name, d.path, d.parent_id::text AS parent_id, d.disabled,
                (SELECT count(*) FROM skillgate.contacts c WHERE c.org_id = d.org_id AND c.department_id = d.id)::text AS contacts
           FROM skillgate.departments d WHERE d.org_id = $1 ORDER BY d.path COLLATE "C"`,
        [orgId],
      );
      res.json({ role: role.id, org_id: orgId, departments: rows.map((d) => ({ ...d, contacts: Number(d.contacts) })) });
    });

    r.post('/import', async (req, res) => {
      const role = requestRole(deps, req, res);
      if (!role) return;
      const body = (req.body ?? {}) as Record<string, unknown>;
      const format = body.format === 'json' ? 'json' : body.format === 'csv' ? 'csv' : undefined;
      if (!format) return fail(res, 400, 'bad_format', '请选择文件格式：csv 或 json。');
      if (typeof body.data !== 'string' || body.data.trim() === '') return fail(res, 400, 'empty_file', '文件是空的。');
      try {
        const report = await importDirectory(deps.db, {
          orgId: role.org_id,
          roleId: role.id,
          data: body.data,
          format,
          lang: body.lang === 'en' ? 'en' : 'zh-CN',
          channels: deps.channels,
        });
        const a = adminOfSafe(res);
        deps.log.info(
          {
            admin: a,
            org: report.orgId,
            inserted: report.contacts.inserted,
            updated: report.contacts.updated,
            refused: report.errors.length,
          },
          'admin console: directory imported',
        );
        res.json({ report });
      } catch (err) {
        if (err instanceof DirectoryFormatError) return fail(res, 400, 'bad_file', `文件无法读取：${err.message}`);
        throw err;
      }
    });

    return r;
  },
};

/** Who did it, for a log line (the contact key or `token`); never a credential. */
export function adminOfSafe(res: express.Response): string {
  const a = res.locals.admin as { kind: string; contactKey?: string } | undefined;
  return a?.kind === 'contact' ? `contact:${a.contactKey}` : (a?.kind ?? 'unknown');
}
