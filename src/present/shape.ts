/**
 * A result rendered from its shape when the skill gave no `display_md` (docs/results.md "How
 * a result is shown"): a list of records → a table (paged: the first rows and how many there
 * are), one record → a key/value list, a count or an id → a sentence, a list of values →
 * bullet lines. Nested values are summarised; raw JSON is never the default.
 */
import { cell, cutText, escapeMarkdown, plainValue, type CellOptions } from './cells.ts';
import { isInternalColumn, recordList, recordsTable, TABLE_PAGE_ROWS } from './table.ts';

type Rec = Record<string, unknown>;

function isRecord(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

function isScalar(v: unknown): boolean {
  return v === null || v instanceof Date || ['string', 'number', 'boolean'].includes(typeof v);
}

/** A list of objects (a table); nested values are allowed and shown compactly. */
export function isRecordList(v: unknown): v is Rec[] {
  return Array.isArray(v) && v.length > 0 && v.every(isRecord);
}

const COUNT_WORDS: Record<string, { zh: string; en: string }> = {
  count: { zh: '共 {n} 条', en: '{n} in total' },
  total: { zh: '共 {n} 条', en: '{n} in total' },
  inserted: { zh: '新增 {n} 条', en: '{n} inserted' },
  updated: { zh: '更新 {n} 条', en: '{n} updated' },
  deleted: { zh: '删除 {n} 条', en: '{n} deleted' },
  skipped: { zh: '跳过 {n} 条', en: '{n} skipped' },
  failed: { zh: '失败 {n} 条', en: '{n} failed' },
  affected: { zh: '影响 {n} 行', en: '{n} rows affected' },
};

function countSentence(rec: Rec, opts: CellOptions): string | null {
  const keys = Object.keys(rec).filter((k) => !isInternalColumn(k));
  if (keys.length === 0 || !keys.every((k) => k in COUNT_WORDS && typeof rec[k] === 'number')) return null;
  const parts = keys.map((k) =>
    (opts.lang === 'en' ? COUNT_WORDS[k]!.en : COUNT_WORDS[k]!.zh).replace('{n}', plainValue(rec[k], {}, opts)),
  );
  return opts.lang === 'en' ? `${parts.join(', ')}.` : `${parts.join('，')}。`;
}

function moreNote(shown: number, total: number, opts: CellOptions): string {
  return opts.lang === 'en' ? `Showing ${shown} of ${total} rows.` : `显示前 ${shown} 行，共 ${total} 行。`;
}

/** A table for a record list, with the paging note when rows were left out. */
function tableWithNote(rows: Rec[], total: number, opts: CellOptions): string {
  const md = recordsTable(rows, opts);
  const shown = Math.min(rows.length, TABLE_PAGE_ROWS);
  return total > shown ? `${md}\n\n${moreNote(shown, total, opts)}` : md;
}

function summary(v: unknown, opts: CellOptions): string {
  if (Array.isArray(v)) return opts.lang === 'en' ? `(${v.length} items)` : `（${v.length} 项）`;
  return cutText(JSON.stringify(v) ?? '', 80);
}

/** The markdown for `payload`; "" when there is nothing to show. */
export function renderShape(payload: unknown, opts: CellOptions): string {
  if (payload === null || payload === undefined) return '';
  if (isScalar(payload)) {
    if (typeof payload === 'boolean') return opts.lang === 'en' ? (payload ? 'Done.' : 'Not done.') : payload ? '已完成。' : '未完成。';
    return cell(payload, {}, { ...opts, maxChars: 2000 });
  }
  if (isRecordList(payload)) return tableWithNote(payload, payload.length, opts);
  if (Array.isArray(payload)) {
    const lines = payload
      .slice(0, 50)
      .map((x) => `- ${isScalar(x) ? cell(x, {}, { ...opts, maxChars: 200 }) || '—' : escapeMarkdown(summary(x, opts))}`);
    return payload.length > 50 ? `${lines.join('\n')}\n\n${moreNote(50, payload.length, opts)}` : lines.join('\n');
  }
  if (!isRecord(payload)) return '';
  const entries = Object.entries(payload).filter(([k]) => !isInternalColumn(k));
  if (entries.length === 0) return '';
  const sentence = countSentence(Object.fromEntries(entries), opts);
  if (sentence) return sentence;
  // Scalars as a key/value list, one nested list of records as a table, other values summarised.
  const tables = entries.filter(([, v]) => isRecordList(v));
  const scalars = Object.fromEntries(
    entries
      .filter(([, v]) => !isRecordList(v))
      .map(([k, v]) => [k, isScalar(v) || (Array.isArray(v) && v.every(isScalar)) ? v : summary(v, opts)]),
  );
  const total = pagingTotal(payload);
  const blocks: string[] = [];
  if (Object.keys(scalars).length) blocks.push(recordList(scalars, opts));
  for (const [k, rows] of tables) {
    const md = tableWithNote(rows as Rec[], tables.length === 1 && total !== null ? total : (rows as Rec[]).length, opts);
    blocks.push(tables.length > 1 ? `**${escapeMarkdown(k)}**\n\n${md}` : md);
  }
  return blocks.join('\n\n');
}

/** A total row count from a paging object beside the rows (`pageInfo.totalRows`, `total`). */
function pagingTotal(rec: Rec): number | null {
  const page = rec.pageInfo ?? rec.page_info;
  if (isRecord(page) && typeof page.totalRows === 'number') return page.totalRows;
  return null;
}
