/**
 * The datatable entry (R-DT-01..05, R-DT-12, R-DT-24, R-DT-28, R-DT-96, D-09):
 * `runDatatable(input, runtime_context)` normalises the input (call/normalize.ts), builds the
 * operator from the runtime context only, opens sessions only through `db_factory`, resolves
 * the table and checks the action permission, dispatches to the 20 handlers and puts
 * `action_note` on every envelope of a normalised call and the `display_md` people read
 * (call/display.ts). Never throws.
 */
import type { Envelope } from '../envelope/types.ts';
import { log as processLog, type Logger } from '../log/logger.ts';
import type { Queryable, Tx } from '../store/db.ts';
import { deleteBatch, deleteBy, deleteRow } from './write/delete.ts';
import { withDisplay } from './call/display.ts';
import { contextTimeZone } from '../present/clock.ts';
import { resolveTable } from './catalog/metadata.ts';
import { orgSchemaName, OrgSchemaError } from './model/naming.ts';
import { normalizeInput } from './call/normalize.ts';
import { checkAction, effectiveAccess } from './access/permissions.ts';
import { aggregate, query } from './read/read.ts';
import { dbErrorEnvelope, dtFail, emptyOrgEnvelope } from './model/results.ts';
import type { RowHandler } from './read/rows.ts';
import { SQL_HANDLERS } from './sql/index.ts';
import { schemaCollisionEnvelope, STRUCTURE_HANDLERS, STRUCTURE_TABLE_HANDLERS } from './structure/table-actions.ts';
import type { ActionHandler, DatatableAction, DtCaller, DtEnv, DtSettings } from './model/types.ts';
import { DATATABLE_ACTIONS } from './model/types.ts';
import { upsert } from './write/upsert.ts';
import { insert, insertBatch, insertFromFile, update, updateBy } from './write/write.ts';

// What modules outside src/datatable/ use: the operators' grant commands and console read the
// catalogue and the grants through these (docs/datatable.md "Layout").
export { findTableByTitle, getTable, listTables } from './catalog/metadata.ts';
export { grant, listGrants, revoke, type GrantRequest, type GrantResult } from './access/grants.ts';
export { isUuid } from './model/naming.ts';
export { tableOptions } from './call/display.ts';
export { DATATABLE_ACTIONS } from './model/types.ts';
export type { DatatableAction, FieldMeta, Grant, LogicalType, RowScope, TableMeta } from './model/types.ts';

/** Row actions on a resolved table. */
export const ROW_HANDLERS = {
  query,
  aggregate,
  insert,
  insert_batch: insertBatch,
  insert_from_file: insertFromFile,
  upsert,
  update,
  update_by: updateBy,
  delete: deleteRow,
  delete_batch: deleteBatch,
  delete_by: deleteBy,
} as const satisfies Record<string, RowHandler>;

/** Actions that need no table: list_tables, create_table, sql_query, sql_execute. */
const GLOBAL_HANDLERS: Record<string, ActionHandler> = { ...STRUCTURE_HANDLERS, ...SQL_HANDLERS };
/** Actions on a resolved table (structural ones check team_role themselves, D-01). */
const TABLE_HANDLERS: Record<string, RowHandler> = { ...ROW_HANDLERS, ...STRUCTURE_TABLE_HANDLERS };

/** Load-time check: the dispatch table is exactly the 20 actions (R-DT-28). */
function assertDispatchTable(): void {
  const have = [...Object.keys(GLOBAL_HANDLERS), ...Object.keys(TABLE_HANDLERS)].sort();
  const want = [...DATATABLE_ACTIONS].sort();
  if (have.length !== want.length || have.some((a, i) => a !== want[i])) {
    throw new Error(`datatable dispatch table mismatch: ${have.join(',')} vs ${want.join(',')}`);
  }
}
assertDispatchTable();

/** The dispatch table's action names (for tests). */
export function dispatchedActions(): string[] {
  return [...Object.keys(GLOBAL_HANDLERS), ...Object.keys(TABLE_HANDLERS)];
}

/** Options of {@link runDatatable} (tests and the bench; the skill handler passes none). */
export interface DatatableOptions {
  /** Injectable clock (token expiry, backup names). */
  now?: () => Date;
  log?: Logger;
  settings?: DtSettings;
}

type DbFactory = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}

function bool(v: unknown, dflt: boolean): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1) return true;
  if (v === 'false' || v === 0) return false;
  return dflt;
}

/**
 * The operator from `runtime_context` ONLY (R-ID-01, R-DT-24, D-09): org_id, role_id (plus
 * `role_ids` when a line supplies several), actor_emp_no — falling back to the legacy
 * context key `emp_no`, never to input — team_role, allow_sql (default true, D-04),
 * chat_mode (default true), session_id, actor_key, workspace_dir, channel, is_admin;
 * `lang` "en" when the context says so, else zh-CN; the zone of `_time_zone` (else the organisation's).
 */
