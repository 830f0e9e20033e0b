/**
 * Audit retention: `SKILLGATE_AUDIT_RETENTION_DAYS` (default 90; 0 keeps
 * everything); old rows are purged at gateway start and once a day.
 */
import type { Logger } from '../log/logger.ts';
import type { Db } from '../store/db.ts';
import { purgeAudit } from './store.ts';

/** Default retention, days. */
export const AUDIT_RETENTION_DEFAULT_DAYS = 90;

/** One day in milliseconds: the purge interval. */
const DAY_MS = 86_400_000;

/**
 * The configured retention in days from `env` (default `process.env`).
 * @throws Error when the variable is set but not a non-negative integer.
 */
export function auditRetentionDays(env: Record<string, string | undefined> = process.env): number {
  const raw = env.SKILLGATE_AUDIT_RETENTION_DAYS?.trim();
  if (!raw) return AUDIT_RETENTION_DEFAULT_DAYS;
  if (!/^\d+$/.test(raw)) throw new Error(`SKILLGATE_AUDIT_RETENTION_DAYS must be a whole number of days (0 = keep forever), got "${raw}"`);
  return Number(raw);
}

/** A running retention timer. */
export interface AuditRetention {
  /** Settles when the purge at start is done (never rejects). */
  initial: Promise<void>;
  /** Stop the daily purge. */
  stop(): void;
}

/**
 * Purge now and then every day. Purge errors are logged, never thrown. `now` is injectable
 * (tests); the timer does not keep the process alive.
 */
export function startAuditRetention(opts: { db: Db; log: Logger; days?: number; now?: () => Date }): AuditRetention {
  const days = opts.days ?? auditRetentionDays();
  const now = opts.now ?? (() => new Date());
  const purge = async (): Promise<void> => {
    try {
      const n = await purgeAudit(opts.db, days, now());
      if (n > 0) opts.log.info({ purged: n, retention_days: days }, 'audit log: old rows purged');
    } catch (err) {
      opts.log.warn({ err: (err as Error)?.message }, 'audit log: purge failed');
    }
  };
  const initial = purge();
  const timer = setInterval(() => void purge(), DAY_MS);
  timer.unref();
  return { initial, stop: () => clearInterval(timer) };
}
