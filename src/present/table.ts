/**
 * Records as a markdown table people can read (docs/results.md "How a result is shown"): the
 * internal columns dropped, the columns a person cares about first (named ones in the given
 * order, then ids and timestamps), at most `maxRows` rows, cells cut and formatted by
 * {@link cell}. Every channel's dialect renders the table (web HTML, Telegram `<pre>`, Feishu
 * card table, aligned plain text).
 */
import { cell, escapeMarkdown, isIdColumn, type CellOptions, type ColumnHint } from './cells.ts';

/** Column names never shown to people (platform plumbing and model-facing paging). */
const INTERNAL_COLUMNS = new Set([
  'schema',
  'qualified',
  'qualified_name',
  'origin_openid',
  'openid',
  'open_id',
  'union_id',
  'pageinfo',
  'page_info',
  'local_path',
  'stack',
  'traceback',
]);

/** True when a column or key named `name` is internal (also `_`-prefixed and `*_openid`). */
export function isInternalColumn(name: string): boolean {
  return name.startsWith('_') || INTERNAL_COLUMNS.has(name.toLowerCase()) || /_open_?id$/i.test(name);
}

const TRAILING_RE = /^(id|created_at|updated_at|created_by|updated_by|row_id)$/i;

/** Rows shown in one table before the rest is left to a "more" action. */
export const TABLE_PAGE_ROWS = 20;

/** How a table is built. */
export interface TableOptions extends CellOptions {
  /** Column order to use first (a data table's fields); others follow in first-seen order. */
  columns?: readonly string[];
  hints?: Readonly<Record<string, ColumnHint>>;
  /** Most rows (default {@link TABLE_PAGE_ROWS}). */
  maxRows?: number;
}

/** The shown columns of `rows`, in reading order. */
export function tableColumns(rows: readonly Record<string, unknown>[], order: readonly string[] = []): string[] {
  const seen: string[] = [];
  for (const c of order) if (!seen.includes(c)) seen.push(c);
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.includes(k)) seen.push(k);
  const present = seen.filter((c) => !isInternalColumn(c) && rows.some((r) => Object.hasOwn(r, c)));
  return [...present.filter((c) => !TRAILING_RE.test(c)), ...present.filter((c) => TRAILING_RE.test(c))];
}

/** The hint of column `c`: the given one, else `id` for an identifier-like name ({@link isIdColumn}). */
export function columnHint(opts: Pick<TableOptions, 'hints'>, c: string): ColumnHint {
  return opts.hints?.[c] ?? (isIdColumn(c) ? { kind: 'id' } : {});
}

/** A markdown table of `rows` (at most `maxRows`); "" when there is nothing to show. */
export function recordsTable(rows: readonly Record<string, unknown>[], opts: TableOptions): string {
  const cols = tableColumns(rows, opts.columns);
  if (cols.length === 0 || rows.length === 0) return '';
  const hint = (c: string): ColumnHint => columnHint(opts, c);
  const shown = rows.slice(0, opts.maxRows ?? TABLE_PAGE_ROWS);
  const numeric = cols.map(
    (c) =>
      shown.some((r) => typeof r[c] === 'number') && shown.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === 'number'),
  );
  return [
    `| ${cols.map((c) => escapeMarkdown(c)).join(' | ')} |`,
    `|${cols.map((_, i) => (numeric[i] ? ' --: ' : ' --- ')).join('|')}|`,
    ...shown.map((r) => `| ${cols.map((c) => cell(r[c], hint(c), opts)).join(' | ')} |`),
  ].join('\n');
}

/** One record as a key/value list, field names as written; "" when nothing to show. */
export function recordList(record: Readonly<Record<string, unknown>>, opts: TableOptions): string {
  const cols = tableColumns([record], opts.columns);
  const sep = opts.lang === 'en' ? ': ' : '：';
  return cols
    .map((c) => {
      const v = record[c];
      const text = cell(v, columnHint(opts, c), { ...opts, maxChars: opts.maxChars ?? 200 });
      return `- **${escapeMarkdown(c)}**${sep}${text === '' ? '—' : text}`;
    })
    .join('\n');
}
