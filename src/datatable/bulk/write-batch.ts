/**
 * Batch writes behind insert_batch, insert_from_file and insert with a `data` array (R-DT-34/35,
 * R-DT-98, R-DT-103, D-10): validation in the application (values/record-validator.ts), chunking
 * (each chunk its own short transaction, several in flight,
 * ids pre-allocated in input order), `verified_total`. The per-chunk SQL — one set-wise
 * INSERT, the unique-conflict retry and the split down to one SAVEPOINT per row — is
 * batch-insert.ts.
 */
import type { Tx } from '../../store/db.ts';
import { dbRowError, uniqueRowError, type BatchCounts, type PartOptions, type RowError, type ValidRow } from './batch-insert.ts';
import { compileColumnEncoder, type ColumnChunk, type ColumnEncoder } from './column-chunk.ts';
import { existingUniqueRows, idAt, insertColumns, type IdBlock } from './column-insert.ts';
import { arraySource, UNPARSABLE, type RecordSource } from '../import/source.ts';
import type { OwnerScope } from '../access/permissions.ts';
import type { DtLang } from '../model/results.ts';
import { ownerSql, SqlParams, tableRef } from '../read/rows.ts';
import type { DtEnv, TableMeta } from '../model/types.ts';

export type { BatchCounts, RowError, ValidRow } from './batch-insert.ts';

/** Rows per set-wise INSERT statement (and per transaction). */
export const CHUNK_ROWS = 5000;

/**
 * Tuning knobs of {@link importRecords} (defaults: {@link CHUNK_ROWS}, {@link INSERT_CONCURRENCY}, ids per sequence round
 * trip, `precheck`: probe unique values against a non-empty table before each chunk's INSERT); the bench and tests vary them.
 */
export const BATCH_TUNING = { chunkRows: CHUNK_ROWS, concurrency: 3, idBlock: 100_000, precheck: true };

/** Most records of insert_batch / upsert / a `data` array (R-DT-62, D-10). */
export const BATCH_MAX = 100;

/**
 * True when the table has a UNIQUE constraint or unique index besides its primary key
 * (R-DT-60: `on_conflict = "skip"` needs one). Read from the catalog: it is the database's
 * own state, not business metadata.
 */
