/**
 * The set-wise INSERT of one column-encoded chunk (R-DT-98, R-DT-99): one
 * `INSERT … SELECT … FROM unnest($1::<type>[], …) WITH ORDINALITY` in a SAVEPOINT, the column
 * arrays sent as the literals column-chunk.ts built, ids computed from a pre-allocated range
 * (`lo + ordinality − 1`, so no id list travels). A unique violation with rows already in the
 * table is answered with `ON CONFLICT DO NOTHING` plus one query for the ids that did not go
 * in (exactly the conflicting rows); any other failure hands the chunk, as rows, to the
 * split-in-halves engine of batch-insert.ts (down to one SAVEPOINT per row). On the server
 * engine a chunk goes by `COPY … FROM STDIN` first (column-copy.ts) and falls back to this path.
 */
import type { Tx } from '../../store/db.ts';
import { insertPart, uniqueRowError, type BatchCounts, type PartOptions, type ValidRow } from './batch-insert.ts';
import type { ColumnChunk } from './column-chunk.ts';
import { COPY_TUNING, copyChunk } from './column-copy.ts';
import { columnSqlType } from '../catalog/fields.ts';
import { quoteIdent } from '../model/naming.ts';
import { sqlState, type DtLang } from '../model/results.ts';
import { tableRef } from '../read/rows.ts';
import type { FieldMeta, TableMeta } from '../model/types.ts';

/** Ids pre-allocated for a chunk's rows, in row order: one range `lo…lo+n−1`, or a list (when the sequence had gaps). */
export type IdBlock = { lo: bigint } | { list: string[] };

/** The id of row `i` of a block, as text. */
export function idAt(ids: IdBlock, i: number): string {
  return 'lo' in ids ? String(ids.lo + BigInt(i)) : ids.list[i]!;
}

/** The set-wise INSERT of a chunk without a conflict clause; null when it writes no column and has no ids. */
export function columnInsertSql(
  table: TableMeta,
  fields: readonly FieldMeta[],
  chunk: ColumnChunk,
  ids: IdBlock | null,
): { sql: string; values: unknown[] } | null {
  const names: string[] = [];
  const exprs: string[] = [];
  const args: string[] = [];
  const aliases: string[] = [];
  const values: unknown[] = [];
  for (let j = 0; j < fields.length; j++) {
    if (!chunk.present[j]) continue;
    const f = fields[j]!;
    const a = `c${aliases.length}`;
    values.push(`{${chunk.cols[j]!.join(',')}}`);
    // 多选 (text[]) travels as text literals cast per row; 数字 as plain numeric (the column's precision applies on assignment).
    args.push(`$${values.length}::${f.uidt === '多选' ? 'text' : f.uidt === '数字' ? 'numeric' : columnSqlType(f)}[]`);
    aliases.push(a);
    names.push(quoteIdent(f.title));
    exprs.push(f.uidt === '多选' ? `u.${a}::text[]` : `u.${a}`);
  }
  if (ids && 'list' in ids) {
    values.push(`{${ids.list.join(',')}}`);
    args.push(`$${values.length}::bigint[]`);
    aliases.push('id');
    names.unshift('"id"');
    exprs.unshift('u.id');
  }
  if (args.length === 0) return null;
  if (ids && 'lo' in ids) {
    values.push(String(ids.lo));
    names.unshift('"id"');
    exprs.unshift(`$${values.length}::bigint + u.ord - 1`);
  }
  return {
    sql: `INSERT INTO ${tableRef(table)} (${names.join(', ')}) SELECT ${exprs.join(', ')} FROM unnest(${args.join(', ')}) WITH ORDINALITY AS u(${aliases.join(', ')}, ord)`,
    values,
  };
}

/**
 * The chunk's rows whose value of a unique field (`unique`: indexes into `fields`, as
 * `ColumnEncoder.unique`) is already in the table — found before the INSERT, one indexed
 * probe per unique field: `unnest` of the column's array literal (the INSERT's own literal
 * and type, so equality is the column's) `WITH ORDINALITY`, kept where a row of the table has
 * that value. Rows of every owner count (the constraint is table-wide, as the INSERT would
 * see it). Row indexes (0-based, ascending, distinct) into `chunk`.
 */
export async function existingUniqueRows(
  q: Pick<Tx, 'query'>,
  table: TableMeta,
  fields: readonly FieldMeta[],
  unique: readonly number[],
  chunk: ColumnChunk,
): Promise<number[]> {
  const hit = new Set<number>();
  for (const j of unique) {
    if (!chunk.present[j]) continue;
    const f = fields[j]!;
    const type = f.uidt === '数字' ? 'numeric' : columnSqlType(f);
    const { rows } = await q.query<{ i: number }>(
      `SELECT (u.ord - 1)::int AS i FROM unnest($1::${type}[]) WITH ORDINALITY AS u(v, ord)
        WHERE u.v IS NOT NULL AND EXISTS (SELECT 1 FROM ${tableRef(table)} AS t WHERE t.${quoteIdent(f.title)} = u.v)`,
      [`{${chunk.cols[j]!.join(',')}}`],
    );
    for (const r of rows) hit.add(Number(r.i));
  }
  return [...hit].sort((a, b) => a - b);
}

