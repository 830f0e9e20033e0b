/**
 * Read actions of the datatable: `query` → `{list, pageInfo}`
 * (R-DT-31, R-DT-56/57) and `aggregate` → `{rows, group_by, metrics}` (R-DT-32, R-DT-55/58).
 * Both apply the filters AND the own-scope owner condition, to the rows and to the counts
 * (R-DT-16, R-DT-22). Limits above the maximum are clamped with an action_note.
 */
import type { Envelope } from '../../envelope/types.ts';
import { quoteIdent } from '../model/naming.ts';
import { dbErrorEnvelope, dtFail, type DtLang } from '../model/results.ts';
import {
  clampLimit,
  joinNotes,
  numericOut,
  parseSort,
  rowOut,
  scopedWhere,
  selectList,
  SqlParams,
  tableRef,
  type RowHandler,
} from './rows.ts';
import type { TableMeta } from '../model/types.ts';

/** query: default and maximum limit (R-DT-57). */
export const QUERY_LIMIT = { default: 100, max: 1000 } as const;
/** aggregate: default and maximum limit (R-DT-58). */
export const AGGREGATE_LIMIT = { default: 1000, max: 10000 } as const;

/** The five metric operators (R-DT-55). */
export const METRIC_OPS = ['sum', 'avg', 'max', 'min', 'count'] as const;
export type MetricOp = (typeof METRIC_OPS)[number];

/** A checked metric. `field` is absent for `count(*)`. */
export interface Metric {
  field?: string;
  op: MetricOp;
  alias: string;
}

function withNote(env: Envelope, note: string | undefined): Envelope {
  return note ? { ...env, action_note: note } : env;
}

/**
 * `query(table_id, filters?, sort?, limit?, offset?)` → `{list, pageInfo: {totalRows, limit,
 * offset, hasMore}}`. `totalRows` counts the scoped rows (R-DT-22); default order `id DESC`.
 */
