/**
 * A record validator compiled once per table for bulk writes (spec 000 §7.5; R-DT-66..75):
 * exactly the result of `coerceRecord` (coerce.ts), computed faster — the field map is built
 * once, the common value shapes (a non-empty string into a text field, a safe integer into
 * 整数, a plain number into 数字) take a direct path, and every other primitive value's
 * result is memoised per field (`coerceValue` is pure), which makes repeated dates, options
 * and flags nearly free. test/datatable/record-validator.test.ts checks the equality.
 */
import { isSystemColumn } from '../model/naming.ts';
import type { DtLang } from '../model/results.ts';
import type { FieldMeta, TableMeta } from '../model/types.ts';
import { coerceRecord, coerceValue, type CoercedRecord, type CoerceResult, type DbValue } from './coerce.ts';

/** Most memoised results per field. */
const MEMO_LIMIT = 50_000;

type Coerce1 = (v: unknown) => CoerceResult;

/** Marks "not handled by the fast path" in {@link FastCoerce}. */
const SLOW: unique symbol = Symbol('slow');
/** A fast coercer: the value, or SLOW when `coerceValue` must decide (it also gives the error). */
type FastCoerce = (v: unknown) => DbValue | typeof SLOW;

/** The coercer of one field: `coerceValue(field, v, lang)` with fast paths and memoisation. */
export function fieldCoercer(field: FieldMeta, lang: DtLang): Coerce1 {
  const fast = fastCoercer(field, lang);
  return (v) => {
    const x = fast(v);
    return x === SLOW ? coerceValue(field, v, lang) : { ok: true, value: x };
  };
}

function fastCoercer(field: FieldMeta, lang: DtLang): FastCoerce {
  const memo = new Map<unknown, DbValue | typeof SLOW>();
  const cached: FastCoerce = (v) => {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return SLOW;
    let r = memo.get(v);
    if (r === undefined) {
      const c = coerceValue(field, v, lang);
      r = c.ok ? c.value : SLOW; // failures are recomputed (rare) to carry their message
      if (memo.size < MEMO_LIMIT) memo.set(v, r);
    }
    return r;
  };
  switch (field.uidt) {
    case '文本':
    case '长文本':
      return (v) => (typeof v === 'string' && v !== '' && !v.includes('\u0000') ? v : SLOW);
    case '整数':
      return (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : cached(v));
    case '数字': {
      const maxInt = (field.precision ?? 38) - (field.scale ?? 2);
      const bound = maxInt >= 15 ? 1e15 : 10 ** maxInt;
      return (v) => {
        if (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < bound) {
          const s = String(v);
          if (!s.includes('e')) return s;
        }
        return cached(v);
      };
    }
    case '日期':
      return (v) => (typeof v === 'string' && DATE_RE.test(v) && validYmd(v) ? v : cached(v));
    case '日期时间':
      return (v) => {
        if (typeof v === 'string') {
          const m = DATETIME_RE.exec(v);
          if (m && validYmd(v) && Number(m[2]) <= 23 && Number(m[3]) <= 59 && Number(m[4]) <= 59)
            return m[1] === ' ' ? v : `${v.slice(0, 10)} ${v.slice(11)}`;
        }
        return cached(v);
      };
    case '时间':
      return (v) =>
        typeof v === 'string' &&
        TIME_RE.test(v) &&
        Number(v.slice(0, 2)) <= 23 &&
        Number(v.slice(3, 5)) <= 59 &&
        Number(v.slice(6, 8)) <= 59
          ? v
          : cached(v);
    default:
      return cached;
  }
}

/** Canonical ISO forms that `coerceValue` returns unchanged (日期, 日期时间 with seconds, 时间 with seconds). */
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}([ T])(\d{2}):(\d{2}):(\d{2})$/;
const TIME_RE = /^\d{2}:\d{2}:\d{2}$/;

/** Days of each month in a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Two ASCII digits of `s` at `i` as a number (callers have matched `\d{2}` there). */
function two(s: string, i: number): number {
  return (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;
}

/** `YYYY-MM-DD` at the start of `s` (digits already matched) names a real day (year ≥ 1, Gregorian leap years). */
export function validYmd(s: string): boolean {
  const y = two(s, 0) * 100 + two(s, 2);
  const mo = two(s, 5);
  const d = two(s, 8);
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  if (mo === 2 && d === 29) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= MONTH_DAYS[mo - 1]!;
}

/** A compiled validator of one table. */
export interface RecordValidator {
  /** Same result as `coerceRecord(table, data, {mode, lang})`. */
  validate(data: unknown, mode: 'insert' | 'update'): CoercedRecord;
}

/** Compile the validator of `table` (see the module comment). */
export function compileValidator(table: Pick<TableMeta, 'fields'>, lang: DtLang): RecordValidator {
  const byTitle = new Map<string, { field: FieldMeta; fast: FastCoerce }>();
  for (const f of table.fields) if (!isSystemColumn(f.title)) byTitle.set(f.title, { field: f, fast: fastCoercer(f, lang) });
  const required = table.fields.filter((f) => f.required);
  return {
    validate(data, mode) {
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return coerceRecord(table, data, { mode, lang });
      const values: Record<string, DbValue> = {};
      const out: CoercedRecord = { values, errors: [], dropped: [] };
      const rec = data as Record<string, unknown>;
      for (const key in rec) {
        if (!Object.hasOwn(rec, key)) continue;
        const entry = byTitle.get(key);
        if (entry === undefined) {
          out.dropped.push(key);
          continue;
        }
        const raw = rec[key];
        const x = entry.fast(raw);
        if (x !== SLOW) {
          values[key] = x;
          continue;
        }
        const r = coerceValue(entry.field, raw, lang);
        if (r.ok) values[key] = r.value;
        else out.errors.push({ field: key, error: r.error, value: raw });
      }
      if (mode === 'insert') {
        for (const f of required) {
          if (out.errors.length && out.errors.some((e) => e.field === f.title)) continue;
          const v = values[f.title];
          if (v === undefined || v === null)
            out.errors.push({ field: f.title, error: lang === 'en' ? `"${f.title}" is required` : `「${f.title}」是必填字段` });
        }
      }
      return out;
    },
  };
}
