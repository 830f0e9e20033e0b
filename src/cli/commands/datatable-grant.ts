/**
 * `skillgate datatable grant|revoke|grants <table> …` — table grants of the built-in datatable
 * skill (docs/configuration.md; R-DT-13..22). `<table>` is a title or a table id in
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
import type { Grant } from '../../datatable/index.ts';
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';
import { type GrantCommandRequest, type GrantCommandResult, runGrantCommand } from '../../admin/grants.ts';

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
  const done = await runAdminCommand<GrantCommandResult>(settings, io, {
    direct: (db) => runGrantCommand(db, req),
    path: '/api/local/datatable/grant',
    request: req,
    json: opts.json,
  });
  if ('exit' in done) return done.exit;
  const result = done.result;
  if (result.op === 'grant') io.stdout(`granted on ${result.table.title} (${result.table.id}): ${describe(result.grant)}\n`);
  else if (result.op === 'revoke') io.stdout(`revoked the grant of role ${result.roleId} on ${result.table.title} (${result.table.id})\n`);
  else if (result.grants.length === 0) io.stdout(`${result.table.title} (${result.table.id}): no grants — open to every role\n`);
  else io.stdout(`${result.table.title} (${result.table.id}):\n${result.grants.map((g) => `  ${describe(g)}\n`).join('')}`);
  return EXIT_OK;
}
