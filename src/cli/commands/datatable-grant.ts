/**
 * `skillgate datatable grant|revoke|grants <table> …` — table grants of the built-in datatable
 * skill (docs/configuration.md; spec 000 §7.2; R-DT-13..22). `<table>` is a title or a table id in
 * the organisation `--org` (default `SKILLGATE_ORG_ID`). Grants are exceptions: a table with
 * no grant rows is open to every role.
 *
 *   skillgate datatable grant 客户 --role sales --actions query,insert --row-scope own --owner-field 负责人工号
 *   skillgate datatable revoke 客户 --role sales
 *   skillgate datatable grants 客户 [--json]
 *
 * Exit codes (README.md "The skillgate command"): 0 done; 1 refused (unknown table, invalid grant, nothing to
 * revoke); 2 the database could not be reached.
 */
import type { Db } from '../../store/db.ts';
import { findTableByTitle, getTable, listTables } from '../../datatable/metadata.ts';
import { grant, listGrants, revoke, type GrantRequest } from '../../datatable/grants.ts';
import { isUuid } from '../../datatable/naming.ts';
import type { Grant, RowScope, TableMeta } from '../../datatable/types.ts';
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';

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
    return removed ? { ok: true, op: 'revoke', table: t, roleId } : { ok: false, error: `role "${roleId}" has no grant on "${table.title}"` };
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

function describe(g: Grant): string {
  const actions = g.actions === null ? 'all actions' : `actions ${g.actions.join(',')}`;
  const scope = g.rowScope === 'own' ? `row scope own (owner field ${g.ownerField})` : 'row scope all';
  return `role ${g.roleId}: ${actions}; ${scope}`;
}

/**
 * Run `datatable grant|revoke|grants` with commander's parsed options.
 * @returns 0 done, 1 refused; throws CliError (exit 2) when the database cannot be reached.
 */
export async function datatableGrantCommand(
  op: GrantCommandRequest['op'],
  table: string,
  opts: { role?: string; actions?: string; rowScope?: string; ownerField?: string; org?: string; json?: boolean },
  io: CliIO,
): Promise<number> {
  const settings = configSettings();
  const req: GrantCommandRequest = {
    op,
    orgId: opts.org?.trim() || settings.orgId,
    table,
    roleId: opts.role,
    actions: opts.actions,
    rowScope: opts.rowScope,
    ownerField: opts.ownerField,
  };
  const done = await runAdminCommand<GrantCommandResult>(settings, io, { direct: (db) => runGrantCommand(db, req), path: '/api/local/datatable/grant', request: req, json: opts.json });
  if ('exit' in done) return done.exit;
  const result = done.result;
  if (result.op === 'grant') io.stdout(`granted on ${result.table.title} (${result.table.id}): ${describe(result.grant)}\n`);
  else if (result.op === 'revoke') io.stdout(`revoked the grant of role ${result.roleId} on ${result.table.title} (${result.table.id})\n`);
  else if (result.grants.length === 0) io.stdout(`${result.table.title} (${result.table.id}): no grants — open to every role\n`);
  else io.stdout(`${result.table.title} (${result.table.id}):\n${result.grants.map((g) => `  ${describe(g)}\n`).join('')}`);
  return EXIT_OK;
}
