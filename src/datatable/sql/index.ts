/**
 * The datatable SQL channel (R-DT-76..89): the parser-based checker, the
 * executors and the two dispatcher actions.
 */
export {
  checkSql,
  checkSqlSync,
  STRUCTURAL_SQL_KINDS,
  type CheckSqlOptions,
  type SqlCheckResult,
  type SqlKind,
  type SqlPlan,
} from './check.ts';
export type { RefusalCode, SqlRefusal } from './refusal.ts';
export { runSqlExecute, runSqlQuery, type SqlExecuteOptions } from './execute.ts';
export { DEFAULT_SQL_TIMEOUT_MS, MAX_SQL_ROWS, type SqlRunOptions } from './session.ts';
export { SQL_HANDLERS, sqlExecuteAction, sqlQueryAction } from './actions.ts';
export { isAdminLine, MAX_SCRIPT_STATEMENTS, runSqlScript, scriptStatements } from './script.ts';
export { ensureParser } from './parser.ts';
