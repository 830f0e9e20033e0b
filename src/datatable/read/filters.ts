/**
 * `filters` of the datatable (R-DT-49..54, D-11, A-37): parse the array of
 * `{field, op, value}` (or the tolerated field-map shape) into checked conditions, and
 * compile conditions into a parameterized WHERE over quoted identifiers.
 *
 * Never widens: an item that cannot be parsed (a string, "", a non-object, a missing field
 * or op), an unknown field or op, a wrong value shape, or a value still holding an
 * unresolved reference refuses the whole call (recoverable, `need_param: "filters"`).
 */
import type { Envelope } from '../../envelope/types.ts';
import { quoteIdent } from '../model/naming.ts';
import { dtFail, type DtLang } from '../model/results.ts';
import type { FieldMeta, TableMeta } from '../model/types.ts';

/** The eleven operators (R-DT-50). */
export const FILTER_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains', 'in', 'between', 'is_null', 'not_null'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** Operator spellings accepted with a note (symbols, case). */
const OP_ALIASES: Readonly<Record<string, FilterOp>> = {
  '=': 'eq',
  '==': 'eq',
  equals: 'eq',
  equal: 'eq',
  is: 'eq',
  '!=': 'ne',
  '<>': 'ne',
  neq: 'ne',
  not_eq: 'ne',
  not_equal: 'ne',
  '>': 'gt',
  '>=': 'gte',
  ge: 'gte',
  '<': 'lt',
  '<=': 'lte',
  le: 'lte',
  like: 'contains',
  ilike: 'contains',
  includes: 'contains',
  contain: 'contains',
  isnull: 'is_null',
  null: 'is_null',
  notnull: 'not_null',
  is_not_null: 'not_null',
  not_empty: 'not_null',
};

/** One checked condition. `value` is absent for is_null / not_null. */
export interface FilterCond {
  field: string;
  op: FilterOp;
  value?: unknown;
  /**
   * Only with op `contains` written as `like` / `ilike` whose value holds `%` or `_`: the
   * value is a case-insensitive LIKE pattern (`%` any run, `_` one character, `\` escapes).
   */
  pattern?: true;
}

/**
 * Normalises a filter value for a field before it is sent (e.g. full-width digits in a
 * number column). Returns the value to send, or `{error}` (English) to refuse the filter.
 */
export type FilterValueCoercer = (field: FieldMeta, value: unknown) => { value: unknown } | { error: string };

/** Parse result. */
export type ParsedFilters = { ok: true; conditions: FilterCond[]; notes: string[] } | { ok: false; envelope: Envelope };

const REF_TOKEN = /\{[A-Za-z0-9_\u4e00-\u9fa5]+\}/u;
const REF_PREFIX = /\$(steps|ctx|prev)\./;

/**
 * True when `v` (a string, or an array/object holding one) still contains an unresolved
 * reference: a `{identifier}` token, or `$steps.` / `$ctx.` / `$prev.`.
 */
export function hasUnresolvedRef(v: unknown): boolean {
  if (typeof v === 'string') return REF_TOKEN.test(v) || REF_PREFIX.test(v);
  if (Array.isArray(v)) return v.some(hasUnresolvedRef);
  if (v && typeof v === 'object') return Object.values(v as Record<string, unknown>).some(hasUnresolvedRef);
  return false;
}

/** Column names a filter may use: the table's fields plus `id` and `created_at`. */
export function fieldByName(table: TableMeta, name: string): FieldMeta | 'id' | 'created_at' | undefined {
  const f = table.fields.find((x) => x.title === name);
  if (f) return f;
  const lower = name.toLowerCase();
  if (lower === 'id') return 'id';
  if (lower === 'created_at') return 'created_at';
  return undefined;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}

function refuse(lang: DtLang, zh: string, en: string, extra: Record<string, unknown> = {}): ParsedFilters {
  return { ok: false, envelope: dtFail('recoverable', { zh, en }, lang, { need_param: 'filters', ...extra }) };
}

