/**
 * `COPY … FROM STDIN` of one column-encoded chunk (R-DT-98): the server
 * engine's fast path of a bulk import (COPY only through
 * {@link Tx.copyFrom}, which the embedded engine lacks — there the unnest INSERT of
 * column-insert.ts stays the path). The rows travel in COPY's text format, built from the
 * same array-literal elements column-chunk.ts made for the unnest INSERT, so both paths
 * send the same typed text; ids go as a column (the pre-allocated range or list).
 */
import type { Tx } from '../../store/db.ts';
import type { ColumnChunk } from './column-chunk.ts';
import { idAt, type IdBlock } from './column-insert.ts';
import { quoteIdent } from '../model/naming.ts';
import { tableRef } from '../read/rows.ts';
import type { FieldMeta, TableMeta } from '../model/types.ts';
import { isBareElement } from '../values/literal.ts';

/**
 * Whether bulk imports use COPY on the server engine. Default **false**: measured 2026-12-01
 * (docs/datatable.md "Throughput") the import's wall time is bound by the client's CPU, and
 * building the COPY text costs the client more than the server saves, so the unnest INSERT
 * was as fast or faster. Tests and the bench switch it on.
 */
export const COPY_TUNING = { enabled: false };

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_G = /[\\\t\n\r]/g;

/**
 * The COPY text-format field of one array-literal element (values/literal.ts `elementOf`):
 * `NULL` → `\N`; a double-quoted element is unquoted (its `\"` and `\\` undone); then `\`,
 * tab, newline and carriage return are escaped as `\\`, `\t`, `\n`, `\r`. Bare elements
 * (numbers, dates, times, booleans) hold none of those and pass as they are.
 */
export function copyField(el: string): string {
  if (el === 'NULL') return '\\N';
  if (el.charCodeAt(0) !== 34) return el;
  let s = el.slice(1, -1);
  if (s.indexOf('\\') >= 0) s = s.replace(/\\(.)/gs, '$1');
  return COPY_SPECIAL.test(s) ? s.replace(COPY_SPECIAL_G, (c) => COPY_ESCAPES[c]!) : s;
}

/**
 * The COPY statement and text-format data of a chunk: the columns some row carries (as the
 * unnest INSERT writes them), preceded by `id` when ids are pre-allocated.
 * @returns null when the chunk writes no column and has no ids (nothing COPY could name).
 */
export function columnCopy(
  table: TableMeta,
  fields: readonly FieldMeta[],
  chunk: ColumnChunk,
  ids: IdBlock | null,
): { sql: string; data: string } | null {
  const names: string[] = ids ? ['"id"'] : [];
  const cols: string[][] = [];
  const n = chunk.rows.length;
  for (let j = 0; j < fields.length; j++) {
    if (!chunk.present[j]) continue;
    names.push(quoteIdent(fields[j]!.title));
    const src = chunk.cols[j]!;
    const out = new Array<string>(n);
    // Bare kinds (values/literal.ts): only NULL changes.
    if (isBareElement(fields[j]!.uidt)) for (let i = 0; i < n; i++) out[i] = src[i] === 'NULL' ? '\\N' : src[i]!;
    else for (let i = 0; i < n; i++) out[i] = copyField(src[i]!);
    cols.push(out);
  }
  if (names.length === 0) return null;
  const lines = new Array<string>(n);
  const m = cols.length;
  for (let i = 0; i < n; i++) {
    let line = ids ? idAt(ids, i) : cols[0]![i]!;
    for (let k = ids ? 0 : 1; k < m; k++) line += '\t' + cols[k]![i]!;
    lines[i] = line;
  }
  return { sql: `COPY ${tableRef(table)} (${names.join(', ')}) FROM STDIN`, data: lines.join('\n') + '\n' };
}

/**
 * COPY the chunk in a SAVEPOINT (server engine; `tx.copyFrom` must exist). On failure the
 * SAVEPOINT is rolled back — the transaction stays usable (R-DT-99) — and the error rethrown.
 * @returns rows copied, or null when there is nothing COPY could name.
 */
export async function copyChunk(
  tx: Tx,
  table: TableMeta,
  fields: readonly FieldMeta[],
  chunk: ColumnChunk,
  ids: IdBlock | null,
): Promise<number | null> {
  const copy = tx.copyFrom;
  if (!copy) throw new Error('copyChunk: COPY FROM STDIN needs the server engine');
  const c = columnCopy(table, fields, chunk, ids);
  if (!c) return null;
  return tx.savepoint(() => copy.call(tx, c.sql, c.data));
}