export const query: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const limit = clampLimit(payload.limit ?? payload.page_size, QUERY_LIMIT.default, QUERY_LIMIT.max, lang);
  if ('envelope' in limit) return limit.envelope;
  const offset = clampLimit(payload.offset, 0, Number.MAX_SAFE_INTEGER, lang, 'offset');
  if ('envelope' in offset) return offset.envelope;
  const sort = parseSort(table, payload.sort, lang);
  if ('envelope' in sort) return sort.envelope;
  const params = new SqlParams();
  const where = scopedWhere(table, access, env.caller, payload.filters, params);
  if ('envelope' in where) return where.envelope;
  const note = joinNotes([...where.notes, sort.note, limit.note]);
  try {
    const { list, total } = await env.tx(async (tx) => {
      const count = await tx.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${tableRef(table)} WHERE ${where.sql}`, params.values);
      const lim = params.add(limit.value);
      const off = params.add(offset.value);
      const rows = await tx.query(
        `SELECT ${selectList(table)} FROM ${tableRef(table)} WHERE ${where.sql} ORDER BY ${sort.sql} LIMIT ${lim} OFFSET ${off}`,
        params.values,
      );
      return { list: rows.rows.map((r) => rowOut(table, r)), total: Number(count.rows[0]?.n ?? 0) };
    });
    const body: Envelope = {
      success: true,
      list,
      pageInfo: { totalRows: total, limit: limit.value, offset: offset.value, hasMore: offset.value + list.length < total },
    };
    return withNote(body, note);
  } catch (err) {
    return withNote(dbErrorEnvelope(err, 'query', lang), note);
  }
};

function fieldTitle(table: TableMeta, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === 'id' || lower === 'created_at') return lower;
  return table.fields.find((f) => f.title === name)?.title;
}

/**
 * Check `metrics` (R-DT-55): a non-empty array of `{field?, op, alias?}`; op among
 * sum/avg/max/min/count (case-insensitive); `count` may omit field; sum/avg need a 整数/数字
 * field (or id); aliases default to `<op>_<field>` (`count`) and must be unique.
 */
export function parseMetrics(table: TableMeta, raw: unknown, lang: DtLang): { metrics: Metric[]; note?: string } | { envelope: Envelope } {
  const bad = (zh: string, en: string) => ({ envelope: dtFail('recoverable', { zh, en }, lang, { need_param: 'metrics' }) });
  let src = raw;
  let note: string | undefined;
  if (src && typeof src === 'object' && !Array.isArray(src)) {
    src = [src];
    note = 'metrics (one object) → [metrics]';
  }
  if (!Array.isArray(src) || src.length === 0) {
    return bad(
      'metrics 必填：如 [{"field": "租金", "op": "sum", "alias": "总租金"}]',
      'metrics is required, e.g. [{"field": "租金", "op": "sum", "alias": "总租金"}]',
    );
  }
  const out: Metric[] = [];
  for (let i = 0; i < src.length; i++) {
    const m = src[i] as Record<string, unknown> | null;
    if (!m || typeof m !== 'object' || Array.isArray(m))
      return bad(`metrics 第 ${i + 1} 项必须是对象。`, `metrics item ${i + 1} must be an object`);
    const op = typeof m.op === 'string' ? m.op.trim().toLowerCase() : '';
    if (!(METRIC_OPS as readonly string[]).includes(op)) {
      return bad(
        `metrics 第 ${i + 1} 项的 op「${String(m.op)}」不支持（可用：sum avg max min count）。`,
        `metrics item ${i + 1}: op must be one of sum, avg, max, min, count`,
      );
    }
    let field: string | undefined;
    if (m.field !== undefined && m.field !== null && m.field !== '' && m.field !== '*') {
      if (typeof m.field !== 'string')
        return bad(`metrics 第 ${i + 1} 项的 field 必须是字段名。`, `metrics item ${i + 1}: field must be a field name`);
      field = fieldTitle(table, m.field.trim());
      if (!field) return bad(`统计字段「${m.field}」不存在。`, `metric field "${m.field}" does not exist`);
    } else if (op !== 'count') {
      return bad(`metrics 第 ${i + 1} 项（${op}）需要 field。`, `metrics item ${i + 1}: ${op} needs a field`);
    }
    if ((op === 'sum' || op === 'avg') && field && field !== 'id') {
      const f = table.fields.find((x) => x.title === field);
      if (f && f.uidt !== '整数' && f.uidt !== '数字')
        return bad(`「${field}」是${f.uidt}字段，不能求和或求平均（${op}）。`, `"${field}" is a ${f.uidt} field; ${op} needs 整数 or 数字`);
    }
    if ((op === 'max' || op === 'min') && field) {
      // PostgreSQL has no max/min over boolean (SQLSTATE 42883): refuse with the field named.
      const f = table.fields.find((x) => x.title === field);
      if (f && f.uidt === '勾选') {
        return bad(
          `「${field}」是勾选字段，不能求最大/最小值；请用 count 配合 filters（如 {"field": "${field}", "op": "eq", "value": true}）统计勾选的行数。`,
          `"${field}" is a 勾选 (checkbox) field; max/min are not defined for it — count the checked rows with a filter {"field": "${field}", "op": "eq", "value": true} instead`,
        );
      }
    }
    const alias = typeof m.alias === 'string' && m.alias.trim() !== '' ? m.alias.trim() : field ? `${op}_${field}` : 'count';
    if (out.some((x) => x.alias === alias)) return bad(`metrics 的 alias「${alias}」重复。`, `metric alias "${alias}" is used twice`);
    out.push(field ? { field, op: op as MetricOp, alias } : { op: op as MetricOp, alias });
  }
  return note ? { metrics: out, note } : { metrics: out };
}

function parseGroupBy(table: TableMeta, raw: unknown, lang: DtLang): { fields: string[] } | { envelope: Envelope } {
  if (raw === undefined || raw === null || raw === '') return { fields: [] };
  const list =
    typeof raw === 'string'
      ? raw
          .split(/[,，]/)
          .map((s) => s.trim())
          .filter(Boolean)
      : raw;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) {
    return {
      envelope: dtFail(
        'recoverable',
        { zh: 'group_by 必须是字段名或字段名数组。', en: 'group_by must be a field name or an array of names' },
        lang,
        { need_param: 'group_by' },
      ),
    };
  }
  const fields: string[] = [];
  for (const name of list as string[]) {
    const t = fieldTitle(table, name.trim());
    if (!t)
      return {
        envelope: dtFail('recoverable', { zh: `分组字段「${name}」不存在。`, en: `group_by field "${name}" does not exist` }, lang, {
          need_param: 'group_by',
        }),
      };
    if (!fields.includes(t)) fields.push(t);
  }
  return { fields };
}

/** A metric value: count/sum as exact numbers (strings when too large), avg as a number. */
function metricOut(m: Metric, table: TableMeta, v: unknown): unknown {
  if (v === null || v === undefined) return m.op === 'count' ? 0 : null;
  if (v instanceof Date) return v.toISOString();
  const f = m.field ? table.fields.find((x) => x.title === m.field) : undefined;
  const numeric = m.op === 'count' || m.op === 'sum' || m.op === 'avg' || m.field === 'id' || f?.uidt === '整数' || f?.uidt === '数字';
  if (!numeric) return v;
  if (m.op === 'avg' && typeof v === 'string' && Number.isFinite(Number(v))) return Number(v);
  return numericOut(v);
}

/**
 * The SQL of one metric. max/min over 日期 / 日期时间 / 时间 are returned as PostgreSQL's text
 * of the value — exactly what `query` returns for those fields (`YYYY-MM-DD`,
 * `YYYY-MM-DD HH:MM:SS[.f]`, `HH:MM:SS`), never a driver Date serialised in the server's zone.
 */
function metricSql(m: Metric, table: TableMeta): string {
  if (!m.field) return 'count(*)';
  const col = quoteIdent(m.field);
  const f = table.fields.find((x) => x.title === m.field);
  if ((m.op === 'max' || m.op === 'min') && f && (f.uidt === '日期' || f.uidt === '日期时间' || f.uidt === '时间'))
    return `${m.op}(${col})::text`;
  return `${m.op}(${col})`;
}

/**
 * `aggregate(table_id, metrics, group_by?, filters?, sort?, limit?)` → `{rows, group_by,
 * metrics}` (R-DT-32). Rows hold the group fields and one value per metric alias (exact
 * numbers as JSON numbers, else decimal strings); counts respect the own scope (R-DT-22).
 * `sort` may name a group field or a metric alias (default: group fields ascending);
 * limit default 1000, max 10000 (clamped with a note, A-28).
 */
export const aggregate: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const metrics = parseMetrics(table, payload.metrics, lang);
  if ('envelope' in metrics) return metrics.envelope;
  const groups = parseGroupBy(table, payload.group_by, lang);
  if ('envelope' in groups) return groups.envelope;
  const limit = clampLimit(payload.limit, AGGREGATE_LIMIT.default, AGGREGATE_LIMIT.max, lang);
  if ('envelope' in limit) return limit.envelope;
  const params = new SqlParams();
  const where = scopedWhere(table, access, env.caller, payload.filters, params);
  if ('envelope' in where) return where.envelope;

  let order = groups.fields.map((g) => `${quoteIdent(g)} ASC NULLS LAST`).join(', ');
  if (typeof payload.sort === 'string' && payload.sort.trim() !== '') {
    const s = payload.sort.trim();
    const desc = s.startsWith('-');
    const name = desc ? s.slice(1).trim() : s;
    const metric = metrics.metrics.find((m) => m.alias === name);
    const group = groups.fields.find((g) => g === name);
    if (!metric && !group) {
      return dtFail(
        'recoverable',
        {
          zh: `aggregate 的 sort 只能是分组字段或统计别名，「${name}」不是。`,
          en: `aggregate sort must name a group field or a metric alias, not "${name}"`,
        },
        lang,
        { need_param: 'sort' },
      );
    }
    order = `${quoteIdent(name)} ${desc ? 'DESC' : 'ASC'} NULLS LAST`;
  }
  const note = joinNotes([...where.notes, metrics.note, limit.note]);
  const groupCols = groups.fields.map((g) => quoteIdent(g));
  const select = [
    ...groups.fields.map((g) => {
      const f = table.fields.find((x) => x.title === g);
      return f && (f.uidt === '日期' || f.uidt === '日期时间' || f.uidt === '时间')
        ? `${quoteIdent(g)}::text AS ${quoteIdent(g)}`
        : quoteIdent(g);
    }),
    ...metrics.metrics.map((m) => `${metricSql(m, table)} AS ${quoteIdent(m.alias)}`),
  ].join(', ');
  const lim = params.add(limit.value);
  const sql =
    `SELECT ${select} FROM ${tableRef(table)} WHERE ${where.sql}` +
    (groupCols.length ? ` GROUP BY ${groupCols.join(', ')}` : '') +
    (order ? ` ORDER BY ${order}` : '') +
    ` LIMIT ${lim}`;
  try {
    const rows = await env.tx((tx) => tx.query(sql, params.values));
    const out = rows.rows.map((r) => {
      const o: Record<string, unknown> = {};
      for (const g of groups.fields) {
        const f = table.fields.find((x) => x.title === g);
        const v = r[g];
        o[g] = v instanceof Date ? v.toISOString() : g === 'id' || f?.uidt === '整数' || f?.uidt === '数字' ? numericOut(v) : (v ?? null);
      }
      for (const m of metrics.metrics) o[m.alias] = metricOut(m, table, r[m.alias]);
      return o;
    });
    return withNote({ success: true, rows: out, group_by: groups.fields, metrics: metrics.metrics }, note);
  } catch (err) {
    return withNote(dbErrorEnvelope(err, 'aggregate', lang), note);
  }
};
