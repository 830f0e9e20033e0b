/**
 * Coercion of loosely typed context values (from a channel adapter or a `--context` JSON) to
 * the types the fixed and platform sections fix (R-CTX-03, R-CTX-10, R-PCTX-02).
 *
 * Rules (documented decisions):
 * - strings: a string is kept as is; a finite number, bigint or boolean becomes its
 *   `String()`; anything else (null, objects, arrays, NaN) is the empty string.
 * - booleans: `true`/`false`; also the strings "true"/"false" (trimmed, any case) and the
 *   numbers 1/0, as form fields and query strings carry them; anything else → the fallback.
 * - string lists: an array keeps its string items (numbers become strings; other items and
 *   blank strings are dropped); a single string is split on `,` / `，` (directory imports
 *   carry tags as "a, b"); anything else → [].
 */
import type { TeamRole } from './types.ts';

/** A value as a string per the module rules (R-CTX-03: empty value ""). */
export function toStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return '';
}

/** A value as a boolean per the module rules; `fallback` for anything unrecognised. */
export function toBool(v: unknown, fallback: boolean): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
    return fallback;
  }
  if (v === 1) return true;
  if (v === 0) return false;
  return fallback;
}

/** A value as a list of non-blank strings per the module rules (R-CTX-03: empty value []). */
export function toStrList(v: unknown): string[] {
  if (typeof v === 'string') {
    return v
      .split(/[,，]/)
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const item of v) {
    const s = typeof item === 'string' || typeof item === 'number' ? toStr(item) : '';
    if (s.trim() !== '') out.push(s);
  }
  return out;
}

/**
 * `team_role` (R-PCTX-02): "owner" | "admin" | "member" (trimmed, any case);
 * anything else is "member", the least privileged role.
 */
export function toTeamRole(v: unknown): TeamRole {
  const s = typeof v === 'string' ? v.trim().toLowerCase() : '';
  return s === 'owner' || s === 'admin' ? s : 'member';
}

/** Upper bound of a plausible Unix time in seconds (year 10000). */
const MAX_EPOCH_S = 253_402_300_800;
/** Above this a "seconds" value is taken as milliseconds (1e11 s is the year 5138). */
const MS_THRESHOLD = 1e11;

/**
 * A trigger time as Unix seconds (float), or undefined when `v` is not a usable time
 * (R-CTX-10). Accepts a number or numeric string (seconds; a value above 1e11 is taken as
 * milliseconds, as Feishu and DingTalk send), a `Date`, or an ISO 8601 string. Zero,
 * negative and out-of-range values are unusable.
 */
export function toEpochSeconds(v: unknown): number | undefined {
  let s: number | undefined;
  if (typeof v === 'number') s = v;
  else if (typeof v === 'string' && v.trim() !== '') {
    const t = v.trim();
    if (/^[+]?\d+(\.\d+)?$/.test(t)) s = Number(t);
    else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(t)) {
      s = parseTriggeredAtStr(t) ?? Date.parse(t) / 1000;
    }
  } else if (v instanceof Date) s = v.getTime() / 1000;
  if (s === undefined || !Number.isFinite(s) || s <= 0) return undefined;
  if (s > MS_THRESHOLD) s = s / 1000;
  return s < MAX_EPOCH_S ? s : undefined;
}

/**
 * Parse exactly `YYYY-MM-DD HH:MM` as UTC (the `triggered_at_str` format, R-CTX-10).
 * @returns Unix seconds, or undefined for any other text or an impossible date.
 */
export function parseTriggeredAtStr(v: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/.exec(v.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi);
  const back = new Date(ms);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59) return undefined;
  return ms / 1000;
}

/** The minute (epoch ms / 60 000) last formatted by {@link formatTriggeredAt}, and its text. */
let lastMinute = Number.NaN;
let lastText = '';

/**
 * Format Unix seconds as `YYYY-MM-DD HH:MM` in UTC (R-CTX-10). The text of the last minute
 * formatted is kept (calls of the same minute format it once).
 * @throws RangeError when `seconds` is not a representable time (as `Date#toISOString`).
 */
export function formatTriggeredAt(seconds: number): string {
  const ms = Math.floor(seconds * 1000);
  const minute = Math.floor(ms / 60_000);
  if (minute === lastMinute) return lastText;
  const text = new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
  lastMinute = minute;
  lastText = text;
  return text;
}
