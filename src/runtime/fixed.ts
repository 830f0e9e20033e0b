/**
 * The fixed context section: typed empty values, coercion of given
 * values, and the admin proxy-fill clearing.
 *
 * Requirement ids: R-CTX-02, R-CTX-03, R-CTX-06, R-CTX-10, R-CTX-11, R-ADM-01..03.
 */
import { normalizeAttachments } from './attachments.ts';
import { formatTriggeredAt, parseTriggeredAtStr, toBool, toEpochSeconds, toStr, toStrList } from './coerce.ts';
import { ADMIN_CLEARED_KEYS } from './keys.ts';
import type { FixedContext } from './types.ts';

/**
 * A fresh fixed section with every one of the 17 keys at its typed empty value (R-CTX-02/03):
 * strings "", `attachments` / `actor_tags` [], `triggered_at` 0, `actor_is_admin` false.
 */
export function emptyFixedContext(): FixedContext {
  return {
    raw_input: '',
    attachments: [],
    actor_name: '',
    actor_emp_no: '',
    actor_department: '',
    actor_department_path: '',
    actor_position: '',
    actor_title: '',
    actor_phone: '',
    actor_email: '',
    actor_tags: [],
    actor_key: '',
    channel: '',
    triggered_at: 0,
    triggered_at_str: '',
    actor_id: '',
    actor_is_admin: false,
  };
}

/** Options of {@link coerceFixed}. */
export interface CoerceFixedOptions {
  /** Used for `channel` when `given` has no string `channel` (a given "" is kept). */
  channel?: string;
  /**
   * The clock used when `given` carries no usable trigger time (a triggered message has a
   * time). `null`: leave `triggered_at` 0 and `triggered_at_str` "".
   */
  clock?: (() => Date) | null;
}

/**
 * The fixed section from loosely typed `given` values (rules in coerce.ts): each key typed,
 * a wrong-typed value replaced by its empty value; `attachments` normalised to
 * `{type, att_type, filename, local_path, url}` (R-CTX-06).
 *
 * Trigger time (R-CTX-10): one instant decides both keys — a usable `given.triggered_at`
 * (seconds; ms above 1e11; numeric string; ISO string), else `given.triggered_at_str` in
 * `YYYY-MM-DD HH:MM` UTC, else the clock (default `() => new Date()`); `triggered_at_str`
 * is always derived from the instant, so the two never disagree.
 *
 * The admin proxy-fill (R-ADM-01) is applied here, so no consumer ever sees the uncleared
 * values. No key outside the 17 is read or produced (`emp_no` never exists, R-CTX-11).
 */
export function coerceFixed(given: Record<string, unknown>, opts: CoerceFixedOptions = {}): FixedContext {
  const f = emptyFixedContext();
  f.raw_input = toStr(given.raw_input);
  f.attachments = normalizeAttachments(given.attachments);
  f.actor_name = toStr(given.actor_name);
  f.actor_emp_no = toStr(given.actor_emp_no);
  f.actor_department = toStr(given.actor_department);
  f.actor_department_path = toStr(given.actor_department_path);
  f.actor_position = toStr(given.actor_position);
  f.actor_title = toStr(given.actor_title);
  f.actor_phone = toStr(given.actor_phone);
  f.actor_email = toStr(given.actor_email);
  f.actor_tags = toStrList(given.actor_tags);
  f.actor_key = toStr(given.actor_key);
  f.channel = Object.hasOwn(given, 'channel') && typeof given.channel === 'string' ? given.channel : toStr(opts.channel);
  f.actor_id = toStr(given.actor_id);
  f.actor_is_admin = toBool(given.actor_is_admin, false);

  let at = toEpochSeconds(given.triggered_at);
  if (at === undefined && typeof given.triggered_at_str === 'string') at = parseTriggeredAtStr(given.triggered_at_str);
  if (at === undefined && opts.clock !== null) at = toEpochSeconds((opts.clock ?? (() => new Date()))());
  if (at !== undefined) {
    f.triggered_at = at;
    f.triggered_at_str = formatTriggeredAt(at);
  }
  return applyAdminProxyFill(f);
}

/**
 * Admin proxy-fill (R-ADM-01/02): when `actor_is_admin` is true, set exactly
 * the 8 keys of {@link ADMIN_CLEARED_KEYS} to their typed empty values and keep
 * actor_name / actor_phone / actor_email. Mutates and returns `f`; a no-op otherwise.
 * `is_admin` (an admin session) is independent and never triggers it.
 */
export function applyAdminProxyFill<T extends Pick<FixedContext, 'actor_is_admin' | (typeof ADMIN_CLEARED_KEYS)[number]>>(f: T): T {
  if (f.actor_is_admin !== true) return f;
  const empty = emptyFixedContext();
  for (const k of ADMIN_CLEARED_KEYS) (f as Record<string, unknown>)[k] = empty[k];
  return f;
}