const SHAPE_HINT_ZH = '请写成数组：[{"field": "部门", "op": "eq", "value": "研发"}]';
const SHAPE_HINT_EN = 'write an array such as [{"field": "部门", "op": "eq", "value": "研发"}]';

/**
 * Parse `raw` filters against `table` (R-DT-49..54, D-11, A-37).
 *
 * Accepted: `undefined`/`null` (no conditions); an array of `{field, op, value}`; a single
 * such object; a JSON text of either; the field-map shape `{"部门": "研发"}` (R-DT-51),
 * converted to `eq` (an array value → `in`, null → `is_null`) with a note. Operators are
 * case-insensitive and symbol spellings (`=`, `>=`, `like` …) are mapped with a note;
 * `like` / `ilike` mean `contains` (a value without wildcards is a substring: `%value%`), and
 * when the value holds `%` or `_` those keep their LIKE meaning ({@link FilterCond.pattern});
 * plain `contains` always matches `%` and `_` literally;
 * `eq null` / `ne null` become `is_null` / `not_null`.
 * @param coerce optional per-field value normaliser (applied to eq…lte, in, between).
 * @returns conditions (AND-ed) and notes, or a recoverable refusal envelope.
 */
export function parseFilters(table: TableMeta, raw: unknown, lang: DtLang, coerce?: FilterValueCoercer): ParsedFilters {
  const notes: string[] = [];
  let src = raw;
  if (src === undefined || src === null) return { ok: true, conditions: [], notes };
  if (typeof src === 'string') {
    const text = src.trim();
    if (text.startsWith('[') || text.startsWith('{')) {
      try {
        src = JSON.parse(text) as unknown;
        notes.push('filters (JSON text) → filters');
      } catch {
        return refuse(lang, `filters 不是合法的 JSON。${SHAPE_HINT_ZH}`, `filters is not valid JSON; ${SHAPE_HINT_EN}`);
      }
    } else {
      return refuse(lang, `filters 不能是字符串「${src}」。${SHAPE_HINT_ZH}`, `filters must not be a plain string; ${SHAPE_HINT_EN}`);
    }
  }
  let items: unknown[];
  if (Array.isArray(src)) items = src;
  else if (src && typeof src === 'object') {
    const obj = src as Record<string, unknown>;
    if (typeof obj.field === 'string' && typeof obj.op === 'string') {
      items = [obj];
      notes.push('filters (one object) → [filters]');
    } else {
      items = [];
      for (const [k, v] of Object.entries(obj)) {
        items.push(
          v === null ? { field: k, op: 'is_null' } : Array.isArray(v) ? { field: k, op: 'in', value: v } : { field: k, op: 'eq', value: v },
        );
      }
      notes.push('filters (field map) → [{field, op, value}]');
    }
  } else {
    return refuse(lang, `filters 形状不对。${SHAPE_HINT_ZH}`, `filters has the wrong shape; ${SHAPE_HINT_EN}`);
  }

  const conditions: FilterCond[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      // D-11: never dropped (the original dropped it and could widen to the whole table).
      return refuse(
        lang,
        `filters 第 ${i + 1} 项无法解析（${JSON.stringify(item)}），已拒绝执行，避免扩大到全表。${SHAPE_HINT_ZH}`,
        `filters item ${i + 1} cannot be parsed (${JSON.stringify(item)}); refused rather than widening to the whole table; ${SHAPE_HINT_EN}`,
      );
    }
    const it = item as Record<string, unknown>;
    if (typeof it.field !== 'string' || it.field.trim() === '') {
      return refuse(lang, `filters 第 ${i + 1} 项缺少 field。${SHAPE_HINT_ZH}`, `filters item ${i + 1} has no field; ${SHAPE_HINT_EN}`);
    }
    const fieldName = it.field.trim();
    const meta = fieldByName(table, fieldName);
    if (!meta) {
      const names = ['id', 'created_at', ...table.fields.map((f) => f.title)].join('、');
      return refuse(
        lang,
        `筛选字段「${fieldName}」在表「${table.title}」中不存在（可用字段：${names}）。`,
        `filter field "${fieldName}" does not exist in table "${table.title}" (fields: ${names})`,
        { fields: ['id', 'created_at', ...table.fields.map((f) => f.title)] },
      );
    }
    const field = typeof meta === 'string' ? meta : meta.title;
    let op: FilterOp | undefined;
    let likeAlias = false;
    const rawOp = typeof it.op === 'string' ? it.op.trim() : it.op === undefined ? 'eq' : undefined;
    if (it.op === undefined) notes.push(`filters[${i}].op missing → eq`);
    if (rawOp !== undefined) {
      const lower = rawOp.toLowerCase().replace(/[\s-]+/g, '_');
      likeAlias = lower === 'like' || lower === 'ilike';
      if ((FILTER_OPS as readonly string[]).includes(lower)) op = lower as FilterOp;
      else if (OP_ALIASES[lower]) {
        op = OP_ALIASES[lower];
        notes.push(`${rawOp} → ${op}`);
      }
      if (op && lower !== rawOp && op === lower) notes.push(`${rawOp} → ${op}`);
    }
    if (!op) {
      return refuse(
        lang,
        `filters 第 ${i + 1} 项的 op「${String(it.op)}」不支持（可用：${FILTER_OPS.join(' ')}）。`,
        `filters item ${i + 1}: unsupported op ${JSON.stringify(it.op)} (use one of ${FILTER_OPS.join(', ')})`,
      );
    }
    const value = it.value;
    if (hasUnresolvedRef(value)) {
      return refuse(
        lang,
        `筛选值 ${JSON.stringify(value)} 里还有未解析的引用变量（{…} 或 $steps.），已拒绝执行。请先填入实际值。`,
        `filter value ${JSON.stringify(value)} still contains an unresolved reference ({…} or $steps.); refused`,
        { unresolved: value },
      );
    }
    if ((op === 'eq' || op === 'ne') && value === null) {
      const to: FilterOp = op === 'eq' ? 'is_null' : 'not_null';
      notes.push(`${op} null → ${to}`);
      op = to;
    }
    const fm = typeof meta === 'string' ? undefined : meta;
    const coerceOne = (v: unknown): { value: unknown } | { error: string } => (fm && coerce ? coerce(fm, v) : { value: v });
    if (op === 'is_null' || op === 'not_null') {
      conditions.push({ field, op });
      continue;
    }
    if (op === 'in' || op === 'between') {
      if (!Array.isArray(value) || !value.every(isScalar) || (op === 'between' ? value.length !== 2 : value.length === 0)) {
        const need = op === 'between' ? '恰好两个元素的数组 [下限, 上限]' : '非空数组';
        const needEn = op === 'between' ? 'an array of exactly two scalars [low, high]' : 'a non-empty array of scalars';
        return refuse(lang, `筛选「${field}」的 ${op} 需要${need}。`, `filter on "${field}": ${op} needs ${needEn}`);
      }
      const out: unknown[] = [];
      for (const v of value) {
        const c = coerceOne(v);
        if ('error' in c) return refuse(lang, `筛选「${field}」的值无效：${c.error}`, `filter on "${field}": ${c.error}`);
        out.push(c.value);
      }
      conditions.push({ field, op, value: out });
      continue;
    }
    if (!isScalar(value)) {
      return refuse(
        lang,
        `筛选「${field}」的 ${op} 需要一个值（字符串、数字或布尔）。`,
        `filter on "${field}": ${op} needs a scalar value (string, number or boolean)`,
      );
    }
    if (typeof value === 'string' && value.includes('\u0000')) {
      return refuse(
        lang,
        `筛选「${field}」的值含有空字符（\\u0000）。`,
        `filter on "${field}": the value contains a NUL character (\\u0000)`,
      );
    }
    if (op === 'contains') {
      const text = String(value);
      if (likeAlias && /[%_]/.test(text)) {
        // SQL LIKE semantics for a `like` the caller wrote with wildcards .
        notes.push(`filters[${i}]: like pattern kept (% and _ are wildcards, case-insensitive)`);
        conditions.push({ field, op, value: text, pattern: true });
      } else conditions.push({ field, op, value: text });
      continue;
    }
    const c = coerceOne(value);
    if ('error' in c) return refuse(lang, `筛选「${field}」的值无效：${c.error}`, `filter on "${field}": ${c.error}`);
    conditions.push({ field, op, value: c.value });
  }
  return { ok: true, conditions, notes };
}

