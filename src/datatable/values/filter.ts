/**
 * Filter values under the value rules (R-DT-68/69, A-35): a value compared
 * with a 整数/数字, date/time or 勾选 field is normalised as a written value would be (so
 * `"１,000"` finds 1000 and `"是"` finds true); text-like fields keep the raw value (a partial
 * e-mail in a filter is fine). Pure; used by read/rows.ts for every filtered action.
 */
import type { DtLang } from '../model/results.ts';
import type { FieldMeta } from '../model/types.ts';
import { coerceValue, hasNul } from './coerce.ts';
import { BIGINT_MAX, BIGINT_MIN, toHalfWidth } from './scalar.ts';

/**
 * The comparison value of `value` against `field`: as coerceValue gives it, except that a
 * 整数 filter may hold decimals (`gt 1.5`) — an integer text outside the bigint range is
 * still refused — and 数字 is not held to the field's precision.
 * @returns `{value}` (the parameter) or `{error}` in `lang`. Never throws.
 */
export function coerceFilterValue(field: FieldMeta, value: unknown, lang: DtLang): { value: unknown } | { error: string } {
  if (hasNul(value)) return { error: lang === 'en' ? 'the value contains a NUL character (\\u0000)' : '值含有空字符（\\u0000）' };
  if (field.uidt === '整数' && (typeof value === 'string' || typeof value === 'number')) {
    const digits = toHalfWidth(String(value)).trim().replace(/,/g, '');
    if (/^[+-]?\d+$/.test(digits) && (BigInt(digits) > BIGINT_MAX || BigInt(digits) < BIGINT_MIN)) {
      return { error: lang === 'en' ? `${digits} is outside the integer range` : `${digits} 超出整数范围` };
    }
  }
  let f: FieldMeta = field;
  if (field.uidt === '整数') f = { ...field, uidt: '数字', precision: 1000, scale: 0 };
  else if (field.uidt === '数字') f = { ...field, precision: 1000, scale: 0 };
  else if (!['日期', '日期时间', '时间', '勾选'].includes(field.uidt)) return { value };
  const r = coerceValue(f, value, lang);
  return r.ok ? { value: r.value } : { error: r.error };
}
