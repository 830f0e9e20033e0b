/**
 * The transaction setup and result shaping of the SQL channel (R-DT-77,
 * R-DT-96..100, D-12). Every statement runs inside ONE short transaction opened through the
 * environment's db_factory, after
 * `set_config('search_path', '"org_data_x"', true)` (SET LOCAL: the organisation's schema only),
 * `statement_timeout` and `standard_conforming_strings = on` (the parser assumes standard
 * strings; `'\'` must mean the same to the server). The statement text is sent with no
 * parameters at all (D-12: a `:name` inside a literal is never a placeholder).
 */
import type { Tx } from '../../store/db.ts';
import { quoteIdent } from '../model/naming.ts';

/** Default statement timeout of the SQL channel (ms). */
export const DEFAULT_SQL_TIMEOUT_MS = 30_000;

/** Most rows a call returns (larger results come back cut, with `truncated: true`). */
export const MAX_SQL_ROWS = 1000;

/**
 * Most result text a call returns, in UTF-16 units of the rows' JSON (about 2 MB): rows past
 * it are cut like rows past the row cap (`truncated: true`).
 */
export const MAX_SQL_RESULT_CHARS = 2_000_000;

/** Options of the executors. */
export interface SqlRunOptions {
  /** statement_timeout in ms (default {@link DEFAULT_SQL_TIMEOUT_MS}). */
  statementTimeoutMs?: number;
  /** Row cap (default {@link MAX_SQL_ROWS}). */
  maxRows?: number;
  /** Result size cap in UTF-16 units of row JSON (default {@link MAX_SQL_RESULT_CHARS}). */
  maxResultChars?: number;
}

/**
 * True when the engine behind `tx` is the embedded one (PGlite): `env.engine` when the
 * runtime context named it, else PostgreSQL's `version()` text (PGlite reports itself there).
 */
export async function isEmbeddedEngine(tx: Tx, known?: 'embedded' | 'server'): Promise<boolean> {
  if (known) return known === 'embedded';
  const { rows } = await tx.query<{ v: string }>('SELECT version() AS v');
  return /PGlite|emscripten|wasm/i.test(rows[0]?.v ?? '');
}

/**
 * Prepare a transaction for a user statement: optionally READ ONLY (must be the first
 * statement), then the org search_path, the timeout and standard strings — all LOCAL, so
 * nothing outlives the transaction (never a session SET).
 */
export async function prepareSqlTx(tx: Tx, schema: string, opts: { readOnly: boolean; timeoutMs: number }): Promise<void> {
  if (opts.readOnly) await tx.query('SET TRANSACTION READ ONLY');
  await tx.query(
    "SELECT set_config('search_path', $1, true), set_config('statement_timeout', $2, true), set_config('standard_conforming_strings', 'on', true)",
    [quoteIdent(schema), String(Math.max(1, Math.floor(opts.timeoutMs)))],
  );
}

/**
 * The relations of `names` that do not exist in `schema` (tables, views, partitioned,
 * materialized or foreign tables). Bare names the checker accepted must resolve in the org
 * schema; this closes the path to any other schema on the search path (defence in depth next
 * to the walker's `pg_…` rule).
 */
export async function missingRelations(tx: Tx, schema: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { rows } = await tx.query<{ relname: string }>(
    `SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = ANY($2::text[]) AND c.relkind IN ('r', 'v', 'p', 'm', 'f')`,
    [schema, [...names]],
  );
  const have = new Set(rows.map((r) => r.relname));
  return names.filter((n) => !have.has(n));
}

/**
 * The relations `names` of `schema` plus, recursively, every relation of `schema` the views
 * among them read (from the views' rewrite rules). Table grants are checked on this closure,
 * so a view cannot lend access to a table the operator may not read through SQL.
 */