export async function hasUniqueConstraint(tx: Tx | DtEnv['q'], table: Pick<TableMeta, 'schema' | 'title'>): Promise<boolean> {
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_index i
       JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace s ON s.oid = c.relnamespace
      WHERE s.nspname = $1 AND c.relname = $2 AND i.indisunique AND NOT i.indisprimary`,
    [table.schema, table.title],
  );
  return (rows[0]?.n ?? 0) > 0;
}

/** Chunk transactions in flight at once (ids are pre-allocated, so input order is kept). */
export const INSERT_CONCURRENCY = BATCH_TUNING.concurrency;

/** The `id` sequence of a table, or null (then ids are not pre-allocated and chunks run one by one). */
async function idSequence(env: DtEnv, table: TableMeta): Promise<string | null> {
  try {
    const { rows } = await env.q.query<{ s: string | null }>("SELECT pg_get_serial_sequence($1, 'id') AS s", [tableRef(table)]);
    return rows[0]?.s ?? null;
  } catch {
    return null;
  }
}

/**
 * Take `n` ids from the table's sequence, ascending. The common case — nobody else drew from
 * the sequence meanwhile, so the ids form one range — costs one row on the wire (min, max,
 * count) and comes back as the range; otherwise the ids themselves are fetched as one array.
 */
async function allocateIds(env: DtEnv, seq: string, n: number): Promise<IdBlock> {
  const { rows } = await env.q.query<{ lo: string; hi: string; ids: string | null }>(
    `WITH v AS (SELECT nextval($1::regclass) AS id FROM generate_series(1, $2::int))
     SELECT min(id)::text AS lo, max(id)::text AS hi,
            CASE WHEN max(id) - min(id) + 1 = count(*) THEN NULL ELSE array_agg(id ORDER BY id)::text END AS ids
       FROM v`,
    [seq, n],
  );
  const r = rows[0]!;
  return r.ids === null ? { lo: BigInt(r.lo) } : { list: r.ids.slice(1, -1).split(',') };
}

/**
 * Ids for an import of `total` records, in input order: drawn from the sequence in blocks of
 * up to `BATCH_TUNING.idBlock` (the first block requested at once, the next one as soon as the
 * previous is in use), so a chunk rarely waits for a round trip. Rows that fail validation
 * leave gaps, as any sequence may.
 * @returns `take(n)`: the ids of the next `n` rows (a range when they come from one block).
 */
function idAllocator(env: DtEnv, seq: string, total: number): (n: number) => Promise<IdBlock> {
  let left = total;
  const fetch = (): Promise<{ block: IdBlock; size: number }> | null => {
    if (left <= 0) return null;
    const size = Math.min(BATCH_TUNING.idBlock, left);
    left -= size;
    const p = allocateIds(env, seq, size).then((block) => ({ block, size }));
    p.catch(() => undefined); // awaited (and its error reported) when the ids are needed
    return p;
  };
  let current = fetch();
  let next: ReturnType<typeof fetch> = null;
  let used = 0;
  return async (n) => {
    const parts: string[] = [];
    let range: IdBlock | null = null;
    let want = n;
    while (want > 0) {
      if (!current) throw new Error('id allocation: more rows than records');
      const { block, size } = await current;
      next ??= fetch();
      const k = Math.min(want, size - used);
      if (k === n && 'lo' in block) range = { lo: block.lo + BigInt(used) };
      else for (let i = 0; i < k; i++) parts.push(idAt(block, used + i));
      used += k;
      want -= k;
      if (used === size) {
        current = next;
        next = null;
        used = 0;
      }
    }
    return range ?? { list: parts };
  };
}

/**
 * Validate and insert `records` (R-DT-34/35, R-DT-98): chunks of {@link CHUNK_ROWS}; each
 * chunk is validated in the application straight into column arrays (column-chunk.ts; owner
 * stamped when `owner` is set, R-DT-18) while the database inserts earlier chunks, gets ids
 * pre-allocated from the table's sequence in input order ({@link idAllocator}), and is inserted in its own short
 * transaction holding one set-wise INSERT in a SAVEPOINT (column-insert.ts) — up to
 * {@link INSERT_CONCURRENCY} chunk transactions at once. A failing chunk is split in halves
 * until the failing rows are isolated, each in its own SAVEPOINT (R-DT-99: the transaction
 * stays usable), so one bad row never fails the batch. With `skip` (`on_conflict=skip`)
 * conflicting rows count as skipped.
 * A failure outside any row (connection lost, commit failed) ends the run: the valid rows of
 * the chunks not committed are reported as failed with that error; committed chunks stay.
 * @returns counts where `failed`/`errors` cover validation and database failures, `errors`
 *   sorted by row.
 */
export async function importRecords(
  env: DtEnv,
  table: TableMeta,
  records: readonly unknown[] | RecordSource,
  owner: OwnerScope | null,
  opts: { skip: boolean; prepare?: (rec: unknown) => unknown },
): Promise<BatchCounts> {
  const lang = env.caller.lang;
  const enc = compileColumnEncoder(table, lang, owner);
  const src: RecordSource = Array.isArray(records) ? arraySource(records) : (records as RecordSource);
  const out: BatchCounts = { inserted: 0, skipped: 0, failed: 0, errors: [] };
  const size = BATCH_TUNING.chunkRows;
  const seq = src.length > size ? await idSequence(env, table) : null;
  const concurrency = seq ? BATCH_TUNING.concurrency : 1;
  const takeIds = seq ? idAllocator(env, seq, src.length) : null;
  const part: PartOptions = { skip: opts.skip, returning: false };
  part.adaptive = () => {
    part.returning = true;
  };
  const inflight: Promise<void>[] = [];
  let broken: unknown;
  const failAll = (rows: readonly number[], err: unknown) => {
    for (const row of rows) {
      out.failed++;
      out.errors.push(dbRowError(row, err, lang));
    }
  };
  const insert = async (chunk: ColumnChunk, ids: IdBlock | null): Promise<void> => {
    if (broken !== undefined) return failAll(chunk.rows, broken);
    const asRows = (): ValidRow[] =>
      chunk.records.map((rec, i) => {
        const r: ValidRow = { row: chunk.rows[i]!, values: enc.values(rec)! };
        if (ids) r.id = idAt(ids, i);
        return r;
      });
    try {
      const r = await env.tx(async (tx) => {
        const c: BatchCounts = { inserted: 0, skipped: 0, failed: 0, errors: [] };
        await insertColumns(tx, table, enc.fields, chunk, ids, part, c, lang, asRows);
        return c;
      });
      out.inserted += r.inserted;
      out.skipped += r.skipped;
      out.failed += r.failed;
      for (const e of r.errors) out.errors.push(e);
    } catch (err) {
      broken ??= err;
      failAll(chunk.rows, err);
    }
  };
  const dedupe = uniqueTracker(enc, opts.skip, lang);
  const precheck =
    BATCH_TUNING.precheck && enc.unique.length > 0 && (await hasRows(env, table))
      ? existingTracker(env, table, enc, opts.skip, lang)
      : null;
  const prepare = opts.prepare;
  for (let start = 0; ; start += size) {
    const batch = src.take(size);
    if (batch.length === 0) break;
    let chunk = enc.chunk();
    for (let k = 0; k < batch.length; k++) {
      const row = start + k + 1;
      const rec = batch[k];
      if (rec === UNPARSABLE) {
        out.failed++;
        out.errors.push({
          row,
          error: lang === 'en' ? `record ${row} of the file is not valid JSON` : `文件第 ${row} 条记录不是合法 JSON`,
        });
        continue;
      }
      const errs = enc.add(chunk, prepare ? prepare(rec) : rec, row);
      if (errs === null) continue;
      out.failed++;
      for (const e of errs) {
        const entry: RowError = { row, error: e.error };
        if (e.field) entry.field = e.field;
        if (e.value !== undefined) entry.value = echoValue(e.value);
        out.errors.push(entry);
      }
    }
    if (dedupe) chunk = dedupe(chunk, out);
    if (precheck && chunk.rows.length > 0) chunk = await precheck(chunk, out);
    while (inflight.length >= concurrency) await inflight.shift();
    if (chunk.rows.length === 0) continue;
    if (broken !== undefined) {
      failAll(chunk.rows, broken);
      continue;
    }
    let ids: IdBlock | null = null;
    if (takeIds) {
      try {
        ids = await takeIds(chunk.rows.length);
      } catch (err) {
        broken ??= err;
        failAll(chunk.rows, err);
        continue;
      }
    }
    inflight.push(insert(chunk, ids));
  }
  await Promise.all(inflight);
  out.errors.sort((x, y) => x.row - y.row);
  return out;
}

/** Longest JSON text of an object / array value echoed in a row error; longer ones become a preview string. */
const ECHO_MAX_CHARS = 1000;

/**
 * The offending value as a row error shows it: scalars as they are; an object or array as is
 * when its JSON is short, else (too long, or nested too deeply to serialise — a hostile import
 * file) a cut JSON preview or a placeholder, so one bad record can never make the whole result
 * unserialisable.
 */
function echoValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  let text: string;
  try {
    text = JSON.stringify(v);
  } catch {
    return Array.isArray(v) ? '[…]' : '{…}';
  }
  return text.length <= ECHO_MAX_CHARS ? v : `${text.slice(0, ECHO_MAX_CHARS)}…`;
}

/**
 * In-import duplicates on the table's unique fields (metadata `unique`), found in the
 * application: a later row repeating an earlier row's non-null value is counted as the
 * database would count it — `skipped` with on_conflict=skip, else a failed row with SQLSTATE
 * 23505 naming the field and the earlier row — and never sent. The first occurrence wins
 * (deterministic even with concurrent chunks). Conflicts with rows already in the table are
 * still found by the database. Values are compared as `chunk.keys` holds them — the coerced
 * text (canonical decimal, ISO date, the text itself), so equal keys are the column's equality.
 * Returns null when the table has no unique field.
 */
function uniqueTracker(enc: ColumnEncoder, skip: boolean, lang: DtLang): ((chunk: ColumnChunk, out: BatchCounts) => ColumnChunk) | null {
  const cols = enc.unique;
  if (cols.length === 0) return null;
  const seen = cols.map(() => new Map<string, number>());
  return (chunk, out) => {
    const drop: number[] = [];
    for (let i = 0; i < chunk.rows.length; i++) {
      let dup = -1;
      let first = 0;
      for (let k = 0; k < cols.length && dup < 0; k++) {
        const key = chunk.keys[k]![i];
        if (key === null || key === undefined) continue;
        const prev = seen[k]!.get(key);
        if (prev !== undefined) {
          dup = k;
          first = prev;
        }
      }
      if (dup < 0) {
        for (let k = 0; k < cols.length; k++) {
          const key = chunk.keys[k]![i];
          if (key !== null && key !== undefined) seen[k]!.set(key, chunk.rows[i]!);
        }
        continue;
      }
      drop.push(i);
      if (skip) out.skipped++;
      else {
        const f = enc.fields[cols[dup]!]!.title;
        out.failed++;
        out.errors.push({
          row: chunk.rows[i]!,
          field: f,
          value: enc.values(chunk.records[i])![f],
          sqlstate: '23505',
          error:
            lang === 'en'
              ? `SQLSTATE 23505: duplicate value of unique field ${f} (same as row ${first})`
              : `违反唯一约束（重复值）：「${f}」与第 ${first} 行相同（SQLSTATE 23505）`,
        });
      }
    }
    return dropRows(chunk, drop);
  };
}

/** `chunk` without the rows at the indexes `drop` (the same chunk when `drop` is empty). */
function dropRows(chunk: ColumnChunk, drop: readonly number[]): ColumnChunk {
  if (drop.length === 0) return chunk;
  const gone = new Set(drop);
  const keep = (_: unknown, i: number) => !gone.has(i);
  return {
    rows: chunk.rows.filter(keep),
    records: chunk.records.filter(keep),
    cols: chunk.cols.map((c) => c.filter(keep)),
    present: chunk.present,
    keys: chunk.keys.map((c) => c.filter(keep)),
  };
}

/** True when the table holds at least one row (any owner); true too when the question fails (the pre-check then just runs). */
async function hasRows(env: DtEnv, table: TableMeta): Promise<boolean> {
  try {
    const { rows } = await env.q.query<{ e: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${tableRef(table)}) AS e`);
    return rows[0]?.e !== false;
  } catch {
    return true;
  }
}

