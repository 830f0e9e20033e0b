/**
 * One clock for people (docs/results.md "Times"): every instant shown in a chat, the console
 * or the CLI is written in the organisation's time zone as `YYYY-MM-DD HH:mm:ss`. The zone is
 * `SKILLGATE_TIMEZONE` (an IANA name such as `Asia/Shanghai`), else the host's zone. Instants
 * are stored as `timestamptz`; only their display goes through here.
 */

// Building an Intl.DateTimeFormat costs tens of microseconds; both answers below are asked on
// every skill call, so they are remembered (the host zone per value of `TZ`).
let hostZone: { tzEnv: string | undefined; zone: string } | undefined;
const knownZones = new Map<string, boolean>();

/** The host's IANA time zone (`UTC` when the runtime cannot tell). */
export function hostTimeZone(): string {
  const tzEnv = process.env.TZ;
  if (hostZone === undefined || hostZone.tzEnv !== tzEnv) {
    hostZone = { tzEnv, zone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' };
  }
  return hostZone.zone;
}

/** True when `tz` is an IANA zone name this runtime knows. */
export function isTimeZone(tz: string): boolean {
  if (tz.trim() === '') return false;
  let known = knownZones.get(tz);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      known = true;
    } catch {
      known = false;
    }
    if (knownZones.size < 1000) knownZones.set(tz, known);
  }
  return known;
}

/** The organisation's zone: `env.SKILLGATE_TIMEZONE` when valid, else the host's. */
export function orgTimeZone(env: Record<string, string | undefined> = process.env): string {
  const tz = env.SKILLGATE_TIMEZONE?.trim() ?? '';
  return isTimeZone(tz) ? tz : hostTimeZone();
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** `d` as `YYYY-MM-DD HH:mm:ss` wall-clock time in `tz` (default {@link orgTimeZone}). */
export function formatInstant(d: Date, tz: string = orgTimeZone()): string {
  if (Number.isNaN(d.getTime())) return '';
  const parts: Record<string, string> = {};
  for (const p of formatter(isTimeZone(tz) ? tz : 'UTC').formatToParts(d)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** An ISO-8601 instant with a zone (`…T…Z` or `…T…+08:00`), as JSON and PostgreSQL write them. */
const INSTANT_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * The instant an ISO string names, or null when it has no zone or is no date. PostgreSQL's
 * text of a timestamptz (`2026-01-02 10:00:00+08`, an hour-only offset) is read too.
 */
export function parseInstant(s: string): Date | null {
  if (!INSTANT_RE.test(s)) return null;
  const d = new Date(s.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
  return Number.isNaN(d.getTime()) ? null : d;
}

/** True when `s` names an instant (has a zone); a wall-clock `2026-01-02 10:00:00` does not. */
export function isInstantString(s: string): boolean {
  return parseInstant(s) !== null;
}

/** `s` rewritten by {@link formatInstant} when it is an instant, else unchanged. */
export function showInstant(s: string, tz: string = orgTimeZone()): string {
  const d = parseInstant(s);
  return d ? formatInstant(d, tz) : s;
}

/** The key of an in-process `runtime_context` carrying the caller's zone (src/executor/skill-call.ts). */
export const CONTEXT_TIME_ZONE_KEY = '_time_zone';

/** The zone of a call: its context's {@link CONTEXT_TIME_ZONE_KEY} when valid, else {@link orgTimeZone}. */
export function contextTimeZone(ctx: Record<string, unknown> | null | undefined): string {
  const tz = ctx?.[CONTEXT_TIME_ZONE_KEY];
  return typeof tz === 'string' && isTimeZone(tz) ? tz : orgTimeZone();
}
