/**
 * Row helpers shared by read.ts, write/write.ts and write/delete.ts: the SELECT list
 * and the JSON form of a row, the scoped WHERE (filters AND the own-scope owner condition,
 * R-DT-16/17/22), sort and limit parsing (R-DT-56..58, A-28).
 */
import type { Envelope } from '../../envelope/types.ts';
import { compileConditions, parseFilters, type FilterCond, type FilterValueCoercer, SqlParams } from './filters.ts';
import { quoteIdent, qualified } from '../model/naming.ts';
import { ownFilter, type OwnerScope } from '../access/permissions.ts';
import { dtFail, type DtLang } from '../model/results.ts';
import { coerceFilterValue } from '../values/filter.ts';
import type { DtCaller, EffectiveAccess, TableMeta } from '../model/types.ts';

/** `"schema"."title"` of a table. */
export function tableRef(table: Pick<TableMeta, 'schema' | 'title'>): string {
  return qualified(table.schema, table.title);
}

/**
 * The SELECT list of a table, in output order: `id`, the fields by position, `created_at`.
 * Dates, timestamps and times are sent as text (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS`,
 * `HH:MM:SS`), so no driver time-zone conversion touches them.
 */
export function selectList(table: Pick<TableMeta, 'fields'>, alias?: string): string {
  const p = alias ? `${quoteIdent(alias)}.` : '';
  const cols = [`${p}"id"`];
  for (const f of table.fields) {
    const c = `${p}${quoteIdent(f.title)}`;
    cols.push(f.uidt === '日期' || f.uidt === '日期时间' || f.uidt === '时间' ? `${c}::text AS ${quoteIdent(f.title)}` : c);
  }
  cols.push(`${p}"created_at"`);
  return cols.join(', ');
}

/** A decimal string as a JSON number when that is exact, else the string. */
export function numericOut(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (!/^-?\d+(\.\d+)?$/.test(v)) return v;
  const n = Number(v);
  if (!Number.isFinite(n)) return v;
  const canonical = v.includes('.') ? v.replace(/0+$/, '').replace(/\.$/, '') : v;
  return String(n) === canonical.replace(/^(-?)0+(\d)/, '$1$2') ? n : v;
}

/**
 * A database row as returned to the caller: `id` and 整数/数字 values as numbers when exact
 * (else decimal strings), JSON fields parsed back into values (R-DT-85b; a bad text stays a
 * string), `created_at` as an ISO string, everything else as stored.
 */
export function rowOut(table: Pick<TableMeta, 'fields'>, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  out.id = numericOut(row.id);
  for (const f of table.fields) {
    const v = row[f.title];
    if (v === null || v === undefined) out[f.title] = null;
    else if (f.uidt === '整数' || f.uidt === '数字') out[f.title] = numericOut(v);
    else if (f.uidt === 'JSON' && typeof v === 'string') {
      try {
        out[f.title] = JSON.parse(v) as unknown;
      } catch {
        out[f.title] = v;
      }
    } else out[f.title] = v;
  }
  const c = row.created_at;
  out.created_at = c instanceof Date ? c.toISOString() : (c ?? null);
  return out;
}

/** The filter-value normaliser of parseFilters: the value rules' (values/filter.ts). */
export function filterCoercer(lang: DtLang): FilterValueCoercer {
  return (field, value) => coerceFilterValue(field, value, lang);
}

/** A scoped WHERE: the SQL text (no `WHERE` keyword) and what it was built from. */
export interface ScopedWhere {
  sql: string;
  conditions: FilterCond[];
  owner: OwnerScope | null;
  notes: string[];
}

/**
 * Build `filters AND owner condition` for `table` (R-DT-16, R-DT-22; D-11):
 * filters parsed by {@link parseFilters} (refusals returned as envelopes), the owner
 * condition of an own-scope operator appended (a missing owner field or employee number
 * fails closed, R-DT-19/20). 多选 `eq` becomes `contains` (membership).
 * @param opts.requireFilters refuse when no filter condition is given (update_by/delete_by:
 *   never the whole table, D-11, R-DT-93) — the owner condition does not count.
 */
export function scopedWhere(
  table: TableMeta,
  access: EffectiveAccess,
  caller: Pick<DtCaller, 'empNo' | 'lang'>,
  rawFilters: unknown,
  params: SqlParams,
  opts: { requireFilters?: boolean; alias?: string } = {},
): ScopedWhere | { envelope: Envelope } {
  const lang = caller.lang;
  const scope = ownFilter(access, caller, table);
  if (!scope.ok) return { envelope: scope.envelope };
  const parsed = parseFilters(table, rawFilters, lang, filterCoercer(lang));
  if (!parsed.ok) return { envelope: parsed.envelope };
  const notes = [...parsed.notes];
  const conditions = parsed.conditions.map((c) => {
    const f = table.fields.find((x) => x.title === c.field);
    if (f?.uidt === '多选' && c.op === 'eq') {
      notes.push(`${c.field}: eq on 多选 → contains`);
      return { ...c, op: 'contains' as const };
    }
    return c;
  });
  if (opts.requireFilters && conditions.length === 0) {
    return {
      envelope: dtFail(
        'recoverable',
        {
          zh: 'filters 不能为空：按条件更新/删除必须给出至少一个筛选条件，避免作用到全表。',
          en: 'filters must not be empty: update_by / delete_by need at least one condition (never the whole table)',
        },
        lang,
        { need_param: 'filters' },
      ),
    };
  }
  let sql = compileConditions(table, conditions, params, opts.alias);
  if (scope.owner) {
    const prefix = opts.alias ? `${quoteIdent(opts.alias)}.` : '';
    const ownerSql = scope.owner.fields.map((f) => `${prefix}${quoteIdent(f)}::text = ${params.add(scope.owner!.empNo)}`).join(' OR ');
    sql = conditions.length === 0 ? `(${ownerSql})` : `${sql} AND (${ownerSql})`;
  }
  return { sql, conditions, owner: scope.owner, notes };
}

