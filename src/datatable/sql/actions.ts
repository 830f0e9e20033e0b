/**
 * The SQL channel's two datatable actions for the dispatcher (R-DT-42/43):
 * `sql_query` and `sql_execute`, payload `{sql}` (`sql_execute` also reads `confirm_token`
 * for a protected DELETE, R-DT-88). Thin adapters over execute.ts; a `sql_execute` text of
 * several statements is a batch script (script.ts: admin line only, R-DT-27, A-27).
 */
import type { ActionHandler } from '../model/types.ts';
import { runSqlExecute, runSqlQuery } from './execute.ts';
import { isAdminLine, runSqlScript, scriptRefusal, scriptStatements } from './script.ts';

/** `sql_query` — payload `{sql}` → `{rows, row_count, sql}` (R-DT-42). */
export const sqlQueryAction: ActionHandler = (env, payload) => runSqlQuery(env, payload.sql);

/**
 * `sql_execute` — payload `{sql, confirm_token?}` → `{affected, rows?, created?, table_id?}`
 * (R-DT-43, R-DT-86), or the confirmation envelope of a protected DELETE (R-DT-87). Several
 * statements: run as a script on the admin line, else refused with `error_type: "config"`
 * (R-DT-27, A-27).
 */
export const sqlExecuteAction: ActionHandler = async (env, payload) => {
  const script = await scriptStatements(payload.sql);
  if (script) return isAdminLine(env.caller) ? runSqlScript(env, script) : scriptRefusal(script.length, env.caller.lang);
  return runSqlExecute(env, payload.sql, { confirmToken: payload.confirm_token });
};

/** Both actions by name, for the dispatch table of src/datatable/index.ts. */
export const SQL_HANDLERS: Record<'sql_query' | 'sql_execute', ActionHandler> = {
  sql_query: sqlQueryAction,
  sql_execute: sqlExecuteAction,
};
