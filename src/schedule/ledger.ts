/**
 * The occurrence ledger (`skillgate.schedule_occurrences`, migration 0033; docs/schedules.md):
 * one row per (schedule, planned time). Planning locks the schedule row, computes the planned
 * times since `planned_through`, inserts their rows and advances `planned_through` in one
 * transaction, so an occurrence is claimed by exactly one replica and none is skipped between
 * advancing and claiming. Every time is the caller's clock (injectable; the gateway's is the
 * wall clock).
 */
import type { Db, Queryable } from '../store/db.ts';
import { plannedTimes } from './cron.ts';
import type { MissedPolicy } from './store.ts';

/** Status of one occurrence. `claimed`: taken, not started; `running`; then `done`, `failed` or `missed`. */
export type OccurrenceStatus = 'claimed' | 'running' | 'done' | 'failed' | 'missed';

/** One ledger row. */
export interface Occurrence {
  schedule: string;
  planned_at: Date;
  status: OccurrenceStatus;
  /** Run after its time had passed (a missed occurrence run by the `once` / `all` policy). */
  catch_up: boolean;
  claimed_by: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  error: string | null;
}

/** Limits of {@link planSchedule}. */
export interface PlanLimits {
  /** An occurrence found later than this after its planned time is missed (ms). */
  graceMs: number;
  /** Most occurrences planned at once (an outage longer than that records only the latest). */
  maxPlanned: number;
  /** How long a claim lasts before another replica may take an occurrence that never started (ms). */
  claimMs: number;
}

/** Decide the status of each planned time: on time → claimed; missed → by the policy. */
export function decide(
  times: Date[],
  now: Date,
  policy: MissedPolicy,
  graceMs: number,
): Array<{ at: Date; status: 'claimed' | 'missed'; catch_up: boolean }> {
  const late = times.filter((t) => now.getTime() - t.getTime() > graceMs);
  const lastLate = late.at(-1);
  return times.map((at) => {
    if (!late.includes(at)) return { at, status: 'claimed', catch_up: false };
    const run = policy === 'all' || (policy === 'once' && at === lastLate);
    return { at, status: run ? 'claimed' : 'missed', catch_up: run };
  });
}

/**
 * Plan one schedule up to `now` as replica `holder`.
 * @returns the occurrences this replica claimed (to run), oldest first; [] when another replica
 *   is planning the schedule at this moment or it no longer exists.
 */
export async function planSchedule(db: Db, name: string, now: Date, holder: string, limits: PlanLimits): Promise<Occurrence[]> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{
      cron: string;
      timezone: string;
      missed: MissedPolicy;
      planned_through: Date | null;
      created_at: Date;
    }>('SELECT cron, timezone, missed, planned_through, created_at FROM skillgate.schedules WHERE name = $1 FOR UPDATE SKIP LOCKED', [
      name,
    ]);
    const s = rows[0];
    if (!s) return [];
    const from = s.planned_through ?? s.created_at;
    const decided = decide(plannedTimes(s.cron, s.timezone || 'UTC', from, now, limits.maxPlanned), now, s.missed, limits.graceMs);
    if (decided.length === 0) return [];
    const claimUntil = new Date(now.getTime() + limits.claimMs);
    const { rows: inserted } = await tx.query<Occurrence>(
      `INSERT INTO skillgate.schedule_occurrences (schedule, planned_at, status, catch_up, claimed_by, lease_until, finished_at)
       SELECT $1, p.at, p.status, p.catch_up,
              CASE WHEN p.status = 'claimed' THEN $5 END, CASE WHEN p.status = 'claimed' THEN $6::timestamptz END,
              CASE WHEN p.status = 'missed' THEN $7::timestamptz END
         FROM unnest($2::timestamptz[], $3::text[], $4::boolean[]) AS p(at, status, catch_up)
       ON CONFLICT (schedule, planned_at) DO NOTHING
       RETURNING ${COLUMNS}`,
      [name, decided.map((d) => d.at), decided.map((d) => d.status), decided.map((d) => d.catch_up), holder, claimUntil, now],
    );
    await tx.query('UPDATE skillgate.schedules SET planned_through = $2 WHERE name = $1', [name, decided.at(-1)!.at]);
    return inserted.filter((o) => o.status === 'claimed').sort((a, b) => a.planned_at.getTime() - b.planned_at.getTime());
  });
}

