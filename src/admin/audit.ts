/** The audit query behind `skillgate audit`, the local admin API and the console (docs/audit.md). */
import type { Db } from '../store/db.ts';
import { AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT, queryAudit, type AuditRow } from '../audit/store.ts';

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
    if (!Number.isInteger(n) || n < 1 || n > AUDIT_MAX_LIMIT)
      return { ok: false, error: `--limit must be a whole number from 1 to ${AUDIT_MAX_LIMIT}, got "${req.limit}"` };
    limit = n;
  }
  const entries = await queryAudit(db, {
    roleId: req.role || undefined,
    skill: req.skill || undefined,
    actorEmpNo: req.actor || undefined,
    since,
    limit,
  });
  return { ok: true, entries };
}
