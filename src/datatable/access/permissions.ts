/**
 * Datatable permissions (R-DT-13..27, D-01..D-04, A-26): the effective access
 * of an operator on a table (union over roles, widest row scope), the action check, the
 * structural-role and SQL checks, and the three own-scope enforcement points — filter / id
 * condition injection (R-DT-16/17/22), owner stamping on write (R-DT-18) and the owner-field
 * update guard (R-DT-21). Missing owner field or employee number fail closed (R-DT-19/20).
 */
import type { Queryable } from '../../store/db.ts';
import type { Envelope } from '../../envelope/types.ts';
import type { DatatableAction, DtCaller, EffectiveAccess, Grant, TableMeta } from '../model/types.ts';
import { listGrants, listOrgGrants } from './grants.ts';
import { listTables } from '../catalog/metadata.ts';
import { quoteIdent } from '../model/naming.ts';
import { dtFail, type DtLang } from '../model/results.ts';

/** Full access: what a table without grant rows gives everyone (R-DT-13). */
export const OPEN_ACCESS: EffectiveAccess = Object.freeze({ actions: 'all', rowScope: 'all', ownerField: null }) as EffectiveAccess;

/**
 * The effective access of an operator holding `roleIds` from a table's grant rows (pure):
 * - no grant rows → open (R-DT-13);
 * - one of the operator's roles has no row → open (A-26, R-DT-15);
 * - else the union of the roles' actions (null = all) and the widest row scope: `all` if any
 *   role has `all`, else `own` with the owner fields of every own grant (R-DT-14);
 * - grant rows exist but the operator has no role at all → no action allowed (fail closed).
 */
export function accessFromGrants(grants: readonly Grant[], roleIds: readonly string[]): EffectiveAccess {
  if (grants.length === 0) return OPEN_ACCESS;
  const roles = [...new Set(roleIds.map((r) => r.trim()).filter((r) => r !== ''))];
  if (roles.length === 0) return { actions: new Set<DatatableAction>(), rowScope: 'all', ownerField: null };
  const byRole = new Map(grants.map((g) => [g.roleId, g]));
  if (roles.some((r) => !byRole.has(r))) return OPEN_ACCESS;
  const mine = roles.map((r) => byRole.get(r)!);
  let actions: 'all' | Set<DatatableAction> = new Set<DatatableAction>();
  for (const g of mine) {
    if (g.actions === null) {
      actions = 'all';
      break;
    }
    for (const a of g.actions) actions.add(a);
  }
  if (mine.some((g) => g.rowScope === 'all')) return { actions, rowScope: 'all', ownerField: null };
  const ownerFields = [...new Set(mine.map((g) => g.ownerField ?? ''))];
  return { actions, rowScope: 'own', ownerField: ownerFields[0] ?? '', ownerFields };
}

/**
 * The effective access of the holder of `roleIds` on `table` (R-DT-13..15, A-26), read from
 * `skillgate.dt_grants`; see {@link accessFromGrants}.
 */
export async function effectiveAccess(q: Queryable, table: Pick<TableMeta, 'id'>, roleIds: readonly string[]): Promise<EffectiveAccess> {
  return accessFromGrants(await listGrants(q, table.id), roleIds);
}

/** True when `access` allows `action`. */
export function isActionAllowed(access: EffectiveAccess, action: DatatableAction): boolean {
  return access.actions === 'all' || access.actions.has(action);
}

/**
 * Check an action against the effective access.
 * @returns null when allowed; else a `config`, `non_retriable` failure naming the action and
 *   the table (an administrator has to grant it).
 */
export function checkAction(
  access: EffectiveAccess,
  action: DatatableAction,
  lang: DtLang = 'zh-CN',
  tableTitle?: string,
): Envelope | null {
  if (isActionAllowed(access, action)) return null;
  const onZh = tableTitle ? `对表「${tableTitle}」` : '';
  const onEn = tableTitle ? ` on "${tableTitle}"` : '';
  return dtFail(
    'config',
    {
      zh: `当前角色无权${onZh}进行「${ACTION_LABEL_ZH[action]}」操作，请联系管理员授权`,
      en: `the current role may not run ${action}${onEn}; ask an administrator for a grant`,
    },
    lang,
    { non_retriable: true, permission_denied: true, denied_action: action },
  );
}