/**
 * Conflicts with rows already in the table, found before a chunk is sent (used when the table
 * held rows when the import began): one indexed probe per unique field
 * ({@link existingUniqueRows}); each row found counts exactly as the database's conflict would
 * — `skipped` with on_conflict=skip, else failed with {@link uniqueRowError} (the text and
 * SQLSTATE 23505 of the ON CONFLICT path) — and is never sent, so the chunk's INSERT does not
 * fail and run twice. A probe that fails changes nothing; a row written meanwhile by someone
 * else is still caught by the database (insertColumns' fallback).
 */
function existingTracker(
  env: DtEnv,
  table: TableMeta,
  enc: ColumnEncoder,
  skip: boolean,
  lang: DtLang,
): (chunk: ColumnChunk, out: BatchCounts) => Promise<ColumnChunk> {
  return async (chunk, out) => {
    let drop: number[];
    try {
      drop = await existingUniqueRows(env.q, table, enc.fields, enc.unique, chunk);
    } catch {
      return chunk;
    }
    for (const i of drop) {
      if (skip) out.skipped++;
      else {
        out.failed++;
        out.errors.push(uniqueRowError(chunk.rows[i]!, table, lang));
      }
    }
    return dropRows(chunk, drop);
  };
}

/**
 * `verified_total` (R-DT-22, R-DT-103): the table's row count as the operator may see it
 * (own scope applied), read after the write; null when the count itself fails.
 */
export async function verifiedTotal(env: DtEnv, table: TableMeta, owner: OwnerScope | null): Promise<number | null> {
  const p = new SqlParams();
  const where = ownerSql(owner, p);
  try {
    const { rows } = await env.q.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${tableRef(table)} WHERE ${where}`, p.values);
    return Number(rows[0]?.n ?? 0);
  } catch {
    return null;
  }
}