const COLUMNS = 'schedule, planned_at, status, catch_up, claimed_by, started_at, finished_at, error';

/**
 * Take over claims whose claimer died before starting them (safe: they never ran), and record
 * runs whose replica died while running as `failed` (never re-run: the run may have had effects).
 * @returns the re-claimed occurrences.
 */
export async function recoverAbandoned(db: Queryable, now: Date, holder: string, claimMs: number): Promise<Occurrence[]> {
  await db.query(
    `UPDATE skillgate.schedule_occurrences SET status = 'failed', finished_at = $1, error = 'the replica running it stopped before it finished'
      WHERE status = 'running' AND lease_until < $1`,
    [now],
  );
  const { rows } = await db.query<Occurrence>(
    `UPDATE skillgate.schedule_occurrences SET claimed_by = $2, lease_until = $3
      WHERE status = 'claimed' AND lease_until < $1 RETURNING ${COLUMNS}`,
    [now, holder, new Date(now.getTime() + claimMs)],
  );
  return rows;
}

/** Mark a claimed occurrence running. @returns false when it is no longer this replica's claim. */
export async function startOccurrence(
  db: Queryable,
  o: Pick<Occurrence, 'schedule' | 'planned_at'>,
  holder: string,
  now: Date,
  leaseMs: number,
): Promise<boolean> {
  const r = await db.query(
    `UPDATE skillgate.schedule_occurrences SET status = 'running', started_at = $4, lease_until = $5
      WHERE schedule = $1 AND planned_at = $2 AND status = 'claimed' AND claimed_by = $3`,
    [o.schedule, o.planned_at, holder, now, new Date(now.getTime() + leaseMs)],
  );
  return r.rowCount > 0;
}

/** Extend the lease of a running occurrence (its heartbeat). */
export async function extendOccurrence(
  db: Queryable,
  o: Pick<Occurrence, 'schedule' | 'planned_at'>,
  holder: string,
  until: Date,
): Promise<void> {
  await db.query(
    `UPDATE skillgate.schedule_occurrences SET lease_until = $4 WHERE schedule = $1 AND planned_at = $2 AND claimed_by = $3 AND status = 'running'`,
    [o.schedule, o.planned_at, holder, until],
  );
}

/** Record the end of a run. */
export async function finishOccurrence(
  db: Queryable,
  o: Pick<Occurrence, 'schedule' | 'planned_at'>,
  holder: string,
  ok: boolean,
  result: unknown,
  error: string | null,
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE skillgate.schedule_occurrences SET status = $4, finished_at = $5, result = $6, error = $7, lease_until = NULL
      WHERE schedule = $1 AND planned_at = $2 AND claimed_by = $3 AND status = 'running'`,
    [o.schedule, o.planned_at, holder, ok ? 'done' : 'failed', now, JSON.stringify(result ?? null), error],
  );
}

/** The latest `limit` occurrences of each schedule (or of one), newest first. */
export async function recentOccurrences(db: Queryable, limit: number, schedule?: string): Promise<Occurrence[]> {
  const { rows } = await db.query<Occurrence>(
    `SELECT ${COLUMNS} FROM (
       SELECT o.*, row_number() OVER (PARTITION BY schedule ORDER BY planned_at DESC) AS n
         FROM skillgate.schedule_occurrences o WHERE $2::text IS NULL OR schedule = $2) x
      WHERE n <= $1 ORDER BY schedule, planned_at DESC`,
    [limit, schedule ?? null],
  );
  return rows;
}
