/**
 * `skillgate.audit_log` (migration 0013): write one row, read rows back with filters, purge
 * rows past the retention .
 */
import type { Db, Queryable } from '../store/db.ts';
import { copyRows } from '../store/copy-text.ts';
import { storableText } from '../channel/storable.ts';
import { processSecrets } from '../log/secret-values.ts';
import type { AuditEntry } from './entry.ts';
import { ownParams, type SqlWrite } from '../store/sql-write.ts';

/** Default and largest number of rows one query returns. */
export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 1000;

/** Filters of {@link queryAudit}; every one optional, combined with AND. */
export interface AuditFilter {
  roleId?: string;
  skill?: string;
  /** The actor's employee number (`actor_emp_no`), exact. */
  actorEmpNo?: string;
  /** Only rows at or after this instant. */
  since?: Date;
  /** Number of rows, newest first (default 50, capped at 1000). */
  limit?: number;
}

/** One row as read back (JSON-friendly: `at` as an ISO string). */
export interface AuditRow extends Omit<AuditEntry, 'at'> {
  id: number;
  at: string;
}

/** Insert one row. @throws the database error (the hook catches it). */
export async function insertAudit(q: Queryable, e: AuditEntry): Promise<void> {
  await insertAuditRows(q, [e]);
}

/** Columns of one row, in the order of the INSERT below. */
const AUDIT_COLUMNS = 16;

/** Where rows are written: any statement runner; a {@link Db} with `copyFrom` (embedded) takes a COPY. */
export type AuditTarget = Queryable & Partial<Pick<Db, 'copyFrom'>>;

/**
 * Insert `entries` in one statement (one commit for the lot); nothing for an empty list.
 * Several rows go as one `COPY … FROM STDIN` when `q` has `copyFrom` (the embedded Db):
 * PGlite parses COPY's text format for less than the same rows as array parameters
 * (docs/audit.md "Group commit"); otherwise as the INSERT of {@link auditRowsWrite}. Both
 * store the same values.
 * @throws the database error (no row is written then).
 */
export async function insertAuditRows(q: AuditTarget, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  if (entries.length > 1 && q.copyFrom) {
    await q.copyFrom(AUDIT_COPY_SQL, copyRows(entries.map(auditValues)));
    return;
  }
  const w = auditRowsWrite(entries);
  await q.query(w.sql(ownParams), [...w.params]);
}

/**
 * The INSERT of `entries` (at least one) as a {@link SqlWrite}, for a statement that commits
 * them with its own write (the chat turn's reply, src/outbox/store.ts).
 */
export function auditRowsWrite(entries: readonly AuditEntry[]): SqlWrite {
  if (entries.length === 0) throw new Error('audit rows: nothing to write');
  const rows = entries.map(auditParams);
  const write = rowsWrite(rows);
  rowsOf.set(write, rows);
  return write;
}

/** The rows of each write {@link auditRowsWrite} made (for {@link mergeAuditWrites}). */
const rowsOf = new WeakMap<SqlWrite, unknown[][]>();

/** Several audit writes as one (their rows in order). @throws Error for a write not made here */
function mergeAuditWrites(writes: readonly SqlWrite[]): SqlWrite {
  const rows: unknown[][] = [];
  for (const w of writes) {
    const r = rowsOf.get(w);
    if (!r) throw new Error('audit rows: not a write of auditRowsWrite');
    rows.push(...r);
  }
  const write = rowsWrite(rows);
  rowsOf.set(write, rows);
  return write;
}

function rowsWrite(rows: unknown[][]): SqlWrite {
  // One row (the chat turn's reply carries its own): plain parameters.
  if (rows.length === 1) return { params: rows[0]!, sql: oneRowSql, merge: mergeAuditWrites };
  // More: one array per column, so the text is the same for any number of rows and is parsed
  // once per connection (src/store/prepared.ts). (A json parameter costs PostgreSQL more to
  // read than it saves here: +25 µs a row on PGlite.)
  const cols: unknown[][] = Array.from({ length: AUDIT_COLUMNS }, () => []);
  for (const row of rows) for (let i = 0; i < AUDIT_COLUMNS; i++) cols[i]!.push(row[i]);
  return { params: cols, sql: manyRowsSql, merge: mergeAuditWrites };
}

/** A string as a text column stores it: NUL and lone surrogates as U+FFFD (src/channel/storable.ts). */
function storable(v: unknown): unknown {
  return typeof v === 'string' ? storableText(v) : v;
}

/** The parameters of one row, in the order of {@link AUDIT_NAMES}: `param_keys` as JSON text. */
function auditParams(entry: AuditEntry): unknown[] {
  const row = auditValues(entry);
  row[PARAM_KEYS] = JSON.stringify(row[PARAM_KEYS]); // text[] carried as JSON, expanded in SQL
  return row;
}

/** Index of `param_keys` in a row. */
const PARAM_KEYS = 11;

