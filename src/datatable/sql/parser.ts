/**
 * The real PostgreSQL parser for the SQL channel (parse with the real PostgreSQL
 * parser, not regular expressions). Wraps `libpg-query` 18 (WASM; the
 * module is loaded once, then every call is synchronous — notes/library-facts.md §6).
 *
 * Offsets: libpg-query reports every location in **UTF-8 bytes** of the statement text, so
 * slicing helpers here work on a Buffer, never on UTF-16 string indexes.
 */
import type * as PgQuery from 'libpg-query';

let loading: Promise<void> | undefined;
/** The loaded parser (imported on the first {@link ensureParser}: a start that runs no SQL never loads it). */
let pgQuery: typeof PgQuery | undefined;

/** Load the WASM parser once per process (idempotent; concurrent callers share one load). */
export function ensureParser(): Promise<void> {
  loading ??= import('libpg-query').then(async (m) => {
    await m.loadModule();
    pgQuery = m;
  });
  loading.catch(() => (loading = undefined));
  return loading;
}

function parser(): typeof PgQuery {
  if (!pgQuery) throw new Error('the SQL parser is not loaded (call ensureParser first)');
  return pgQuery;
}

/** One raw statement of a parse result: `{ <NodeKind>: {...} }`. */
export type RawNode = Record<string, unknown>;

/** One lexical token, offsets in UTF-8 bytes (end exclusive). */
export interface SqlToken {
  start: number;
  end: number;
  text: string;
  /** libpg-query's token name (`IDENT`, `SCONST`, `SQL_COMMENT`, `ASCII_40`, `UNKNOWN` for keywords…). */
  tokenName: string;
  /** `NO_KEYWORD`, `UNRESERVED_KEYWORD`, `COL_NAME_KEYWORD`, `TYPE_FUNC_NAME_KEYWORD`, `RESERVED_KEYWORD`. */
  keywordName: string;
}

/** A parsed text: its statements and tokens. */
export interface ParsedSql {
  /** Each statement's node, e.g. `{SelectStmt: {...}}`. */
  stmts: RawNode[];
  /** Each statement's byte range: start (leading comments skipped) and length (absent = to the end). */
  ranges: Array<{ start: number; len?: number }>;
  tokens: SqlToken[];
  /** The text as UTF-8 bytes (locations index this). */
  bytes: Buffer;
}

/** A syntax error reported by the parser (the statement is refused before any database work). */
export interface ParseFailure {
  message: string;
  /** 1-based cursor position (characters) when the parser reported one. */
  position?: number;
}

/**
 * Parse `sql` with the PostgreSQL 18 grammar. Call {@link ensureParser} first.
 * @returns the statements and tokens, or a {@link ParseFailure} (never throws for bad SQL).
 */
export function parseSql(sql: string): { ok: true; parsed: ParsedSql } | { ok: false; failure: ParseFailure } {
  try {
    const { parseSync, scanSync } = parser();
    const result = parseSync(sql) as unknown as { stmts?: Array<{ stmt?: RawNode; stmt_location?: number; stmt_len?: number }> };
    const stmts = (result.stmts ?? []).map((s) => s.stmt ?? {});
    const ranges = (result.stmts ?? []).map((s) =>
      s.stmt_len ? { start: s.stmt_location ?? 0, len: s.stmt_len } : { start: s.stmt_location ?? 0 },
    );
    const tokens = (scanSync(sql).tokens ?? []).map((t) => ({
      start: t.start,
      end: t.end,
      text: t.text,
      tokenName: t.tokenName,
      keywordName: t.keywordName,
    }));
    return { ok: true, parsed: { stmts, ranges, tokens, bytes: Buffer.from(sql, 'utf8') } };
  } catch (err) {
    const e = err as { message?: string; sqlDetails?: { message?: string; cursorPosition?: number } };
    const message = e.sqlDetails?.message ?? e.message ?? String(err);
    const position = e.sqlDetails?.cursorPosition;
    return { ok: false, failure: position === undefined ? { message } : { message, position } };
  }
}

/** The text between two byte offsets of the parsed statement (end exclusive). */
export function sliceBytes(parsed: ParsedSql, start: number, end: number): string {
  return parsed.bytes.subarray(start, end).toString('utf8');
}

/** The token starting exactly at byte offset `at`, if any. */
export function tokenAt(parsed: ParsedSql, at: number): SqlToken | undefined {
  return parsed.tokens.find((t) => t.start === at);
}

/** The kind of a raw node: its only key (`SelectStmt`, `RangeVar`, …). */
export function nodeKind(node: RawNode): string {
  return Object.keys(node)[0] ?? '';
}
