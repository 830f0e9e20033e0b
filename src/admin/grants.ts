/** Table grants of the built-in datatable skill: grant, revoke, list (docs/datatable.md). */
import type { Db } from '../store/db.ts';
import {
  findTableByTitle,
  getTable,
  grant,
  isUuid,
  listGrants,
  listTables,
  revoke,
  type Grant,
  type GrantRequest,
  type RowScope,
  type TableMeta,
} from '../datatable/index.ts';

/** What a datatable grant command asks for (also the body of the local admin API route). */
export interface GrantCommandRequest {
  op: 'grant' | 'revoke' | 'list';
  orgId: string;
  /** Title or id. */
  table: string;
  roleId?: string;
  /** Comma-separated list or array; absent = every action. */
  actions?: string | string[];
  rowScope?: string;
  ownerField?: string;
}

/** Result of {@link runGrantCommand}. */
export type GrantCommandResult =
  | { ok: true; op: 'grant'; table: { id: string; title: string }; grant: Grant }
  | { ok: true; op: 'revoke'; table: { id: string; title: string }; roleId: string }
  | { ok: true; op: 'list'; table: { id: string; title: string }; grants: Grant[] }
  | { ok: false; error: string };

async function findTable(db: Db, orgId: string, ref: string): Promise<TableMeta | null> {
  if (isUuid(ref)) {
    const byId = await getTable(db, orgId, ref.toLowerCase());
    if (byId) return byId;
  }
  return findTableByTitle(db, orgId, ref);
}

/**
 * Run one grant/revoke/list request against the database (the CLI's direct path; the running
 * server's local admin API can mount the same function). Never throws for a user mistake.
 */
export async function runGrantCommand(db: Db, req: GrantCommandRequest): Promise<GrantCommandResult> {
  const ref = req.table.trim();
  const table = await findTable(db, req.orgId, ref);
  if (!table) {
    const titles = (await listTables(db, req.orgId)).map((t) => t.title);
    return { ok: false, error: `no table "${ref}" in org "${req.orgId}"; tables: ${titles.join(', ') || '(none)'}` };
  }
  const t = { id: table.id, title: table.title };
  if (req.op === 'list') return { ok: true, op: 'list', table: t, grants: await listGrants(db, table.id) };
  const roleId = req.roleId?.trim() ?? '';
  if (roleId === '') return { ok: false, error: '--role is required' };
  if (req.op === 'revoke') {
    const removed = await revoke(db, table.id, roleId);
    return removed
      ? { ok: true, op: 'revoke', table: t, roleId }
      : { ok: false, error: `role "${roleId}" has no grant on "${table.title}"` };
  }
  const actions = typeof req.actions === 'string' ? req.actions.split(',') : req.actions;
  const request: GrantRequest = {
    tableId: table.id,
    roleId,
    actions: actions ?? null,
    rowScope: (req.rowScope?.trim() || 'all') as RowScope,
    ownerField: req.ownerField ?? null,
  };
  const r = await grant(db, table, request);
  return r.ok ? { ok: true, op: 'grant', table: t, grant: r.grant } : { ok: false, error: r.error };
}