/**
 * The values of one row, in the order of {@link AUDIT_NAMES} (`at` as an ISO string, `param_keys`
 * as an array), secrets scrubbed and every string storable.
 */
function auditValues(entry: AuditEntry): unknown[] {
  const e = processSecrets().scrubValues(entry); // secret values never reach the log (src/log/secret-values.ts)
  const row = [
    e.at.toISOString(),
    e.orgId,
    e.roleId,
    e.channel,
    e.line,
    e.sessionId,
    e.actorEmpNo,
    e.actorName,
    e.skill,
    e.action,
    e.paramsHash,
    e.paramKeys.map(storableText),
    e.success,
    e.errorType,
    e.durationMs,
    e.confirmTokenHash,
  ];
  if (row.length !== AUDIT_COLUMNS) throw new Error('audit row: column count mismatch');
  return row.map(storable);
}

const AUDIT_NAMES = `at, org_id, role_id, channel, line, session_id, actor_emp_no, actor_name, skill, action,
        params_hash, param_keys, success, error_type, duration_ms, confirm_token_hash`;
const AUDIT_TYPES = [
  'timestamptz',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'jsonb',
  'boolean',
  'text',
  'integer',
  'text',
];
const AUDIT_SELECT = `SELECT r.at, r.org_id, r.role_id, r.channel, r.line, r.session_id, r.actor_emp_no, r.actor_name, r.skill, r.action,
            r.params_hash, ARRAY(SELECT jsonb_array_elements_text(r.param_keys)), r.success, r.error_type, r.duration_ms, r.confirm_token_hash`;

const AUDIT_COPY_SQL = `COPY skillgate.audit_log (${AUDIT_NAMES}) FROM STDIN`;

// Module-level functions: a statement that embeds them can cache its text by their identity.
function oneRowSql(param: (i: number) => string): string {
  return `INSERT INTO skillgate.audit_log (${AUDIT_NAMES})
     ${AUDIT_SELECT}
       FROM (VALUES (${AUDIT_TYPES.map((t, i) => `${param(i + 1)}::${t}`).join(', ')})) AS r(${AUDIT_NAMES})`;
}

function manyRowsSql(param: (i: number) => string): string {
  return `INSERT INTO skillgate.audit_log (${AUDIT_NAMES})
     ${AUDIT_SELECT}
       FROM unnest(${AUDIT_TYPES.map((t, i) => `${param(i + 1)}::${t}[]`).join(', ')}) AS r(${AUDIT_NAMES})`;
}

interface DbRow {
  id: string | number;
  at: Date | string;
  org_id: string;
  role_id: string;
  channel: string;
  line: string;
  session_id: string;
  actor_emp_no: string;
  actor_name: string;
  skill: string;
  action: string;
  params_hash: string;
  param_keys: string[];
  success: boolean;
  error_type: string | null;
  duration_ms: number;
  confirm_token_hash: string | null;
}

function toRow(r: DbRow): AuditRow {
  return {
    id: Number(r.id),
    at: (r.at instanceof Date ? r.at : new Date(r.at)).toISOString(),
    orgId: r.org_id,
    roleId: r.role_id,
    channel: r.channel,
    line: r.line,
    sessionId: r.session_id,
    actorEmpNo: r.actor_emp_no,
    actorName: r.actor_name,
    skill: r.skill,
    action: r.action,
    paramsHash: r.params_hash,
    paramKeys: r.param_keys ?? [],
    success: r.success,
    errorType: r.error_type,
    durationMs: r.duration_ms,
    confirmTokenHash: r.confirm_token_hash,
  };
}

/** Rows matching `f`, newest first (ties by insertion order, newest first). */
export async function queryAudit(q: Queryable, f: AuditFilter = {}): Promise<AuditRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const add = (sql: string, v: unknown): void => {
    args.push(v);
    where.push(sql.replace('?', `$${args.length}`));
  };
  if (f.roleId) add('role_id = ?', f.roleId);
  if (f.skill) add('skill = ?', f.skill);
  if (f.actorEmpNo) add('actor_emp_no = ?', f.actorEmpNo);
  if (f.since) add('at >= ?::timestamptz', f.since.toISOString());
  const limit = Math.min(AUDIT_MAX_LIMIT, Math.max(1, Math.floor(f.limit ?? AUDIT_DEFAULT_LIMIT)));
  args.push(limit);
  const { rows } = await q.query<DbRow>(
    `SELECT * FROM skillgate.audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY at DESC, id DESC LIMIT $${args.length}`,
    args,
  );
  return rows.map(toRow);
}

/**
 * Delete rows older than `days` days before `now` (default: the system clock).
 * `days` <= 0 keeps everything (retention off). @returns the number of rows deleted.
 */
export async function purgeAudit(q: Queryable, days: number, now: Date = new Date()): Promise<number> {
  if (!(days > 0)) return 0;
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  const r = await q.query('DELETE FROM skillgate.audit_log WHERE at < $1::timestamptz', [cutoff.toISOString()]);
  return r.rowCount;
}