/** The owner-condition SQL alone (id-based update/delete, verified_total; R-DT-17/22). */
export function ownerSql(owner: OwnerScope | null, params: SqlParams, alias?: string): string {
  if (!owner) return 'TRUE';
  const prefix = alias ? `${quoteIdent(alias)}.` : '';
  return `(${owner.fields.map((f) => `${prefix}${quoteIdent(f)}::text = ${params.add(owner.empNo)}`).join(' OR ')})`;
}

/**
 * `sort` (R-DT-56): one field name, a leading `-` for descending; default `id DESC`. An
 * array of one string or `{field, desc|order}` is accepted with a note. `id DESC` is added as
 * a tie-breaker so pages are stable.
 */
export function parseSort(table: TableMeta, raw: unknown, lang: DtLang): { sql: string; note?: string } | { envelope: Envelope } {
  if (raw === undefined || raw === null || raw === '') return { sql: '"id" DESC' };
  let spec = raw;
  let note: string | undefined;
  if (Array.isArray(spec) && spec.length === 1) {
    spec = spec[0];
    note = 'sort (array of one) → sort';
  }
  if (spec && typeof spec === 'object' && !Array.isArray(spec)) {
    const o = spec as Record<string, unknown>;
    const desc =
      o.desc === true ||
      (typeof o.order === 'string' && /^desc/i.test(o.order)) ||
      (typeof o.direction === 'string' && /^desc/i.test(o.direction));
    if (typeof o.field === 'string') {
      spec = `${desc ? '-' : ''}${o.field}`;
      note = 'sort {field} → "<-field>"';
    }
  }
  if (typeof spec !== 'string') {
    return {
      envelope: dtFail(
        'recoverable',
        {
          zh: 'sort 必须是单个字段名，前缀 - 表示降序（如 "-金额"）。',
          en: 'sort must be one field name, "-" prefix for descending (e.g. "-金额")',
        },
        lang,
        { need_param: 'sort' },
      ),
    };
  }
  let name = spec.trim();
  let dir = 'ASC';
  if (name.startsWith('-')) {
    dir = 'DESC';
    name = name.slice(1).trim();
  } else if (name.startsWith('+')) name = name.slice(1).trim();
  const words = /^(.*?)\s+(asc|desc)$/i.exec(name);
  if (words) {
    name = words[1]!;
    dir = words[2]!.toUpperCase();
  }
  const lower = name.toLowerCase();
  const col = lower === 'id' || lower === 'created_at' ? lower : table.fields.find((f) => f.title === name)?.title;
  if (!col) {
    return {
      envelope: dtFail('recoverable', { zh: `排序字段「${name}」不存在。`, en: `sort field "${name}" does not exist` }, lang, {
        need_param: 'sort',
        fields: ['id', 'created_at', ...table.fields.map((f) => f.title)],
      }),
    };
  }
  const sql = col === 'id' ? `"id" ${dir}` : `${quoteIdent(col)} ${dir} NULLS LAST, "id" DESC`;
  return note ? { sql, note } : { sql };
}

/**
 * A limit with default and maximum (R-DT-57/58): above the maximum it is clamped and the
 * note says so (A-28); a non-integer or a value < 1 is refused.
 */
export function clampLimit(
  raw: unknown,
  def: number,
  max: number,
  lang: DtLang,
  name = 'limit',
): { value: number; note?: string } | { envelope: Envelope } {
  if (raw === undefined || raw === null || raw === '') return { value: def };
  const n = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < (name === 'offset' ? 0 : 1)) {
    return {
      envelope: dtFail(
        'recoverable',
        {
          zh: `${name} 必须是${name === 'offset' ? '非负' : '正'}整数。`,
          en: `${name} must be a ${name === 'offset' ? 'non-negative' : 'positive'} integer`,
        },
        lang,
        {
          need_param: name,
        },
      ),
    };
  }
  if (n > max) return { value: max, note: `${name} ${n} → ${max} (maximum)` };
  return { value: n };
}

export { SqlParams };

/** What the dispatcher resolved for a row action: the table and the operator's access on it. */
export interface RowCall {
  table: TableMeta;
  access: EffectiveAccess;
}

/** A row action: payload (canonical keys) and the resolved call → envelope. Never throws for input mistakes. */
export type RowHandler = (env: import('../model/types.ts').DtEnv, payload: Record<string, unknown>, call: RowCall) => Promise<Envelope>;

/** Join non-empty notes with "; " (undefined when none). */
export function joinNotes(notes: ReadonlyArray<string | undefined>): string | undefined {
  const n = notes.filter((x): x is string => typeof x === 'string' && x !== '');
  return n.length ? n.join('; ') : undefined;
}
