/**
 * Console section `grants` (docs/configuration.md "Data-table grants";
 * R-DT-13..22; docs/console-sections.md "Table grants"): the data tables of one organisation with their grant
 * rows, grant (actions, row scope `own` + owner field) and revoke — the same `runGrantCommand`
 * as `skillgate datatable grant|revoke`. Grants are exceptions: a table without grant rows is
 * open to every role.
 *
 *   GET  tables?org=ORG   → {org, orgs, roles, actions, tables: [{id, title, fields, grants: [Grant]}]}
 *                           (org default: the default role's org; `orgs`: every role's org)
 *   POST grant  {org?, table, role, actions?: string[]|null, row_scope?: 'all'|'own', owner_field?}
 *                         → {grant}; 400 `refused` with the reason (unknown table or action,
 *                           `own` without an owner field that exists…)
 *   POST revoke {org?, table, role} → {ok:true}; 404 `no_grant` when the role had none
 *
 * `table` is a title or a table id.
 */
import express from 'express';
import { runGrantCommand } from '../../admin/grants.ts';
import { DATATABLE_ACTIONS, listGrants, listTables } from '../../datatable/index.ts';
import { defaultRole, fail, str, type AdminDeps, type AdminSection } from '../kit.ts';
import { adminOfSafe } from './directory.ts';

/** The organisations of the configured roles (distinct, in role order). */
export function roleOrgs(deps: Pick<AdminDeps, 'config'>): string[] {
  return [...new Set(deps.config.roles.map((r) => r.org_id))];
}

function orgParam(deps: AdminDeps, v: unknown, res: express.Response): string | undefined {
  const org = str(v) ?? defaultRole(deps).org_id;
  if (!roleOrgs(deps).includes(org)) {
    fail(res, 400, 'unknown_org', `没有组织「${org}」；可选：${roleOrgs(deps).join('、')}`);
    return undefined;
  }
  return org;
}

function actionsParam(v: unknown): string[] | null | undefined | false {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v.split(',');
  if (Array.isArray(v) && v.every((a) => typeof a === 'string')) return v as string[];
  return false;
}

/** The `grants` section. */
export const grantsSection: AdminSection = {
  id: 'grants',
  title: { zh: '数据表授权', en: 'Table grants' },
  routes(deps) {
    const r = express.Router();

    r.get('/tables', async (req, res) => {
      const org = orgParam(deps, req.query.org, res);
      if (org === undefined) return;
      const tables = await listTables(deps.db, org);
      const out = [];
      for (const t of tables)
        out.push({ id: t.id, title: t.title, fields: t.fields.map((f) => f.title), grants: await listGrants(deps.db, t.id) });
      res.json({ org, orgs: roleOrgs(deps), roles: deps.config.roles.map((x) => x.id), actions: DATATABLE_ACTIONS, tables: out });
    });

    r.post('/grant', async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const org = orgParam(deps, body.org, res);
      if (org === undefined) return;
      const table = str(body.table);
      const roleId = str(body.role);
      if (!table || !roleId) return fail(res, 400, 'missing', '请选择数据表和角色。');
      const actions = actionsParam(body.actions);
      if (actions === false) return fail(res, 400, 'bad_actions', 'actions 应为操作名数组。');
      const done = await runGrantCommand(deps.db, {
        op: 'grant',
        orgId: org,
        table,
        roleId,
        actions: actions ?? undefined,
        rowScope: str(body.row_scope),
        ownerField: str(body.owner_field),
      });
      if (!done.ok) return fail(res, 400, 'refused', `授权被拒绝：${done.error}`);
      if (done.op !== 'grant') throw new Error('unexpected grant result');
      deps.log.info({ admin: adminOfSafe(res), org, table: done.table.id, role: roleId }, 'admin console: table grant stored');
      res.json({ table: done.table, grant: done.grant });
    });

    r.post('/revoke', async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const org = orgParam(deps, body.org, res);
      if (org === undefined) return;
      const table = str(body.table);
      const roleId = str(body.role);
      if (!table || !roleId) return fail(res, 400, 'missing', '请选择数据表和角色。');
      const done = await runGrantCommand(deps.db, { op: 'revoke', orgId: org, table, roleId });
      if (!done.ok) return fail(res, 404, 'no_grant', `无法撤销：${done.error}`);
      deps.log.info({ admin: adminOfSafe(res), org, table, role: roleId }, 'admin console: table grant revoked');
      res.json({ ok: true });
    });

    return r;
  },
};
