/**
 * Why the SQL channel refuses a statement (R-DT-76..84, D-02, D-03, D-12). One
 * code per rule so tests and callers can tell refusals apart without matching text; the
 * messages are bilingual (zh-CN for the chat user, English for logs and the model).
 */
import type { Bilingual } from '../model/results.ts';

/** Refusal codes, each tied to its rule. */
export type RefusalCode =
  /** Empty text or only comments. */
  | 'empty'
  /** The parser rejected the text. */
  | 'syntax'
  /** More than one statement (R-DT-76). */
  | 'multi_statement'
  /** BEGIN/COMMIT/ROLLBACK/SAVEPOINT… (R-DT-80). */
  | 'transaction_control'
  /** A statement kind outside SELECT/INSERT/UPDATE/DELETE/CREATE TABLE|INDEX|VIEW/ALTER/DROP. */
  | 'statement_not_allowed'
  /** CREATE of anything but TABLE, INDEX, VIEW (R-DT-82). */
  | 'create_kind'
  /** Any schema but the organisation's own (R-DT-81). */
  | 'schema'
  /** A relation named pg_… (resolves into pg_catalog, R-DT-81). */
  | 'catalog_relation'
  /** A function outside the allowlist. */
  | 'function'
  /** A type outside the allowlist (reg* casts included). */
  | 'type'
  /** JSONB type or cast (R-DT-83). */
  | 'jsonb'
  /** UPDATE/DELETE without WHERE, TRUNCATE (R-DT-79). */
  | 'where_required'
  /** id / created_at defined or written (R-DT-08, R-DT-78). */
  | 'system_column'
  /** PRIMARY KEY in a created table (R-DT-78). */
  | 'primary_key'
  /** FOREIGN KEY (spec §7.1: no foreign keys). */
  | 'foreign_key'
  /** A created table/column/view/index name breaking the identifier rule (R-DT-84, R-DT-10). */
  | 'identifier'
  /** TEMP / UNLOGGED objects. */
  | 'persistence'
  /** SELECT … INTO, CREATE TABLE … AS. */
  | 'select_into'
  /** INSERT/UPDATE/DELETE inside WITH. */
  | 'data_modifying_cte'
  /** A syntax element the walker does not know (allowlist walk: unknown ⇒ refused). */
  | 'syntax_not_allowed'
  /** sql_query given a statement that writes. */
  | 'read_only'
  /** INSERT without a column list (it would write id positionally). */
  | 'insert_columns'
  /** An ALTER/DROP form that is not supported (use the structural actions). */
  | 'ddl_not_supported'
  /** The statement text is longer than MAX_SQL_CHARS (check.ts). */
  | 'too_long'
  /** The statement nests too deeply for the parser or the allowlist walk (stack exhausted). */
  | 'too_complex'
  /** Embedded engine only: a construct whose running time cannot be bounded (embedded-guard.ts). */
  | 'unbounded';

/** A refusal: code + bilingual reason (+ the action to use instead, if any). */
export interface SqlRefusal {
  ok: false;
  code: RefusalCode;
  reason: Bilingual;
  /** Canonical datatable action that does this job instead (e.g. `delete_table`). */
  redirect?: string;
}

/** Thrown inside the checker only; {@link checkSql} turns it into a {@link SqlRefusal}. */
export class RefusalError extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly reason: Bilingual,
    readonly redirect?: string,
  ) {
    super(reason.en);
    this.name = 'RefusalError';
  }
}

/** Throw a refusal (checker internals). */
export function refuse(code: RefusalCode, en: string, zh: string, redirect?: string): never {
  throw new RefusalError(code, { en, zh }, redirect);
}
