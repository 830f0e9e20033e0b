/**
 * The shortcuts of the value rules for bulk writes (R-DT-66..75): per field,
 * the value shapes whose coercion is certain take a direct path (a non-empty string into a
 * text field, a safe integer into 整数, a plain number into 数字, a canonical ISO date, time
 * or date-time, a boolean into 勾选) and every other primitive value's result is memoised
 * (`coerceValue` is pure), which makes repeated dates, options and flags nearly free. Anything
 * else — a refused value, an object — is left to `coerceValue` (coerce.ts), so results and
 * error texts are exactly the rules'. Two users: the compiled record validator below and the
 * column encoder of the bulk import (bulk/column-chunk.ts), which finishes each value into its
 * array-literal element. test/datatable/record-validator.test.ts checks the equality.
 */
import type { DtLang } from '../model/results.ts';
import type { FieldMeta, TableMeta } from '../model/types.ts';
import { checkRecord, coerceValue, recordPlan, SLOW, type CoercedRecord, type DbValue } from './coerce.ts';
import { canonicalDateTime, isCanonicalDate, isCanonicalTime } from './scalar.ts';

export { SLOW } from './coerce.ts';

/** Most memoised results per field. */
const MEMO_LIMIT = 50_000;

/**
 * The shortcut of `field`: `finish(coerceValue(field, v, lang).value)` when the value is
 * certain (memoised per distinct primitive value), else {@link SLOW} — a refused value always
 * gives SLOW, so the caller asks `coerceValue` for its message. `finish` must be pure.
 */
export function fastPath<T>(field: FieldMeta, lang: DtLang, finish: (x: DbValue) => T): (v: unknown) => T | typeof SLOW {
  const memo = new Map<unknown, T | typeof SLOW>();
  const cached = (v: unknown): T | typeof SLOW => {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return SLOW;
    let r = memo.get(v);
    if (r === undefined) {
      const c = coerceValue(field, v, lang);
      r = c.ok ? finish(c.value) : SLOW; // failures are recomputed (rare) to carry their message
      if (memo.size < MEMO_LIMIT) memo.set(v, r);
    }
    return r;
  };
  switch (field.uidt) {
    case '文本':
    case '长文本':
      return (v) => (typeof v === 'string' && v !== '' && v.indexOf('\u0000') < 0 ? finish(v) : cached(v));
    case '整数':
      return (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? finish(String(v)) : cached(v));
    case '数字': {
      const maxInt = (field.precision ?? 38) - (field.scale ?? 2);
      const bound = maxInt >= 15 ? 1e15 : 10 ** maxInt;
      return (v) => {
        if (typeof v === 'number' && Number.isFinite(v) && v < bound && v > -bound) {
          const s = String(v);
          if (s.indexOf('e') < 0) return finish(s);
        }
        return cached(v);
      };
    }
    case '日期':
      return (v) => (typeof v === 'string' && isCanonicalDate(v) ? finish(v) : cached(v));
    case '日期时间':
      return (v) => {
        const t = typeof v === 'string' ? canonicalDateTime(v) : null;
        return t === null ? cached(v) : finish(t);
      };
    case '时间':
      return (v) => (typeof v === 'string' && isCanonicalTime(v) ? finish(v) : cached(v));
    case '勾选':
      return (v) => (typeof v === 'boolean' ? finish(v) : cached(v));
    default:
      return cached;
  }
}

const same = (x: DbValue): DbValue => x;

/** A compiled validator of one table. */
export interface RecordValidator {
  /** Same result as `coerceRecord(table, data, {mode, lang})`. */
  validate(data: unknown, mode: 'insert' | 'update'): CoercedRecord;
}

/** Compile the validator of `table`: `coerceRecord` with every field's {@link fastPath}. */
export function compileValidator(table: Pick<TableMeta, 'fields'>, lang: DtLang): RecordValidator {
  const plan = recordPlan(table, (f) => fastPath(f, lang, same));
  return { validate: (data, mode) => checkRecord(plan, data, mode, lang) };
}
