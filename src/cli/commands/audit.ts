/**
 * `skillgate audit [--role R] [--skill S] [--actor E] [--since ISO] [--limit N] [--json]` —
 * the audit log of skill calls, newest first (docs/audit.md). Works on a
 * server database, on an embedded data dir, and through the running server's local admin
 * API (`POST /api/local/audit`) while `serve` holds the data dir.
 *
 * Exit codes (README.md "The skillgate command"): 0 done (also when nothing matched); 1 a bad option
 * (`--since` not an ISO time, `--limit` not a positive integer); 2 no database.
 */
import { formatInstant } from '../../present/clock.ts';
import type { Db } from '../../store/db.ts';
import { AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT, queryAudit, type AuditRow } from '../../audit/store.ts';
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';

/** What an audit query asks for (also the body of the local admin API route). */
export interface AuditCommandRequest {
  role?: string;
  skill?: string;
  /** actor_emp_no */
  actor?: string;
  /** ISO 8601 instant. */
  since?: string;
  limit?: number | string;
}

/** Result of {@link runAuditQuery}. */
export type AuditCommandResult = { ok: true; entries: AuditRow[] } | { ok: false; error: string };

/** Run one audit query (the CLI's direct path and the local admin API). Never throws for a bad option. */
export async function runAuditQuery(db: Db, req: AuditCommandRequest): Promise<AuditCommandResult> {
  let since: Date | undefined;
  if (req.since !== undefined && req.since !== '') {
    const t = Date.parse(String(req.since));
    if (Number.isNaN(t)) return { ok: false, error: `--since must be an ISO 8601 time (e.g. 2026-01-31T00:00:00Z), got "${req.since}"` };
    since = new Date(t);
  }
  let limit = AUDIT_DEFAULT_LIMIT;
  if (req.limit !== undefined && req.limit !== '') {
    const n = Number(req.limit);
    if (!Number.isInteger(n) || n < 1 || n > AUDIT_MAX_LIMIT) return { ok: false, error: `--limit must be a whole number from 1 to ${AUDIT_MAX_LIMIT}, got "${req.limit}"` };
    limit = n;
  }
  const entries = await queryAudit(db, { roleId: req.role || undefined, skill: req.skill || undefined, actorEmpNo: req.actor || undefined, since, limit });
  return { ok: true, entries };
}

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
  const done = await runAdminCommand<AuditCommandResult>(settings, io, { direct: (db) => runAuditQuery(db, req), path: '/api/local/audit', request: req, json: opts.json });
  if ('exit' in done) return done.exit;
  const result = done.result;
  if (result.entries.length === 0) io.stdout('no audit entries match\n');
  else io.stdout(result.entries.map((r) => formatAuditRow(r) + '\n').join(''));
  return EXIT_OK;
}
