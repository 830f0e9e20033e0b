/**
 * The set-wise insert engine of the batch writes (R-DT-98, R-DT-99): one
 * `INSERT … SELECT … FROM unnest(<typed array literals>)` per part inside a SAVEPOINT, the
 * unique-conflict retry `ON CONFLICT DO NOTHING` (then only the missing ids are read back), and the split in halves down to
 * one SAVEPOINT per row. Used by write-batch.ts (which validates, chunks and commits).
 */
import type { Tx } from '../../store/db.ts';
import { columnSqlType } from '../catalog/fields.ts';
import { quoteIdent } from '../model/naming.ts';
import { sqlState, type DtLang } from '../model/results.ts';
import { SqlParams, tableRef } from '../read/rows.ts';
import type { TableMeta } from '../model/types.ts';
import type { DbValue } from '../values/coerce.ts';
import { elementOf } from '../values/literal.ts';

/** One refused or failed row of a batch. `row` is 1-based (position in records / the file). */
export interface RowError {
  row: number;
  error: string;
  field?: string;
  value?: unknown;
  sqlstate?: string;
}

/** Counts of a batch (R-DT-34, R-DT-103). */
export interface BatchCounts {
  inserted: number;
  skipped: number;
  failed: number;
  errors: RowError[];
}

/** A record that passed validation. */
export interface ValidRow {
  /** 1-based position. */
  row: number;
  values: Record<string, DbValue>;
  /** A pre-allocated `id` (keeps ids in input order when chunks are inserted concurrently). */
  id?: string;
}

/** The columns a set of rows writes, in field order. */
export function columnsOf(table: TableMeta, rows: readonly ValidRow[]): string[] {
  const used = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r.values)) used.add(k);
  return table.fields.map((f) => f.title).filter((t) => used.has(t));
}

/** The set-wise INSERT of `rows` (columns used by any row; ids when pre-allocated), without a conflict clause. */
function chunkInsertSql(table: TableMeta, rows: readonly ValidRow[]): { sql: string; values: unknown[] } | null {
  const cols = columnsOf(table, rows);
  const withId = rows.every((r) => r.id !== undefined);
  if (cols.length === 0 && !withId) return null;
  const fields = cols.map((c) => table.fields.find((f) => f.title === c)!);
  const arrays: string[] = cols.map((c, j) => {
    const field = fields[j]!;
    const parts = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const v = rows[i]!.values;
      parts[i] = elementOf(field, Object.hasOwn(v, c) ? v[c] : undefined);
    }
    return `{${parts.join(',')}}`;
  });
  // 多选 (text[]) travels as text literals and is cast per row; 数字 as plain numeric (the
  // column's precision applies on assignment); the rest in the column's own type.
  const types = fields.map((f) => (f.uidt === '多选' ? 'text' : f.uidt === '数字' ? 'numeric' : columnSqlType(f)));
  const aliases = cols.map((_, j) => `c${j}`);
  const exprs = fields.map((f, j) => (f.uidt === '多选' ? `u.${aliases[j]}::text[]` : `u.${aliases[j]}`));
  const names = cols.map(quoteIdent);
  if (withId) {
    arrays.push(`{${rows.map((r) => r.id).join(',')}}`);
    types.push('bigint');
    aliases.push('id');
    exprs.unshift('u.id');
    names.unshift('"id"');
  }
  return {
    sql: `INSERT INTO ${tableRef(table)} (${names.join(', ')}) SELECT ${exprs.join(', ')} FROM unnest(${types.map((t, j) => `$${j + 1}::${t}[]`).join(', ')}) AS u(${aliases.join(', ')})`,
    values: arrays,
  };
}

async function insertChunk(tx: Tx, table: TableMeta, rows: readonly ValidRow[], skip: boolean): Promise<number> {
  const conflict = skip ? ' ON CONFLICT DO NOTHING' : '';
  const q = chunkInsertSql(table, rows);
  if (!q) {
    // Rows with no values: one DEFAULT VALUES row each (rare; the set-wise form needs a column).
    let n = 0;
    for (let i = 0; i < rows.length; i++) n += (await tx.query(`INSERT INTO ${tableRef(table)} DEFAULT VALUES${conflict}`)).rowCount;
    return n;
  }
  return (await tx.query(q.sql + conflict, q.values)).rowCount;
}

/**
 * The chunk with `ON CONFLICT DO NOTHING` (rows need pre-allocated ids): the ids that did NOT
 * go in. When every row went in (the row count says so) nothing else is asked; otherwise one
 * query lists the chunk's ids absent from the table — only the few conflicting ones travel,
 * never the whole chunk's ids.
 */
async function insertChunkMissingIds(tx: Tx, table: TableMeta, rows: readonly ValidRow[]): Promise<Set<string>> {
  const q = chunkInsertSql(table, rows)!;
  const n = (await tx.query(`${q.sql} ON CONFLICT DO NOTHING`, q.values)).rowCount;
  if (n === rows.length) return new Set();
  const { rows: gone } = await tx.query<{ id: string }>(
    `SELECT x::text AS id FROM unnest($1::bigint[]) AS x WHERE NOT EXISTS (SELECT 1 FROM ${tableRef(table)} AS t WHERE t."id" = x)`,
    [`{${rows.map((r) => r.id).join(',')}}`],
  );
  return new Set(gone.map((r) => r.id));
}