/**
 * Run the chunk's INSERT with `ON CONFLICT DO NOTHING`: the row indexes that did NOT go in.
 * When the row count says every row went in nothing else is asked; otherwise one query lists
 * the chunk's ids absent from the table afterwards.
 */
async function insertMissing(tx: Tx, table: TableMeta, q: { sql: string; values: unknown[] }, ids: IdBlock, n: number): Promise<number[]> {
  const got = (await tx.query(`${q.sql} ON CONFLICT DO NOTHING`, q.values)).rowCount;
  if (got === n) return [];
  const probe =
    'lo' in ids
      ? { from: 'generate_series($1::bigint, $2::bigint)', values: [String(ids.lo), String(ids.lo + BigInt(n - 1))] }
      : { from: 'unnest($1::bigint[])', values: [`{${ids.list.join(',')}}`] };
  const { rows } = await tx.query<{ id: string }>(
    `SELECT x::text AS id FROM ${probe.from} AS x WHERE NOT EXISTS (SELECT 1 FROM ${tableRef(table)} AS t WHERE t."id" = x)`,
    probe.values,
  );
  const at = new Map<string, number>();
  if ('list' in ids) for (const [i, id] of ids.list.entries()) at.set(id, i);
  return rows.map((r) => ('lo' in ids ? Number(BigInt(r.id) - ids.lo) : at.get(r.id)!));
}

/** Count a chunk after {@link insertMissing}: the missing rows conflicted on a unique constraint (skipped, or failed with 23505). */
function account(table: TableMeta, chunk: ColumnChunk, missing: number[], skip: boolean, out: BatchCounts, lang: DtLang): void {
  out.inserted += chunk.rows.length - missing.length;
  if (skip) out.skipped += missing.length;
  else {
    out.failed += missing.length;
    for (const i of missing.sort((a, b) => a - b)) out.errors.push(uniqueRowError(chunk.rows[i]!, table, lang));
  }
}

/**
 * Insert a column-encoded chunk (R-DT-98). On the server engine (`tx.copyFrom`) and without
 * `part.skip`: one `COPY … FROM STDIN` in a SAVEPOINT (column-copy.ts); when it fails the
 * SAVEPOINT is rolled back and a unique violation goes to the ON CONFLICT form below, any
 * other failure to the unnest statement and the split, so each bad row is reported as on
 * the embedded engine. Otherwise: one set-wise statement in a SAVEPOINT; with
 * `part.returning` (a unique conflict was seen earlier in this import) directly in the
 * ON CONFLICT form. A unique violation switches to that form (and, through `part.adaptive`,
 * the rest of the import); any other failure — or a chunk that writes no column — goes to
 * {@link insertPart} with the chunk as rows (`asRows`), which isolates the failing rows.
 */
export async function insertColumns(
  tx: Tx,
  table: TableMeta,
  fields: readonly FieldMeta[],
  chunk: ColumnChunk,
  ids: IdBlock | null,
  part: PartOptions,
  out: BatchCounts,
  lang: DtLang,
  asRows: () => ValidRow[],
): Promise<void> {
  const n = chunk.rows.length;
  if (n === 0) return;
  if (tx.copyFrom && !part.skip && COPY_TUNING.enabled) {
    // Server engine: COPY first, whatever `part.returning` says (a conflict in one chunk
    // says little about the next). A unique conflict is then answered as below (ON CONFLICT
    // DO NOTHING + the missing ids); any other failure takes the unnest path and its split.
    try {
      const got = await copyChunk(tx, table, fields, chunk, ids);
      if (got !== null) {
        out.inserted += got;
        return;
      }
    } catch (err) {
      if (ids && sqlState(err) === '23505') {
        try {
          const q = columnInsertSql(table, fields, chunk, ids)!;
          account(table, chunk, await tx.savepoint((sp) => insertMissing(sp, table, q, ids, n)), false, out, lang);
          return;
        } catch {
          return insertPart(tx, table, asRows(), part, out, lang);
        }
      }
    }
  }
  const q = columnInsertSql(table, fields, chunk, ids);
  if (q) {
    try {
      if (part.returning && ids) {
        account(table, chunk, await tx.savepoint((sp) => insertMissing(sp, table, q, ids, n)), part.skip, out, lang);
      } else {
        const got = (await tx.savepoint((sp) => sp.query(part.skip ? `${q.sql} ON CONFLICT DO NOTHING` : q.sql, q.values))).rowCount;
        out.inserted += got;
        out.skipped += n - got;
      }
      return;
    } catch (err) {
      if (!part.skip && !part.returning && ids && sqlState(err) === '23505') {
        try {
          account(table, chunk, await tx.savepoint((sp) => insertMissing(sp, table, q, ids, n)), false, out, lang);
          part.adaptive?.();
          return;
        } catch {
          // another kind of failure too: isolate row by row
        }
      }
    }
  }
  await insertPart(tx, table, asRows(), part, out, lang);
}
