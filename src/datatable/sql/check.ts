/**
 * The SQL channel's checker (R-DT-76..86, D-02, D-12): parse
 * with the real PostgreSQL parser, accept exactly one statement of an allowed kind whose every
 * node passes the allowlist walk, and return the plan the executor runs — or a refusal with a
 * clear reason. Pure (no database); the executor adds the checks that need one (the relations
 * exist in the org schema, permissions, delete protection).
 *
 * Routing (R-DT-77): statements keep bare names; the executor runs them with `search_path` set
 * to the organisation's schema only. PostgreSQL still searches pg_catalog implicitly, which is
 * why the walker refuses every `pg_…` relation name and allows only listed functions and types.
 */
import { ensureParser, parseSql, type RawNode } from './parser.ts';
import { RefusalError, refuse, type SqlRefusal } from './refusal.ts';
import { walkStruct, type WalkCtx } from './walker.ts';
import {
  checkAlterTable,
  checkCreateIndex,
  checkCreateTable,
  checkCreateView,
  checkDrop,
  checkRename,
  type AlterStep,
  type CreateTableInfo,
} from './ddl.ts';
import { deletePrecheck, statementText, withSystemColumns, type DeletePrecheck } from './rewrite.ts';
import { refuseStatement } from './statements.ts';
import { unboundedReason } from './embedded-guard.ts';
import type { Bilingual } from '../model/results.ts';

export type { DeletePrecheck } from './rewrite.ts';

/** What a checked statement does. */
export type SqlKind = 'select' | 'insert' | 'update' | 'delete' | 'create_table' | 'create_index' | 'create_view' | 'alter' | 'drop';

/** Kinds that change structure: team_role owner/admin (D-02). */
export const STRUCTURAL_SQL_KINDS: ReadonlySet<SqlKind> = new Set(['create_table', 'create_index', 'create_view', 'alter', 'drop']);

/** An accepted statement. */
export interface SqlPlan {
  ok: true;
  kind: SqlKind;
  /** DDL: needs team_role owner/admin (D-02). */
  structural: boolean;
  /** Existing relations the statement reads or writes (CTE names excluded), in first-use order. */
  tables: string[];
  /** The relation written / altered / indexed (insert, update, delete, alter, create_index). */
  target?: string;
  /** The text to execute: the one statement, without the trailing `;` and trailing comments. */
  rewrittenSql: string;
  /** INSERT/UPDATE/DELETE … RETURNING. */
  hasReturning: boolean;
  /** CREATE TABLE: title and the field definitions mapped from the statement (A-36). */
  createTable?: CreateTableInfo;
  /** ALTER TABLE / RENAME COLUMN: steps the metadata follows. */
  alter?: { table: string; steps: AlterStep[] };
  /** DROP VIEW / INDEX: the names dropped. */
  drop?: { objects: string[]; type: 'view' | 'index' };
  /** DELETE: the pre-check and backup queries. */
  delete?: DeletePrecheck;
  /** Why the statement may run unbounded; the executor refuses it on the embedded engine (embedded-guard.ts). */
  unbounded?: Bilingual;
}

/** Result of {@link checkSql}. */
export type SqlCheckResult = SqlPlan | SqlRefusal;

/** Options of {@link checkSql}. */
export interface CheckSqlOptions {
  /** The organisation's schema (`org_data_x`): the only schema a statement may name. */
  schema: string;
  /** Other organisations' schemas (only sharpens the refusal message; all are refused anyway). */
  otherOrgSchemas?: Iterable<string>;
}

/** Accepted top-level statement kinds and their plan kind. */
const ACCEPTED: Readonly<Record<string, SqlKind>> = {
  SelectStmt: 'select',
  InsertStmt: 'insert',
  UpdateStmt: 'update',
  DeleteStmt: 'delete',
  CreateStmt: 'create_table',
  IndexStmt: 'create_index',
  ViewStmt: 'create_view',
  AlterTableStmt: 'alter',
  RenameStmt: 'alter',
  DropStmt: 'drop',
};

/**
 * Check one SQL text for the SQL channel (R-DT-76..84, D-02, D-12).
 * @returns the {@link SqlPlan}, or a {@link SqlRefusal} with `code` and a bilingual reason.
 *   Never throws for bad SQL.
 */
export async function checkSql(sql: string, opts: CheckSqlOptions): Promise<SqlCheckResult> {
  await ensureParser();
  return checkSqlSync(sql, opts);
}

/** Longest statement text accepted, in UTF-16 units . */
export const MAX_SQL_CHARS = 100_000;

const TOO_COMPLEX = {
  en: 'the statement is too complex (nested or repeated too deeply to check); split it into smaller statements or use aggregate',
  zh: '语句过于复杂（嵌套或重复层数太多，无法检查），请拆成几条较小的语句，或改用统计操作',
};

