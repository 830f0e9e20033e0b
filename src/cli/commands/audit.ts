/**
 * `skillgate audit [--role R] [--skill S] [--actor E] [--since ISO] [--limit N] [--json]` —
 * the audit log of skill calls, newest first (docs/audit.md). Works on a
 * server database, on an embedded data dir, and through the running server's local admin
 * API (`POST /api/local/audit`) while `serve` holds the data dir.
 *
 * Exit codes (README.md "The skillgate command"): 0 done (also when nothing matched); 1 a bad option
 * (`--since` not an ISO time, `--limit` not a positive integer); 2 no database.
 */
import type { AuditRow } from '../../audit/store.ts';
import { formatInstant } from '../../present/clock.ts';
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';
import { type AuditCommandRequest, type AuditCommandResult, runAuditQuery } from '../../admin/audit.ts';

/** One line of the text listing. */
export function formatAuditRow(r: AuditRow): string {
  const actor = r.actorEmpNo ? `${r.actorEmpNo}${r.actorName ? ` ${r.actorName}` : ''}` : r.actorName || '-';
  const target = r.action ? `${r.skill}.${r.action}` : r.skill;
  const outcome = r.success ? 'ok' : `error:${r.errorType ?? 'error'}`;
  const confirm = r.confirmTokenHash ? ' confirmed' : '';
  return `${formatInstant(new Date(r.at))}  ${r.roleId}  ${r.channel || '-'}/${r.line}  ${actor}  ${target}  ${outcome}  ${r.durationMs}ms  params=${r.paramsHash.slice(0, 12)}${confirm}`;
}

/**
 * Run `skillgate audit` with commander's parsed options.
 * @returns 0 done, 1 a bad option; throws CliError (exit 2) when the database cannot be reached.
 */
export async function auditCommand(opts: AuditCommandRequest & { json?: boolean }, io: CliIO): Promise<number> {
  const settings = configSettings();
  const req: AuditCommandRequest = { role: opts.role, skill: opts.skill, actor: opts.actor, since: opts.since, limit: opts.limit };
  const done = await runAdminCommand<AuditCommandResult>(settings, io, {
    direct: (db) => runAuditQuery(db, req),
    path: '/api/local/audit',
    request: req,
    json: opts.json,
  });
  if ('exit' in done) return done.exit;
  const result = done.result;
  if (result.entries.length === 0) io.stdout('no audit entries match\n');
  else io.stdout(result.entries.map((r) => formatAuditRow(r) + '\n').join(''));
  return EXIT_OK;
}
