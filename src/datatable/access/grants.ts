/**
 * Table grants storage (R-DT-13..22, docs/configuration.md): rows of
 * `skillgate.dt_grants` — exceptions, not a whitelist. Managed by the operator CLI
 * `skillgate datatable grant|revoke`; read by permissions.ts.
 */
import type { Queryable } from '../../store/db.ts';
import { DATATABLE_ACTIONS, type DatatableAction, type Grant, type RowScope, type TableMeta } from '../model/types.ts';

interface GrantRow {
  table_id: string;
  role_id: string;
  actions: string[] | null;
  row_scope: string;
  owner_field: string | null;
}

function toGrant(r: GrantRow): Grant {
  return {
    tableId: r.table_id,
    roleId: r.role_id,
    actions:
      r.actions === null ? null : (r.actions.filter((a) => (DATATABLE_ACTIONS as readonly string[]).includes(a)) as DatatableAction[]),
    rowScope: r.row_scope === 'own' ? 'own' : 'all',
    ownerField: r.owner_field,
  };
}

/** Every grant row of table `tableId`, ordered by role id. */
export async function listGrants(q: Queryable, tableId: string): Promise<Grant[]> {
  const { rows } = await q.query<GrantRow>(
    `SELECT table_id::text AS table_id, role_id, actions, row_scope, owner_field
       FROM skillgate.dt_grants WHERE table_id = $1::uuid ORDER BY role_id`,
    [tableId],
  );
  return rows.map(toGrant);
}

/** Every grant row of every table of organisation `orgId` (for the SQL channel's own-scope check, D-03). */
export async function listOrgGrants(q: Queryable, orgId: string): Promise<Grant[]> {
  const { rows } = await q.query<GrantRow>(
    `SELECT g.table_id::text AS table_id, g.role_id, g.actions, g.row_scope, g.owner_field
       FROM skillgate.dt_grants g JOIN skillgate.dt_tables t ON t.id = g.table_id
      WHERE t.org_id = $1 ORDER BY g.table_id, g.role_id`,
    [orgId],
  );
  return rows.map(toGrant);
}

/** What {@link grant} is asked to store. */
export interface GrantRequest {
  tableId: string;
  roleId: string;
  /** Allowed actions; null or omitted = every action. */
  actions?: readonly string[] | null;
  /** Default `all`. */
  rowScope?: RowScope;
  /** Required with rowScope `own`: a field of the table holding the owner's employee number. */
  ownerField?: string | null;
}

/** Result of {@link grant} / {@link revoke}: English operator text on refusal. */
export type GrantResult = { ok: true; grant: Grant } | { ok: false; error: string };

/**
 * Validate a grant request against `table` (pure): role id non-empty; actions, when given,
 * non-empty and each one of the 20 canonical actions; `own` needs an owner field that exists on
 * the table (R-DT-19); `all` takes no owner field.
 * @returns the normalised grant (actions de-duplicated, in canonical order) or the problem.
 */
export function validateGrant(table: Pick<TableMeta, 'id' | 'fields'>, req: GrantRequest): GrantResult {
  const roleId = req.roleId?.trim() ?? '';
  if (roleId === '') return { ok: false, error: 'role id is empty' };
  let actions: DatatableAction[] | null = null;
  if (req.actions !== undefined && req.actions !== null) {
    const wanted = req.actions.map((a) => a.trim()).filter((a) => a !== '');
    const unknown = wanted.filter((a) => !(DATATABLE_ACTIONS as readonly string[]).includes(a));
    if (unknown.length > 0) return { ok: false, error: `unknown action(s): ${unknown.join(', ')}; valid: ${DATATABLE_ACTIONS.join(', ')}` };
    if (wanted.length === 0) return { ok: false, error: '--actions is empty; omit it to allow every action' };
    actions = DATATABLE_ACTIONS.filter((a) => wanted.includes(a));
  }
  const rowScope: RowScope = req.rowScope ?? 'all';
  if (rowScope !== 'all' && rowScope !== 'own')
    return { ok: false, error: `row scope must be "all" or "own", got ${JSON.stringify(rowScope)}` };
  let ownerField: string | null = null;
  if (rowScope === 'own') {
    const f = req.ownerField?.trim() ?? '';
    if (f === '') return { ok: false, error: 'row scope "own" needs --owner-field <field holding the employee number>' };
    if (!table.fields.some((x) => x.title === f)) {
      return {
        ok: false,
        error: `owner field "${f}" does not exist on the table; fields: ${table.fields.map((x) => x.title).join(', ') || '(none)'}`,
      };
    }
    ownerField = f;
  } else if (req.ownerField) {
    return { ok: false, error: '--owner-field is only meaningful with --row-scope own' };
  }
  return { ok: true, grant: { tableId: table.id, roleId, actions, rowScope, ownerField } };
}

/**
 * Store (insert or replace) the grant of `req.roleId` on `table` (docs/configuration.md).
 * @returns the stored grant, or the validation problem of {@link validateGrant} (nothing stored).
 */
export async function grant(q: Queryable, table: Pick<TableMeta, 'id' | 'fields'>, req: GrantRequest): Promise<GrantResult> {
  const v = validateGrant(table, req);
  if (!v.ok) return v;
  const g = v.grant;
  await q.query(
    `INSERT INTO skillgate.dt_grants (table_id, role_id, actions, row_scope, owner_field)
     VALUES ($1::uuid, $2, $3::text[], $4, $5)
     ON CONFLICT (table_id, role_id) DO UPDATE
       SET actions = EXCLUDED.actions, row_scope = EXCLUDED.row_scope, owner_field = EXCLUDED.owner_field, updated_at = now()`,
    [g.tableId, g.roleId, g.actions, g.rowScope, g.ownerField],
  );
  return v;
}

/** Remove the grant of `roleId` on table `tableId`. @returns false when there was none. */
export async function revoke(q: Queryable, tableId: string, roleId: string): Promise<boolean> {
  const r = await q.query('DELETE FROM skillgate.dt_grants WHERE table_id = $1::uuid AND role_id = $2', [tableId, roleId]);
  return r.rowCount > 0;
}

/** Point grants whose owner field was renamed at the new title (update_field rename). */
export async function renameOwnerField(q: Queryable, tableId: string, from: string, to: string): Promise<void> {
  await q.query('UPDATE skillgate.dt_grants SET owner_field = $3, updated_at = now() WHERE table_id = $1::uuid AND owner_field = $2', [
    tableId,
    from,
    to,
  ]);
}