/** Chinese names of the 20 actions for zh user messages (the canonical name stays in `error` / `denied_action`). */
export const ACTION_LABEL_ZH: Readonly<Record<DatatableAction, string>> = {
  list_tables: '列出数据表',
  list_columns: '查看字段',
  query: '查询',
  aggregate: '统计',
  insert: '新增记录',
  insert_batch: '批量新增',
  insert_from_file: '从文件导入',
  upsert: '新增或更新',
  update: '修改记录',
  update_by: '按条件修改',
  delete: '删除记录',
  delete_batch: '批量删除',
  delete_by: '按条件删除',
  sql_query: 'SQL 查询',
  sql_execute: 'SQL 执行',
  create_table: '建表',
  add_field: '添加字段',
  update_field: '修改字段',
  delete_field: '删除字段',
  delete_table: '删除数据表',
};

/** Options of {@link checkStructuralRole}. */
export interface StructuralRoleOptions {
  /** D-01 switch `datatable.enforceStructuralRoles` (default true; false only for migration). */
  enforce?: boolean;
}

/**
 * Structural actions (create_table, add_field, update_field, delete_field, delete_table, and
 * DDL through sql_execute — D-02) need `team_role` owner or admin (R-DT-25, D-01).
 * @returns null when allowed (or the switch is off); else a `config`, `non_retriable` failure.
 */
export function checkStructuralRole(caller: Pick<DtCaller, 'teamRole' | 'lang'>, opts: StructuralRoleOptions = {}): Envelope | null {
  if (opts.enforce === false) return null;
  if (caller.teamRole === 'owner' || caller.teamRole === 'admin') return null;
  return dtFail(
    'config',
    {
      zh: '建表、改字段、删表等结构操作需要团队负责人或管理员身份，请联系管理员操作',
      en: 'structural actions (create/alter/drop tables and fields) need team_role owner or admin',
    },
    caller.lang,
    { non_retriable: true, permission_denied: true },
  );
}

/**
 * The tables of organisation `orgId` on which the holder of `roleIds` has row scope `own`
 * (for D-03: such an operator is refused the SQL channel).
 */
export async function ownScopedTables(
  q: Queryable,
  orgId: string,
  roleIds: readonly string[],
): Promise<Array<{ id: string; title: string }>> {
  const grants = await listOrgGrants(q, orgId);
  if (grants.length === 0) return [];
  const byTable = new Map<string, Grant[]>();
  for (const g of grants) byTable.set(g.tableId, [...(byTable.get(g.tableId) ?? []), g]);
  const own = [...byTable].filter(([, gs]) => accessFromGrants(gs, roleIds).rowScope === 'own').map(([id]) => id);
  if (own.length === 0) return [];
  const titles = new Map((await listTables(q, orgId)).map((t) => [t.id, t.title]));
  return own.map((id) => ({ id, title: titles.get(id) ?? id }));
}

/**
 * The SQL channel's permission (R-DT-26, D-03, D-04, R-DT-23): `allow_sql` must be true AND
 * the operator may have no own-scope table in the organisation (a raw SELECT would bypass row
 * isolation).
 * @returns null when allowed; else a `config`, `non_retriable` failure.
 */
export async function checkSqlAccess(
  q: Queryable,
  caller: Pick<DtCaller, 'allowSql' | 'orgId' | 'roleIds' | 'lang'>,
): Promise<Envelope | null> {
  if (!caller.allowSql) {
    return dtFail(
      'config',
      {
        zh: '当前线路未开放 SQL 通道，请改用查询、统计等结构化操作',
        en: 'the SQL channel is off on this line (allow_sql=false); use the structured actions',
      },
      caller.lang,
      {
        non_retriable: true,
        permission_denied: true,
      },
    );
  }
  const own = await ownScopedTables(q, caller.orgId, caller.roleIds);
  if (own.length === 0) return null;
  return dtFail(
    'config',
    {
      zh: `当前角色在表 ${own.map((t) => `「${t.title}」`).join('、')} 上只能看自己的数据，因此不能使用 SQL 通道，请改用查询、统计等结构化操作`,
      en: `the current role has own-row scope on ${own.map((t) => `"${t.title}"`).join(', ')}, so the SQL channel is refused; use query / aggregate`,
    },
    caller.lang,
    { non_retriable: true, permission_denied: true },
  );
}

/** The own-scope condition of one call: the owner fields and the operator's employee number. */
export interface OwnerScope {
  /** The owner field (first of `fields`). */
  field: string;
  /** Every owner field of the operator's own grants (rows owned through any of them are visible). */
  fields: string[];
  /** The operator's employee number (actor_emp_no). */
  empNo: string;
}

/** Result of {@link ownFilter}: no restriction, an owner condition, or a fail-closed refusal. */
export type OwnScopeResult = { ok: true; owner: OwnerScope | null } | { ok: false; envelope: Envelope };