/**
 * {@link checkSql} once the parser is loaded ({@link ensureParser} awaited). A text longer
 * than {@link MAX_SQL_CHARS} is refused (`too_long`); a statement so deep that the parser or
 * the allowlist walk exhausts the stack (a 3000-branch UNION, thousands of nested brackets) is
 * refused as `too_complex` instead of failing with a RangeError.
 */
export function checkSqlSync(sql: string, opts: CheckSqlOptions): SqlCheckResult {
  try {
    return checkOrThrow(sql, opts);
  } catch (err) {
    if (err instanceof RefusalError) {
      const out: SqlRefusal = { ok: false, code: err.code, reason: err.reason };
      if (err.redirect) out.redirect = err.redirect;
      return out;
    }
    if (err instanceof RangeError) return { ok: false, code: 'too_complex', reason: TOO_COMPLEX };
    throw err;
  }
}

function checkOrThrow(sql: string, opts: CheckSqlOptions): SqlPlan {
  if (typeof sql !== 'string' || sql.trim() === '') refuse('empty', 'sql is empty', 'sql 为空');
  if (sql.length > MAX_SQL_CHARS) {
    refuse(
      'too_long',
      `the statement is ${sql.length} characters long; at most ${MAX_SQL_CHARS} are accepted`,
      `语句过长（${sql.length} 个字符，上限 ${MAX_SQL_CHARS}），请拆分或改用 insert_from_file 导入数据`,
    );
  }
  if (sql.includes('\u0000')) refuse('syntax', 'sql contains a NUL character', 'sql 含有非法字符');
  const r = parseSql(sql);
  if (!r.ok && /call stack|stack depth|too deep|stack overflow/i.test(r.failure.message))
    refuse('too_complex', TOO_COMPLEX.en, TOO_COMPLEX.zh);
  if (!r.ok) {
    refuse(
      'syntax',
      `SQL syntax error: ${r.failure.message}${r.failure.position ? ` (at character ${r.failure.position})` : ''}`,
      `SQL 语法错误${r.failure.position ? `（第 ${r.failure.position} 个字符附近）` : ''}，请检查语句`,
    );
  }
  const parsed = r.parsed;
  if (parsed.stmts.length === 0) refuse('empty', 'sql has no statement', 'sql 中没有语句');
  if (parsed.stmts.length > 1) {
    refuse(
      'multi_statement',
      `exactly one statement per call; got ${parsed.stmts.length} (R-DT-76)`,
      `每次只能执行一条语句（收到 ${parsed.stmts.length} 条），不允许用分号拼接`,
    );
  }
  const node = parsed.stmts[0]!;
  const stmtKind = Object.keys(node)[0] ?? '';
  const kind = ACCEPTED[stmtKind];
  const body = node[stmtKind] as RawNode;
  if (!kind) refuseStatement(stmtKind, body);
  const ctx: WalkCtx = {
    schema: opts.schema,
    otherOrgSchemas: new Set(opts.otherOrgSchemas ?? []),
    parsed,
    cteScopes: [],
    relations: new Map(),
  };
  const plan: SqlPlan = {
    ok: true,
    kind,
    structural: STRUCTURAL_SQL_KINDS.has(kind),
    tables: [],
    rewrittenSql: statementText(parsed),
    hasReturning: false,
  };
  switch (stmtKind) {
    case 'SelectStmt':
    case 'InsertStmt':
    case 'UpdateStmt':
    case 'DeleteStmt':
      walkStruct(stmtKind, body, ctx);
      if (stmtKind !== 'SelectStmt') {
        plan.target = String(((body.relation ?? {}) as RawNode).relname ?? '');
        plan.hasReturning = body.returningClause !== undefined;
      }
      if (stmtKind === 'DeleteStmt') plan.delete = deletePrecheck(parsed, body);
      break;
    case 'CreateStmt':
      plan.createTable = checkCreateTable(body, ctx);
      plan.rewrittenSql = withSystemColumns(parsed, (body.tableElts as unknown[] | undefined)?.length ?? 0);
      break;
    case 'IndexStmt':
      plan.target = checkCreateIndex(body, ctx).table;
      break;
    case 'ViewStmt':
      checkCreateView(body, ctx);
      break;
    case 'AlterTableStmt':
      plan.alter = checkAlterTable(body, ctx);
      plan.target = plan.alter.table;
      break;
    case 'RenameStmt':
      plan.alter = checkRename(body, ctx);
      plan.target = plan.alter.table;
      break;
    case 'DropStmt':
      plan.drop = checkDrop(body, ctx);
      break;
  }
  plan.tables = [...ctx.relations.keys()];
  const unbounded = unboundedReason(node);
  if (unbounded) plan.unbounded = unbounded;
  return plan;
}
