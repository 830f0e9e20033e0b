/**
 * Texts the SQL channel derives from a checked statement (R-DT-78,
 * R-DT-89, R-DT-91): the statement's own text, CREATE TABLE with the platform's system columns,
 * and the DELETE pre-check / backup queries built from the statement's tokens.
 */
import { parseSql, sliceBytes, type ParsedSql, type RawNode, type SqlToken } from './parser.ts';
import { refuse } from './refusal.ts';
import { quoteIdent } from '../model/naming.ts';

/** The SQL DELETE pre-check (R-DT-89) built from the statement's own text. */
export interface DeletePrecheck {
  /** `SELECT count(…) AS n FROM <target> [, <using>] WHERE <where>` — the rows the DELETE hits. */
  countSql: string;
  /** The rows to back up (R-DT-91): `SELECT <alias>.* …` with the same FROM/WHERE. */
  rowsSql: string;
}

/** The statement's own text (its byte range), trailing `;` and comments after it excluded. */
export function statementText(parsed: ParsedSql): string {
  const range = parsed.ranges[0] ?? { start: 0 };
  const end = range.len === undefined ? parsed.bytes.length : range.start + range.len;
  return sliceBytes(parsed, range.start, end).trim();
}

/** The system columns every data table gets (spec §7.1, R-DT-08), as CREATE TABLE elements. */
export const SYSTEM_COLUMNS_DDL = '"id" bigserial PRIMARY KEY, "created_at" timestamptz NOT NULL DEFAULT now()';

/**
 * CREATE TABLE with the platform's system columns prepended to the element list (the user may
 * not define them, R-DT-78): the text after the first `(` gets {@link SYSTEM_COLUMNS_DDL}. The
 * result is parsed again and must still be one CREATE TABLE with the two extra columns first.
 */
export function withSystemColumns(parsed: ParsedSql, elements: number): string {
  const range = parsed.ranges[0] ?? { start: 0 };
  const end = range.len === undefined ? parsed.bytes.length : range.start + range.len;
  const open = parsed.tokens.find((t) => t.start >= range.start && t.text === '(');
  if (!open) refuse('syntax_not_allowed', 'CREATE TABLE needs a column list', 'CREATE TABLE 需要列定义');
  const text =
    `${sliceBytes(parsed, range.start, open.end)}${SYSTEM_COLUMNS_DDL}${elements > 0 ? ', ' : ''}${sliceBytes(parsed, open.end, end)}`.trim();
  const again = parseSql(text);
  const create = again.ok && again.parsed.stmts.length === 1 ? (again.parsed.stmts[0]!.CreateStmt as RawNode | undefined) : undefined;
  const cols = (create?.tableElts as RawNode[] | undefined) ?? [];
  const names = cols.map((c) => (c.ColumnDef as RawNode | undefined)?.colname);
  if (!create || names[0] !== 'id' || names[1] !== 'created_at' || cols.length !== elements + 2) {
    refuse('syntax_not_allowed', 'CREATE TABLE could not be prepared with the system columns', 'CREATE TABLE 无法加入系统列');
  }
  return text;
}

/**
 * Build the DELETE pre-check (R-DT-89) and backup query (R-DT-91) from the statement's tokens:
 * the text between the top-level DELETE FROM, USING, WHERE and RETURNING keywords (bracket
 * depth 0) is reused verbatim, so the SELECT hits exactly the rows the DELETE would. Duplicates
 * through USING joins are removed by the target's ctid. A leading WITH (SELECT-only CTEs) is
 * kept. Each slice ends with a newline so a trailing `--` comment cannot swallow what follows.
 */
export function deletePrecheck(parsed: ParsedSql, body: RawNode): DeletePrecheck {
  const rel = (body.relation ?? {}) as RawNode;
  const alias = quoteIdent(String((rel.alias as RawNode | undefined)?.aliasname ?? rel.relname ?? ''));
  const top = topLevelTokens(parsed);
  const del = top.findIndex((t) => t.text.toLowerCase() === 'delete');
  const from = top.findIndex((t, i) => i > del && t.text.toLowerCase() === 'from');
  const kw = (word: string) => top.find((t, i) => i > from && t.text.toLowerCase() === word && t.keywordName !== 'NO_KEYWORD');
  const using = kw('using');
  const where = kw('where');
  const returning = kw('returning');
  const semicolon = top.find((t, i) => i > from && t.text === ';');
  if (del < 0 || from < 0 || !where) refuse('where_required', 'DELETE needs a WHERE clause (R-DT-79)', 'DELETE 必须带 WHERE 条件');
  const fromTok = top[from]!;
  const end = returning?.start ?? semicolon?.start ?? parsed.bytes.length;
  const withPrefix = sliceBytes(parsed, stmtStart(parsed), top[del]!.start);
  const targetText = sliceBytes(parsed, fromTok.end, (using ?? where).start);
  const usingText = using ? sliceBytes(parsed, using.end, where.start) : '';
  const whereText = sliceBytes(parsed, where.end, end);
  const fromList = using ? `${targetText}\n, ${usingText}\n` : `${targetText}\n`;
  const countSql = `${withPrefix}SELECT count(DISTINCT ${alias}.ctid) AS n FROM ${fromList}WHERE ${whereText}\n`;
  const rowsSql = using
    ? `${withPrefix}SELECT DISTINCT ON (${alias}.ctid) ${alias}.* FROM ${fromList}WHERE ${whereText}\n`
    : `${withPrefix}SELECT ${alias}.* FROM ${fromList}WHERE ${whereText}\n`;
  return { countSql, rowsSql };
}

function stmtStart(parsed: ParsedSql): number {
  return parsed.ranges[0]?.start ?? 0;
}

/** Tokens outside any bracket, comments dropped. */
function topLevelTokens(parsed: ParsedSql): SqlToken[] {
  const out: SqlToken[] = [];
  let depth = 0;
  for (const t of parsed.tokens) {
    if (t.tokenName === 'SQL_COMMENT' || t.tokenName === 'C_COMMENT') continue;
    if (t.text === '(' || t.text === '[') depth++;
    else if (t.text === ')' || t.text === ']') depth--;
    else if (depth === 0) out.push(t);
  }
  return out;
}