export function callerFromContext(ctx: Record<string, unknown>): DtCaller {
  const roles = new Set<string>();
  if (str(ctx.role_id)) roles.add(str(ctx.role_id));
  if (Array.isArray(ctx.role_ids)) for (const r of ctx.role_ids) if (str(r)) roles.add(str(r));
  const team = str(ctx.team_role);
  return {
    orgId: str(ctx.org_id),
    roleIds: [...roles],
    empNo: (str(ctx.actor_emp_no) || str(ctx.emp_no)).trim(),
    teamRole: team === 'owner' || team === 'admin' ? team : 'member',
    allowSql: bool(ctx.allow_sql, true),
    chatMode: bool(ctx.chat_mode, true),
    sessionId: str(ctx.session_id),
    actorKey: str(ctx.actor_key),
    workspaceDir: str(ctx.workspace_dir),
    channel: str(ctx.channel),
    isAdmin: bool(ctx.is_admin, false),
    lang: ctx.lang === 'en' || ctx._lang === 'en' ? 'en' : 'zh-CN',
    timeZone: contextTimeZone(ctx),
  };
}

function withNote(env: Envelope, note: string | undefined): Envelope {
  if (!note) return env;
  const own = typeof env.action_note === 'string' && env.action_note ? env.action_note : undefined;
  return { ...env, action_note: own ? `${note}; ${own}` : note };
}

/**
 * Run one datatable call. `input` is `{action, payload}` or flat; `ctx` the
 * runtime_context (needs `db_factory`; `db` is never used for new sessions, R-DT-96).
 * @returns the envelope; failures as `{success:false, error, error_type, user_message,
 *   need_param?, non_retriable?}`; an empty org is `config` + non_retriable (R-DT-12).
 */
export async function runDatatable(
  input: unknown,
  ctx: Record<string, unknown> | null | undefined,
  opts: DatatableOptions = {},
): Promise<Envelope> {
  const context = ctx ?? {};
  const caller = callerFromContext(context);
  const lang = caller.lang;
  const norm = normalizeInput(input, lang);
  if ('envelope' in norm) return norm.envelope;
  const note = norm.actionNote;
  try {
    orgSchemaName(caller.orgId);
  } catch (err) {
    if (err instanceof OrgSchemaError) return withNote(emptyOrgEnvelope(lang), note);
    throw err;
  }
  const factory = context.db_factory as DbFactory | null | undefined;
  if (typeof factory !== 'function') {
    return withNote(
      dtFail(
        'config',
        {
          zh: '数据表需要数据库会话（db_factory），当前运行方式没有提供。',
          en: 'the datatable needs runtime_context.db_factory (in-process execution)',
        },
        lang,
        { non_retriable: true },
      ),
      note,
    );
  }
  // Every transaction runs in the caller's zone: a wall-clock 日期时间 is read in it and a
  // timestamptz read back as text carries its offset (docs/datatable.md "Field types").
  const timeZone = caller.timeZone ?? contextTimeZone(context);
  const zoned: DbFactory = (fn) =>
    factory(async (tx) => {
      await tx.query(`SELECT set_config('TimeZone', $1, true)`, [timeZone]);
      return fn(tx);
    });
  const q: Queryable = { query: (text, values) => zoned((tx) => tx.query(text, values)) };
  const env: DtEnv = { caller, tx: zoned, q, now: opts.now ?? (() => new Date()), log: opts.log ?? processLog() };
  if (opts.settings) env.settings = opts.settings;
  const engine = (context.db as { engine?: unknown } | null | undefined)?.engine;
  if (engine === 'embedded' || engine === 'server') env.engine = engine;
  const action: DatatableAction = norm.action;
  try {
    const collision = await schemaCollisionEnvelope(env, orgSchemaName(caller.orgId));
    if (collision) return withNote(collision, note);
    const global = GLOBAL_HANDLERS[action];
    if (global) return withNote(withDisplay(action, await global(env, norm.payload), norm.payload, null, lang, timeZone), note);
    const handler = TABLE_HANDLERS[action]!;
    const resolved = await resolveTable(env, norm.payload);
    if (!resolved.ok) return withNote(resolved.envelope, note);
    const tableNote = [note, resolved.note].filter(Boolean).join('; ') || undefined;
    const access = await effectiveAccess(env.q, resolved.table, caller.roleIds);
    const denied = checkAction(access, action, lang, resolved.table.title);
    if (denied) return withNote(denied, tableNote);
    const out = await handler(env, norm.payload, { table: resolved.table, access });
    return withNote(withDisplay(action, out, norm.payload, resolved.table, lang, timeZone), tableNote);
  } catch (err) {
    env.log?.warn({ action, err: err instanceof Error ? err.message : String(err) }, 'datatable: action failed unexpectedly');
    return withNote(dbErrorEnvelope(err, action, lang), note);
  }
}
