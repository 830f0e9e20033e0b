/**
 * Planned times of a cron expression (cron-parser 4.9, the parser pg-boss uses; five fields,
 * optional seconds field refused): the occurrences after one instant up to another.
 */
import { cronParserPackage } from '../config/lazy-packages.ts';

/** Validate `cron` in time zone `tz`. @returns the problem, or null when valid. */
export function cronProblem(cron: string, tz: string): string | null {
  if (cron.trim().split(/\s+/).length !== 5) return 'a schedule takes five cron fields (minute hour day month weekday)';
  try {
    cronParserPackage().parseExpression(cron, { tz });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Every planned time `t` of `cron` with `after < t ≤ upTo`, oldest first; when there are more
 * than `cap`, only the latest `cap`.
 */
export function plannedTimes(cron: string, tz: string, after: Date, upTo: Date, cap: number): Date[] {
  if (upTo.getTime() <= after.getTime()) return [];
  const it = cronParserPackage().parseExpression(cron, { tz, currentDate: after, endDate: upTo });
  const out: Date[] = [];
  while (it.hasNext()) {
    const t = new Date(it.next().getTime());
    if (t.getTime() <= after.getTime()) continue;
    out.push(t);
    if (out.length > cap) out.shift();
  }
  return out;
}