export async function relationClosure(tx: Tx, schema: string, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { rows } = await tx.query<{ relname: string }>(
    `WITH RECURSIVE rel(oid) AS (
       SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = ANY($2::text[])
       UNION
       SELECT d.refobjid FROM rel
         JOIN pg_catalog.pg_rewrite r ON r.ev_class = rel.oid
         JOIN pg_catalog.pg_depend d ON d.objid = r.oid
          AND d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
          AND d.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass
     )
     SELECT DISTINCT c.relname FROM rel
       JOIN pg_catalog.pg_class c ON c.oid = rel.oid
       JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1`,
    [schema, [...names]],
  );
  return rows.map((r) => r.relname);
}

/**
 * Wrap a checked SELECT so each row comes back as PostgreSQL's own JSON text
 * (`row_to_json`): dates stay `2024-03-01`, timestamps `2024-03-01T10:00:00`, arrays and json
 * values structured — no driver time-zone conversion. At most `cap + 1` rows are fetched (to
 * tell whether the result was cut). The newline before `)` keeps a trailing `--` comment of
 * the statement from swallowing the wrapper.
 */
export function wrapSelect(sql: string, cap: number): string {
  if (!Number.isInteger(cap) || cap < 1) throw new Error(`invalid row cap ${cap}`);
  return `SELECT row_to_json(q)::text AS r FROM (\n${sql}\n) AS q LIMIT ${cap + 1}`;
}

/**
 * {@link wrapSelect} with the result size bounded in the database: each row comes with its JSON
 * length (`len`, UTF-16 units as PostgreSQL's `length`, characters) and the running total; rows
 * after the first one that crosses `maxChars` are not sent, and that one is sent without its
 * text (`r` NULL). So a huge value (`repeat('x', 5e8)`) never travels to the gateway — it stays
 * a database-side cost bounded by `statement_timeout` — and the caller learns the result was cut.
 */
export function wrapSelectBounded(sql: string, cap: number, maxChars: number): string {
  if (!Number.isInteger(cap) || cap < 1) throw new Error(`invalid row cap ${cap}`);
  if (!Number.isInteger(maxChars) || maxChars < 1) throw new Error(`invalid size cap ${maxChars}`);
  return `SELECT CASE WHEN s.total <= ${maxChars} THEN s.r END AS r, s.len FROM (
  SELECT w.r, w.n, length(w.r) AS len, sum(length(w.r)) OVER (ORDER BY w.n ROWS UNBOUNDED PRECEDING) AS total
    FROM (SELECT row_to_json(q)::text AS r, row_number() OVER () AS n FROM (
${sql}
) AS q LIMIT ${cap + 1}) AS w
) AS s WHERE s.total - s.len <= ${maxChars} ORDER BY s.n`;
}

/**
 * Wrap a checked INSERT / UPDATE / DELETE … RETURNING as a top-level data-modifying CTE so the
 * returned rows come back as PostgreSQL's JSON too (`WITH q AS (<stmt>) SELECT row_to_json(q)`).
 * The statement runs to completion exactly as written; the wrapper's row count is the number
 * of rows RETURNING produced, i.e. the rows affected.
 */
export function wrapReturning(sql: string): string {
  return `WITH q AS (\n${sql}\n) SELECT row_to_json(q)::text AS r FROM q`;
}

/**
 * Parse JSON text keeping numbers exact: a number with more than 15 significant digits (beyond
 * double precision, e.g. a large bigint or numeric(38,18) value) is returned as its decimal
 * string; trailing zeros of a fraction do not count (`1.500000000000000000` is 1.5).
 */
export function parseJsonLossless(text: string): unknown {
  const safe = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (m) => {
    if (m.startsWith('"')) return m;
    let mantissa = m.replace(/^-/, '').split(/[eE]/)[0]!;
    if (mantissa.includes('.')) mantissa = mantissa.replace(/0+$/, '');
    const digits = mantissa.replace('.', '').replace(/^0+/, '');
    return digits.length > 15 ? `"${m}"` : m;
  });
  return JSON.parse(safe) as unknown;
}
