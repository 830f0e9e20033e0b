/**
 * The SQL channel's two actions as dispatcher handlers (spec 000 §7.6; R-DT-42/43). The
 * channel itself (parsing, permission, execution, delete protection) is src/datatable/sql/.
 */
import { sqlExecuteAction, sqlQueryAction } from './sql/index.ts';
import type { ActionHandler } from './types.ts';

/** sql_query / sql_execute. */
export const SQL_HANDLERS: Record<'sql_query' | 'sql_execute', ActionHandler> = {
  sql_query: sqlQueryAction,
  sql_execute: sqlExecuteAction,
};
