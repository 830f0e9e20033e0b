/**
 * Console section `tables` (docs/console.md "Table browser"): a read-only, paged view of the
 * data tables of one organisation. Rows are read through the datatable entry (`runDatatable`,
 * action `query`) with the signed-in admin as the caller — the chosen role's grants and row
 * scope apply exactly as in a chat; the console never writes SQL of its own. Cells are written
 * the way the datatable's `display_md` writes them (src/present/, `tableOptions`), instants in
 * the role's time zone.
 *
 *   GET ?org=&role=&lang=        → {org, orgs, role, roles, tables: [{id, title}]}
 *   GET rows?org=&role=&table=<id>&page=<0…>&page_size=<1…100>&lang=
 *        → {table: {id, title}, columns: string[], rows: [{cells: [{text, full?}]}],
 *           page, page_size, total, has_more}
 *
 * `role` (default: the default role when it is in `org`, else the org's first role) is the
 * role the admin reads as; `lang=en` answers in English, else zh-CN. Errors `{error, code}`:
 * 400 unknown_org / unknown_role / bad_page / bad_page_size, 404 unknown_table,
 * 403 not_admin / denied (the datatable refused: no grant, own scope without an employee number).
 */
import express from 'express';
import type { RoleConfig } from '../../config/file.ts';
import { roleTimeZone } from '../../config/file.ts';
import { listTables, runDatatable, tableOptions } from '../../datatable/index.ts';
import { CONTEXT_TIME_ZONE_KEY } from '../../present/clock.ts';
import { cutText, plainValue } from '../../present/cells.ts';
import { columnHint, tableColumns } from '../../present/table.ts';
import type { Tx } from '../../store/db.ts';
import { adminOf, defaultRole, fail, str, type AdminDeps, type AdminSection } from '../kit.ts';
import { roleOrgs } from './grants.ts';
import { fillerOf } from './proxy.ts';

/** Rows per page when none is asked for, and the most one page may hold. */
export const TABLE_PAGE = { default: 50, max: 100 } as const;
/** Longest cell text in graphemes (as the datatable's display cuts); the full text goes along as `full`. */
export const TABLE_CELL_CHARS = 40;

type Lang = 'zh-CN' | 'en';
const say = (lang: Lang, zh: string, en: string): string => (lang === 'en' ? en : zh);

interface Scope {
  org: string;
  role: RoleConfig;
  lang: Lang;
}

/** The org, role and language of a request; undefined after sending a 400. */
function scopeOf(deps: AdminDeps, req: express.Request, res: express.Response): Scope | undefined {
  const lang: Lang = str(req.query.lang) === 'en' ? 'en' : 'zh-CN';
  const orgs = roleOrgs(deps);
  const org = str(req.query.org) ?? defaultRole(deps).org_id;
  if (!orgs.includes(org)) {
    fail(
      res,
      400,
      'unknown_org',
      say(lang, `没有组织「${org}」；可选：${orgs.join('、')}`, `No organisation "${org}"; one of: ${orgs.join(', ')}`),
    );
    return undefined;
  }
  const inOrg = deps.config.roles.filter((r) => r.org_id === org);
  const asked = str(req.query.role);
  const role = asked ? inOrg.find((r) => r.id === asked) : (inOrg.find((r) => r.id === deps.defaultRoleId) ?? inOrg[0]);
  if (!role) {
    const ids = inOrg.map((r) => r.id);
    fail(
      res,
      400,
      'unknown_role',
      say(
        lang,
        `组织「${org}」没有角色「${asked}」；可选：${ids.join('、')}`,
        `Organisation "${org}" has no role "${asked}"; one of: ${ids.join(', ')}`,
      ),
    );
    return undefined;
  }
  return { org, role, lang };
}

/** A non-negative integer query value, `dflt` when absent, NaN when not one. */
function intQuery(v: unknown, dflt: number): number {
  const s = str(v);
  if (s === undefined) return dflt;
  return /^\d{1,9}$/.test(s) ? Number(s) : Number.NaN;
}