async function insertOne(tx: Tx, table: TableMeta, row: ValidRow, skip: boolean): Promise<number> {
  const cols = Object.keys(row.values);
  const conflict = skip ? ' ON CONFLICT DO NOTHING' : '';
  if (cols.length === 0 && row.id === undefined)
    return (await tx.query(`INSERT INTO ${tableRef(table)} DEFAULT VALUES${conflict}`)).rowCount;
  const p = new SqlParams();
  const names = cols.map(quoteIdent);
  const vals = cols.map((c) => p.add(row.values[c]));
  if (row.id !== undefined) {
    names.unshift('"id"');
    vals.unshift(p.add(row.id));
  }
  const res = await tx.query(`INSERT INTO ${tableRef(table)} (${names.join(', ')}) VALUES (${vals.join(', ')})${conflict}`, p.values);
  return res.rowCount;
}

export function dbRowError(row: number, err: unknown, lang: DtLang): RowError {
  const code = sqlState(err);
  const detail = err instanceof Error ? err.message : String(err);
  const zh: Record<string, string> = {
    '23505': '违反唯一约束（重复值）',
    '23502': '必填列为空',
    '22003': '数值超出范围',
    '22P02': '值格式无效',
    '22007': '日期时间格式无效',
    '22008': '日期时间超出范围',
  };
  const error =
    lang === 'en' || !code || !zh[code] ? `${code ? `SQLSTATE ${code}: ` : ''}${detail}` : `${zh[code]}（SQLSTATE ${code}）：${detail}`;
  const e: RowError = { row, error };
  if (code) e.sqlstate = code;
  return e;
}

/** A 23505 row error found through ON CONFLICT (no per-row driver message): names the unique fields. */
export function uniqueRowError(row: number, table: TableMeta, lang: DtLang): RowError {
  const fields = table.fields.filter((f) => f.unique).map((f) => f.title);
  const which = fields.length ? (lang === 'en' ? ` on ${fields.join(', ')}` : `（唯一字段：${fields.join('、')}）`) : '';
  return {
    row,
    error:
      lang === 'en'
        ? `SQLSTATE 23505: duplicate value violates a unique constraint${which}`
        : `违反唯一约束（重复值）${which}（SQLSTATE 23505）`,
    sqlstate: '23505',
  };
}

/** Below this many rows a failing part is retried row by row. */
const ROW_BY_ROW_BELOW = 8;

/** How a part is inserted: `skip` = on_conflict skip; `returning` = rows carry ids and the table has a unique constraint. */
export interface PartOptions {
  skip: boolean;
  returning: boolean;
  /** Called when a plain chunk hit a unique conflict (switches the import to `returning`). */
  adaptive?: () => void;
}

/** Count an ON CONFLICT DO NOTHING insert: rows whose id is in `missing` conflicted on a unique constraint; the others went in. */
function account(table: TableMeta, rows: readonly ValidRow[], missing: Set<string>, skip: boolean, out: BatchCounts, lang: DtLang): void {
  for (const r of rows) {
    if (!missing.has(r.id!)) out.inserted++;
    else if (skip) out.skipped++;
    else {
      out.failed++;
      out.errors.push(uniqueRowError(r.row, table, lang));
    }
  }
}

/**
 * Insert `rows` set-wise in one SAVEPOINT; when that fails, split the part in halves and try
 * each (each in its own SAVEPOINT), down to single rows in their own SAVEPOINT, whose error is
 * recorded (R-DT-98). A part without failures costs one statement; one bad row in a chunk of
 * n costs about 2·log2(n) statements instead of n. Unique conflicts never need the split: with
 * pre-allocated ids the part is run again as `ON CONFLICT DO NOTHING` and the chunk's ids
 * absent from the table afterwards are exactly the conflicting rows (reported as 23505). The plain
 * INSERT comes first because speculative insertion costs more per row; after a first conflict
 * the import switches to the ON CONFLICT form.
 */
export async function insertPart(
  tx: Tx,
  table: TableMeta,
  rows: readonly ValidRow[],
  o: PartOptions,
  out: BatchCounts,
  lang: DtLang,
): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length >= ROW_BY_ROW_BELOW) {
    try {
      if (o.returning) {
        account(table, rows, await tx.savepoint((sp) => insertChunkMissingIds(sp, table, rows)), o.skip, out, lang);
      } else {
        const n = await tx.savepoint((sp) => insertChunk(sp, table, rows, o.skip));
        out.inserted += n;
        out.skipped += rows.length - n;
      }
      return;
    } catch (err) {
      if (!o.returning && !o.skip && sqlState(err) === '23505' && rows.every((r) => r.id !== undefined)) {
        try {
          account(table, rows, await tx.savepoint((sp) => insertChunkMissingIds(sp, table, rows)), false, out, lang);
          // Duplicates seen: later chunks of this import go straight to the ON CONFLICT form.
          o.adaptive?.();
          return;
        } catch {
          // another kind of failure too: isolate by halves
        }
      }
      const mid = Math.ceil(rows.length / 2);
      await insertPart(tx, table, rows.slice(0, mid), o, out, lang);
      await insertPart(tx, table, rows.slice(mid), o, out, lang);
      return;
    }
  }
  for (const row of rows) {
    try {
      const n = await tx.savepoint((sp) => insertOne(sp, table, row, o.skip));
      if (n === 1) out.inserted++;
      else out.skipped++;
    } catch (err) {
      out.failed++;
      out.errors.push(dbRowError(row.row, err, lang));
    }
  }
}
