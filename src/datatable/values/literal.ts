/**
 * Coerced values (coerce.ts) as elements of a PostgreSQL array literal, the form the bulk
 * writes send them in (R-DT-98): the one `INSERT … SELECT … FROM
 * unnest($1::<type>[], …)` of a chunk (bulk/column-insert.ts, bulk/batch-insert.ts) and the
 * COPY text built from the same elements (bulk/column-copy.ts). Pure functions.
 */
import type { FieldMeta, LogicalType } from '../model/types.ts';
import type { DbValue } from './scalar.ts';

/** A PostgreSQL array-literal element holding the string `s`, always double-quoted (`"` and `\` escaped). */
export function quoteElement(s: string): string {
  return s.indexOf('"') < 0 && s.indexOf('\\') < 0 ? `"${s}"` : `"${s.replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * Field types whose elements go bare: their coerced text holds only digits, `-`, `.`, `:`
 * (整数, 数字, 日期, 时间) or is `true`/`false` (勾选) — nothing an array literal or COPY escapes.
 */
const BARE: ReadonlySet<LogicalType> = new Set<LogicalType>(['整数', '数字', '日期', '时间', '勾选']);

/** True when every non-NULL element {@link elementOf} makes for `uidt` is bare (unquoted, nothing to escape). */
export function isBareElement(uidt: LogicalType): boolean {
  return BARE.has(uidt);
}

/**
 * The array-literal element of a coerced value `x` of `field`: `NULL` for null (or absent);
 * 整数/数字/日期/时间 bare; 勾选 `true`/`false`; 多选 the quoted text of its own array literal
 * (cast per row); every other value a quoted string. Injective per field, so equal elements
 * mean equal values.
 */
export function elementOf(field: Pick<FieldMeta, 'uidt'>, x: DbValue | undefined): string {
  if (x === undefined || x === null) return 'NULL';
  if (Array.isArray(x)) return quoteElement(`{${x.map(quoteElement).join(',')}}`);
  if (typeof x === 'boolean') return x ? 'true' : 'false';
  return BARE.has(field.uidt) ? x : quoteElement(x);
}