/** Collects positional parameters (`$1`, `$2` …) for one statement. */
export class SqlParams {
  readonly values: unknown[] = [];
  /** Start numbering after `offset` existing parameters. */
  constructor(private readonly offset = 0) {}
  /** Add `v` and return its placeholder. */
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.offset + this.values.length}`;
  }
}

/**
 * True when a field's column is a PostgreSQL array (多选 stored as `text[]`), so `contains`
 * tests membership instead of a substring.
 */
export type ArrayColumnTest = (field: FieldMeta) => boolean;

/** 多选 is stored as text[] (catalog/fields.ts columnSqlType; docs/datatable.md). */
export const isArrayColumn: ArrayColumnTest = (f) => f.uidt === '多选';

/**
 * Compile AND-ed conditions into SQL text over quoted identifiers, values as parameters
 * (R-DT-49). `alias` prefixes columns (e.g. `t`). No conditions → `TRUE`.
 * Operators: eq `=`, ne `IS DISTINCT FROM` (NULLs count as different), gt/gte/lt/lte,
 * contains (case-insensitive substring of the text form; membership for 多选 arrays; with
 * `pattern` a case-insensitive LIKE pattern — on 多选, any item matching),
 * in `= ANY($n)`, between `BETWEEN $a AND $b`, is_null / not_null.
 */
export function compileConditions(table: TableMeta, conditions: readonly FilterCond[], params: SqlParams, alias?: string): string {
  if (conditions.length === 0) return 'TRUE';
  const parts: string[] = [];
  for (const c of conditions) {
    const col = alias ? `${quoteIdent(alias)}.${quoteIdent(c.field)}` : quoteIdent(c.field);
    const meta = table.fields.find((f) => f.title === c.field);
    switch (c.op) {
      case 'eq':
        parts.push(`${col} = ${params.add(c.value)}`);
        break;
      case 'ne':
        parts.push(`${col} IS DISTINCT FROM ${params.add(c.value)}`);
        break;
      case 'gt':
        parts.push(`${col} > ${params.add(c.value)}`);
        break;
      case 'gte':
        parts.push(`${col} >= ${params.add(c.value)}`);
        break;
      case 'lt':
        parts.push(`${col} < ${params.add(c.value)}`);
        break;
      case 'lte':
        parts.push(`${col} <= ${params.add(c.value)}`);
        break;
      case 'contains':
        if (c.pattern) {
          if (meta && isArrayColumn(meta))
            parts.push(`EXISTS (SELECT 1 FROM unnest(${col}) AS m(v) WHERE m.v ILIKE ${params.add(String(c.value))}::text)`);
          else parts.push(`${col}::text ILIKE ${params.add(String(c.value))}::text`);
        } else if (meta && isArrayColumn(meta)) parts.push(`${params.add(String(c.value))}::text = ANY(${col})`);
        else parts.push(`strpos(lower(${col}::text), lower(${params.add(String(c.value))}::text)) > 0`);
        break;
      case 'in':
        parts.push(`${col} = ANY(${params.add(c.value)})`);
        break;
      case 'between':
        parts.push(`${col} BETWEEN ${params.add((c.value as unknown[])[0])} AND ${params.add((c.value as unknown[])[1])}`);
        break;
      case 'is_null':
        parts.push(`${col} IS NULL`);
        break;
      case 'not_null':
        parts.push(`${col} IS NOT NULL`);
        break;
    }
  }
  return parts.map((p) => `(${p})`).join(' AND ');
}
