/**
 * DDL building blocks of the structural actions (R-DT-07, R-DT-08, R-DT-11):
 * column definitions from logical types, the CREATE TABLE of a logical table, UNIQUE
 * constraints by column, the per-schema structural lock, the structural-role gate, and the A-30 backups taken before a
 * table or a column is dropped. Identifiers are always quoted; no value is ever interpolated.
 */
import type { Logger } from '../../log/logger.ts';
import { log as processLog } from '../../log/logger.ts';
import type { Queryable, Tx } from '../../store/db.ts';
import { writeDeleteBackup } from '../write/delete-protection.ts';
import { columnSqlType } from '../catalog/fields.ts';
import { qualified, quoteIdent } from '../model/naming.ts';
import { rowOut, selectList } from '../read/rows.ts';
import type { Envelope } from '../../envelope/types.ts';
import { checkStructuralRole } from '../access/permissions.ts';
import type { DtEnv, EffectiveAccess, FieldMeta, TableMeta } from '../model/types.ts';

/** What the dispatcher resolved for an action on an existing table (same shape as read/rows.ts RowCall). */
export interface TableCall {
  table: TableMeta;
  access: EffectiveAccess;
}

/** A structural action on a resolved table: payload (canonical keys) and the call → envelope. */
export type TableHandler = (env: DtEnv, payload: Record<string, unknown>, call: TableCall) => Promise<Envelope>;

/**
 * The structural-role check (R-DT-25, D-01) with the operator switch
 * `env.settings.enforceStructuralRoles` (default true).
 * @returns null when allowed, else the refusal envelope.
 */
export function structuralGate(env: DtEnv): Envelope | null {
  return checkStructuralRole(env.caller, { enforce: env.settings?.enforceStructuralRoles });
}

/** `"title" <type> [UNIQUE]` — one business column (required is checked on insert, not as NOT NULL: R-DT-75). */
export function columnDdl(f: Pick<FieldMeta, 'title' | 'uidt' | 'precision' | 'scale' | 'unique'>): string {
  return `${quoteIdent(f.title)} ${columnSqlType(f)}${f.unique ? ' UNIQUE' : ''}`;
}

/**
 * The CREATE TABLE of a logical table (R-DT-07/08/11): system columns `id bigserial PRIMARY
 * KEY` and `created_at timestamptz NOT NULL DEFAULT now()`, then the business columns; no
 * foreign keys.
 */
export function createTableSql(schema: string, title: string, fields: readonly FieldMeta[]): string {
  const cols = ['"id" bigserial PRIMARY KEY', '"created_at" timestamptz NOT NULL DEFAULT now()', ...fields.map(columnDdl)];
  return `CREATE TABLE ${qualified(schema, title)} (${cols.join(', ')})`;
}

/**
 * Serialise structural changes of one organisation schema (create/alter/drop) across
 * processes: a transaction-scoped advisory lock keyed by the schema name.
 */
export async function lockSchema(tx: Tx, schema: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('skillgate.dt:' || $1))", [schema]);
}

/** Names of the single-column UNIQUE constraints on `schema.table(column)` (from pg_constraint). */
export async function uniqueConstraints(q: Queryable, schema: string, table: string, column: string): Promise<string[]> {
  const { rows } = await q.query<{ conname: string }>(
    `SELECT c.conname
       FROM pg_constraint c
       JOIN pg_class r ON r.oid = c.conrelid
       JOIN pg_namespace n ON n.oid = r.relnamespace
       JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = c.conkey[1]
      WHERE n.nspname = $1 AND r.relname = $2 AND a.attname = $3 AND c.contype = 'u' AND cardinality(c.conkey) = 1`,
    [schema, table, column],
  );
  return rows.map((r) => r.conname);
}

/**
 * The USING expression converting column `col` from `from` to `to` in ALTER COLUMN TYPE:
 * 多选 ↔ text through arrays, everything else through text (a value that does not convert
 * fails the statement with its SQLSTATE, e.g. 22P02, and the change is rolled back).
 */
export function usingExpr(col: string, from: FieldMeta, toType: string, toUidt: FieldMeta['uidt']): string {
  const c = quoteIdent(col);
  if (from.uidt === '多选' && toUidt !== '多选') return `array_to_string(${c}, ',')::${toType}`;
  if (from.uidt !== '多选' && toUidt === '多选') return `CASE WHEN ${c} IS NULL THEN NULL ELSE ARRAY[${c}::text] END`;
  return `${c}::text::${toType}`;
}

/**
 * before delete_table / delete_field, write the data that is about to disappear to the
 * workspace root (`del_backup_<name>_<UTC YYYYMMDD_HHMMSS>.json`, the delete-protection
 * format). Only non-null values of the column for a field. The read runs in a SAVEPOINT, so a
 * failing read (e.g. the real table is already gone) leaves the transaction usable; a read or
 * write failure is logged and does not block the drop (as R-DT-92).
 * @returns the backup file name, or null when none was written (no workspace, or failure).
 */
export async function backupBeforeDrop(env: DtEnv, tx: Tx, table: TableMeta, field?: FieldMeta): Promise<string | null> {
  const logger: Logger = env.log ?? processLog();
  if (!env.caller.workspaceDir) return null;
  const shape = field ? { fields: [field] } : table;
  let rows: Record<string, unknown>[];
  try {
    const where = field ? ` WHERE ${quoteIdent(field.title)} IS NOT NULL` : '';
    rows = await tx.savepoint(async (sp) => {
      const r = await sp.query(`SELECT ${selectList(shape)} FROM ${qualified(table.schema, table.title)}${where} ORDER BY "id"`);
      return r.rows.map((row) => rowOut(shape, row));
    });
  } catch (err) {
    logger.warn({ err, table: table.title, field: field?.title }, 'datatable: reading the data to back up before a drop failed');
    return null;
  }
  try {
    return writeDeleteBackup(env.caller.workspaceDir, field ? `${table.title}_${field.title}` : table.title, rows, env.now());
  } catch (err) {
    logger.warn({ err, table: table.title, field: field?.title }, 'datatable: writing the backup before a drop failed');
    return null;
  }
}