function routes(deps: AdminDeps): express.Router {
  const r = express.Router();

  r.get('/', async (req, res) => {
    const scope = scopeOf(deps, req, res);
    if (!scope) return;
    const tables = await listTables(deps.db, scope.org);
    res.json({
      org: scope.org,
      orgs: roleOrgs(deps),
      role: scope.role.id,
      roles: deps.config.roles.filter((x) => x.org_id === scope.org).map((x) => x.id),
      tables: tables.map((t) => ({ id: t.id, title: t.title })),
    });
  });

  r.get('/rows', async (req, res) => {
    const scope = scopeOf(deps, req, res);
    if (!scope) return;
    const { org, role, lang } = scope;
    const page = intQuery(req.query.page, 0);
    if (!Number.isInteger(page))
      return fail(res, 400, 'bad_page', say(lang, 'page 必须是非负整数。', 'page must be a non-negative integer.'));
    const pageSize = intQuery(req.query.page_size, TABLE_PAGE.default);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > TABLE_PAGE.max)
      return fail(
        res,
        400,
        'bad_page_size',
        say(lang, `page_size 必须是 1 到 ${TABLE_PAGE.max} 的整数。`, `page_size must be an integer from 1 to ${TABLE_PAGE.max}.`),
      );
    const tableId = str(req.query.table) ?? '';
    const table = (await listTables(deps.db, org)).find((t) => t.id === tableId);
    if (!table)
      return fail(res, 404, 'unknown_table', say(lang, `组织「${org}」没有这张数据表。`, `Organisation "${org}" has no such data table.`));
    const filler = await fillerOf(deps, adminOf(res));
    if (!filler)
      return fail(res, 403, 'not_admin', say(lang, '当前登录的联系人已不是管理员。', 'The signed-in contact is no longer an admin.'));
    const timeZone = roleTimeZone(deps.config, role.id);
    const env = await runDatatable(
      { action: 'query', payload: { table_id: table.id, limit: pageSize, offset: page * pageSize } },
      {
        org_id: org,
        role_id: role.id,
        actor_emp_no: filler.fields.actor_emp_no ?? '',
        is_admin: true,
        team_role: filler.teamRole,
        channel: 'web_admin',
        allow_sql: false,
        lang,
        [CONTEXT_TIME_ZONE_KEY]: timeZone,
        db: deps.db,
        db_factory: (fn: (tx: Tx) => Promise<unknown>) => deps.db.transaction(fn),
      },
      { log: deps.log },
    );
    if (env.success === false) {
      const text = typeof env.user_message === 'string' ? env.user_message : String(env.error ?? '');
      return fail(res, 403, 'denied', say(lang, `无法读取「${table.title}」：${text}`, `Cannot read "${table.title}": ${text}`));
    }
    const list = (Array.isArray(env.list) ? env.list : []) as Record<string, unknown>[];
    const info = (env.pageInfo ?? {}) as { totalRows?: number; hasMore?: boolean };
    const opts = tableOptions(table, lang, timeZone);
    const columns = tableColumns(list.length ? list : [Object.fromEntries((opts.columns ?? []).map((c) => [c, null]))], opts.columns);
    res.json({
      table: { id: table.id, title: table.title },
      columns,
      rows: list.map((row) => ({
        cells: columns.map((c) => {
          const full = plainValue(row[c], columnHint(opts, c), opts);
          const text = cutText(full, TABLE_CELL_CHARS);
          return text === full ? { text } : { text, full };
        }),
      })),
      page,
      page_size: pageSize,
      total: info.totalRows ?? list.length,
      has_more: info.hasMore === true,
    });
  });

  return r;
}

/** The `tables` section. */
export const tablesSection: AdminSection = {
  id: 'tables',
  title: { zh: '数据表浏览', en: 'Table browser' },
  routes,
};