/**
 * Resolve row scope `own` for one call (R-DT-16/17/19/20/22, R-DT-24):
 * - scope `all` → `{ok:true, owner:null}`;
 * - an owner field missing from the table → refused, `config`, non_retriable (R-DT-19);
 * - no employee number (`caller.empNo` empty: actor_emp_no, never input) → refused (R-DT-20);
 * - else the {@link OwnerScope}; turn it into SQL with {@link ownerCondition} and AND it onto
 *   every filter, id condition and count (query, aggregate, update_by, delete_by, update,
 *   delete, delete_batch, verified_total).
 */
export function ownFilter(
  access: EffectiveAccess,
  caller: Pick<DtCaller, 'empNo' | 'lang'>,
  table: Pick<TableMeta, 'title' | 'fields'>,
): OwnScopeResult {
  if (access.rowScope !== 'own') return { ok: true, owner: null };
  const lang = caller.lang;
  const fields = access.ownerFields && access.ownerFields.length > 0 ? [...access.ownerFields] : [access.ownerField ?? ''];
  const missing = fields.filter((f) => f === '' || !table.fields.some((x) => x.title === f));
  if (missing.length > 0) {
    return {
      ok: false,
      envelope: dtFail(
        'config',
        {
          zh: `表「${table.title}」按「只看自己的数据」授权，但归属字段「${missing.join('、')}」不存在，已拒绝操作。请管理员修正授权`,
          en: `table "${table.title}" has own-row scope but its owner field "${missing.join('", "')}" does not exist; refused (fix the grant)`,
        },
        lang,
        { non_retriable: true },
      ),
    };
  }
  const empNo = (caller.empNo ?? '').trim();
  if (empNo === '') {
    return {
      ok: false,
      envelope: dtFail(
        'config',
        {
          zh: `表「${table.title}」只允许操作自己的数据，但取不到当前操作人的工号，已拒绝操作。请在通讯录中为该用户登记工号`,
          en: `table "${table.title}" has own-row scope and the operator's employee number (actor_emp_no) is unknown; refused`,
        },
        lang,
        { non_retriable: true },
      ),
    };
  }
  return { ok: true, owner: { field: fields[0]!, fields, empNo } };
}

/**
 * The SQL condition of an owner scope: `("负责人工号"::text = $n)` — OR over several owner
 * fields — with the employee number as the one parameter `$<nextParam>`.
 * @param qualifier optional table alias prefix (already quoted), e.g. `t`.
 */
export function ownerCondition(owner: OwnerScope, nextParam: number, qualifier?: string): { sql: string; values: unknown[] } {
  const prefix = qualifier ? `${qualifier}.` : '';
  const parts = owner.fields.map((f) => `${prefix}${quoteIdent(f)}::text = $${nextParam}`);
  return { sql: `(${parts.join(' OR ')})`, values: [owner.empNo] };
}

/** Result of {@link stampOwner}. */
export type StampResult = { ok: true; record: Record<string, unknown> } | { ok: false; envelope: Envelope };

/**
 * Stamp the owner fields of a record to be inserted with the operator's employee number
 * (R-DT-18): a forged owner value in the input is overwritten. Call it on the raw data before
 * coerceRecord so the stamped value is validated like any other. Scope `all` returns the
 * record unchanged; failures as {@link ownFilter}.
 */
export function stampOwner(
  record: Record<string, unknown>,
  access: EffectiveAccess,
  caller: Pick<DtCaller, 'empNo' | 'lang'>,
  table: Pick<TableMeta, 'title' | 'fields'>,
): StampResult {
  const scope = ownFilter(access, caller, table);
  if (!scope.ok) return scope;
  if (!scope.owner) return { ok: true, record };
  const out = { ...record };
  for (const f of scope.owner.fields) out[f] = scope.owner.empNo;
  return { ok: true, record: out };
}

/**
 * Refuse an update whose patch changes an owner field (R-DT-21). A patch repeating the
 * operator's own employee number unchanged is allowed.
 * @returns null when allowed; else a recoverable failure naming the field.
 */
export function guardOwnerPatch(
  patch: Record<string, unknown>,
  access: EffectiveAccess,
  caller: Pick<DtCaller, 'empNo' | 'lang'>,
): Envelope | null {
  if (access.rowScope !== 'own') return null;
  const fields = access.ownerFields && access.ownerFields.length > 0 ? access.ownerFields : [access.ownerField ?? ''];
  for (const f of fields) {
    if (!Object.hasOwn(patch, f)) continue;
    if (String(patch[f] ?? '').trim() === (caller.empNo ?? '').trim() && caller.empNo) continue;
    return dtFail('recoverable', { zh: `归属字段「${f}」不能被修改`, en: `the owner field "${f}" cannot be changed` }, caller.lang, {
      need_param: 'data',
    });
  }
  return null;
}
