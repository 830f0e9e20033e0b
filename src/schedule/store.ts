/**
 * Schedules in PostgreSQL (`skillgate.schedules`, migrations 0012 and 0033): what an admin
 * manages with `skillgate schedule add|list|remove`; the scheduler plans their occurrences into
 * the ledger (ledger.ts, docs/schedules.md).
 */
import type { Queryable } from '../store/db.ts';

/** A schedule: run a skill or a saved chain on a cron expression, deliver the result. */
export interface Schedule {
  /** `^[a-z0-9][a-z0-9_-]*$`. */
  name: string;
  /** Five-field cron expression (pg-boss / cron-parser syntax). */
  cron: string;
  /** IANA time zone of the cron expression (default UTC). */
  timezone: string;
  kind: 'skill' | 'chain';
  /** Skill or chain name. */
  target: string;
  input: Record<string, unknown>;
  /**
   * Where the result goes: `notify:<alias|apprise-url>` (built-in `notify`), or
   * `<channel>[@<account>]:<id>` (built-in `send_message`); "" for no delivery.
   */
  deliver_to: string;
  role_id: string;
  /** What happens to occurrences missed while no gateway ran (docs/schedules.md; default `once`). */
  missed?: MissedPolicy;
}

/** `skip`: none of the missed occurrences runs; `once`: the latest runs; `all`: each runs. */
export type MissedPolicy = 'skip' | 'once' | 'all';

/** The policies, for validation. */
export const MISSED_POLICIES: readonly MissedPolicy[] = ['skip', 'once', 'all'];

/** A stored schedule with its last run. */
export interface StoredSchedule extends Schedule {
  missed: MissedPolicy;
  last_run_at: Date | null;
  last_ok: boolean | null;
  last_result: unknown;
}

/** Schedule names (they become pg-boss queue names). */
export const SCHEDULE_NAME_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * Insert or replace a schedule. A new one is planned from `at` on (nothing before it counts as
 * missed); a replaced one keeps its place in the ledger.
 */
export async function upsertSchedule(db: Queryable, s: Schedule, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO skillgate.schedules (name, cron, timezone, kind, target, input, deliver_to, role_id, missed, planned_through)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (name) DO UPDATE SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, kind = EXCLUDED.kind,
       target = EXCLUDED.target, input = EXCLUDED.input, deliver_to = EXCLUDED.deliver_to, role_id = EXCLUDED.role_id,
       missed = EXCLUDED.missed`,
    [s.name, s.cron, s.timezone, s.kind, s.target, JSON.stringify(s.input ?? {}), s.deliver_to, s.role_id, s.missed ?? 'once', at],
  );
}

/** @returns false when no schedule has that name. */
export async function deleteSchedule(db: Queryable, name: string): Promise<boolean> {
  await db.query('DELETE FROM skillgate.schedule_occurrences WHERE schedule = $1', [name]);
  return (await db.query('DELETE FROM skillgate.schedules WHERE name = $1', [name])).rowCount > 0;
}

/** Every schedule, by name. */
export async function listSchedules(db: Queryable): Promise<StoredSchedule[]> {
  const { rows } = await db.query<StoredSchedule>(
    `SELECT name, cron, timezone, kind, target, input, deliver_to, role_id, missed, last_run_at, last_ok, last_result
       FROM skillgate.schedules ORDER BY name`,
  );
  return rows;
}

/** One schedule, or undefined. */
export async function getSchedule(db: Queryable, name: string): Promise<StoredSchedule | undefined> {
  return (await listSchedules(db)).find((s) => s.name === name);
}

/** Record the outcome of a run. */
export async function recordRun(db: Queryable, name: string, ok: boolean, result: unknown, at: Date): Promise<void> {
  await db.query('UPDATE skillgate.schedules SET last_run_at = $2, last_ok = $3, last_result = $4 WHERE name = $1', [
    name,
    at,
    ok,
    JSON.stringify(result ?? null),
  ]);
}
