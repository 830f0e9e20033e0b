/**
 * The SQL channel's executors (R-DT-42/43, R-DT-76..89, D-02..D-04,
 * D-12): `runSqlQuery` (SELECT only, READ ONLY transaction) → `{rows, row_count, sql}` and
 * `runSqlExecute` → `{affected, rows?, created?, table_id?}`. Order of checks:
 * 1. org schema (empty org ⇒ config, R-DT-12);
 * 2. SQL permission: allow_sql AND no own-scope table for the operator (R-DT-26, D-03/D-04);
 * 3. the parser-based checker (R-DT-76..84);
 * 4. structural statements need team_role owner/admin (D-02, switch enforceStructuralRoles);
 * 5. every bare relation must exist in the org schema;
 * 6. table grants: every registered table the statement touches — through views too — must
 *    allow the action;
 * 7. execution in one transaction (search_path = org schema only, statement_timeout), DELETE
 *    through delete protection (R-DT-87..93), DDL mirrored into the metadata (A-36).
 * Failures are envelopes (never thrown); database errors are classified by SQLSTATE.
 */
import type { Envelope } from '../../envelope/types.ts';
import { listTables } from '../catalog/metadata.ts';
import { orgSchemaName, OrgSchemaError } from '../model/naming.ts';
import { checkAction, checkSqlAccess, effectiveAccess } from '../access/permissions.ts';
import { dbErrorEnvelope, dtFail, dtOk, emptyOrgEnvelope } from '../model/results.ts';
import { structuralGate } from '../structure/ddl.ts';
import type { DatatableAction, DtEnv, TableMeta } from '../model/types.ts';
import { checkSql, checkSqlSync, type SqlPlan } from './check.ts';
import { EXPLAINABLE_KINDS, planTooCostly } from './embedded-guard.ts';
import { runSqlDdl } from './execute-ddl.ts';
import { runSqlDelete } from './execute-delete.ts';
import {
  DEFAULT_SQL_TIMEOUT_MS,
  isEmbeddedEngine,
  wrapSelectBounded,
  MAX_SQL_RESULT_CHARS,
  MAX_SQL_ROWS,
  missingRelations,
  parseJsonLossless,
  prepareSqlTx,
  relationClosure,
  wrapReturning,
  wrapSelect,
  type SqlRunOptions,
} from './session.ts';

/** Options of {@link runSqlExecute}. */
export interface SqlExecuteOptions extends SqlRunOptions {
  /** The presented confirm_token of a protected DELETE (R-DT-88). */
  confirmToken?: unknown;
}

/** What the shared preamble found: the plan and the org's tables, or the envelope to return. */
type Prepared = { ok: true; plan: SqlPlan; schema: string; tables: TableMeta[] } | { ok: false; envelope: Envelope };

/** Steps 1–6 of the module doc for `action`. */
async function prepare(env: DtEnv, sql: unknown, action: 'sql_query' | 'sql_execute', opts: SqlRunOptions): Promise<Prepared> {
  const lang = env.caller.lang;
  let schema: string;
  try {
    schema = orgSchemaName(env.caller.orgId);
  } catch (err) {
    if (err instanceof OrgSchemaError) return { ok: false, envelope: emptyOrgEnvelope(lang) };
    throw err;
  }
  if (typeof sql !== 'string' || sql.trim() === '') {
    return {
      ok: false,
      envelope: dtFail('recoverable', { zh: '请提供要执行的 SQL（参数 sql）', en: 'sql is required' }, lang, { need_param: 'sql' }),
    };
  }
  const denied = await checkSqlAccess(env.q, env.caller);
  if (denied) return { ok: false, envelope: denied };
  const checked = await checkSql(sql, { schema });
  if (!checked.ok) {
    const extras: Record<string, unknown> = { need_param: 'sql', refused: checked.code, sql };
    if (checked.redirect) extras.redirect = checked.redirect;
    return {
      ok: false,
      envelope: dtFail('recoverable', { zh: `SQL 被拒绝：${checked.reason.zh}`, en: `SQL refused: ${checked.reason.en}` }, lang, extras),
    };
  }
  const plan = checked;
  if (action === 'sql_query' && plan.kind !== 'select') {
    return {
      ok: false,
      envelope: dtFail(
        'recoverable',
        {
          zh: 'sql_query 只能执行 SELECT；写入或建表请用 sql_execute',
          en: 'sql_query runs SELECT only; use sql_execute for writes and DDL',
        },
        lang,
        {
          need_param: 'sql',
          refused: 'read_only',
          redirect: 'sql_execute',
        },
      ),
    };
  }
  if (plan.structural) {
    const gate = structuralGate(env);
    if (gate) return { ok: false, envelope: gate };
  }
  const tables = await listTables(env.q, env.caller.orgId);
  const mustExist = [
    ...new Set([...plan.tables, ...(plan.kind === 'alter' || plan.kind === 'create_index' ? [plan.target ?? ''] : [])]),
  ].filter(Boolean);
  const { missing, closure, embedded, costly } = await env.tx(async (tx) => {
    await prepareSqlTx(tx, schema, { readOnly: true, timeoutMs: opts.statementTimeoutMs ?? DEFAULT_SQL_TIMEOUT_MS });
    const missing = await missingRelations(tx, schema, mustExist);
    const embedded = await isEmbeddedEngine(tx, env.engine);
    return {
      missing,
      closure: await relationClosure(tx, schema, mustExist),
      embedded,
      // The planner's estimate, before anything runs (EXPLAIN without ANALYZE executes nothing).
      costly:
        embedded && !plan.unbounded && missing.length === 0 && EXPLAINABLE_KINDS.has(plan.kind)
          ? await planTooCostly(
              tx,
              plan.kind === 'select' ? wrapSelect(plan.rewrittenSql, opts.maxRows ?? MAX_SQL_ROWS) : plan.rewrittenSql,
            )
          : null,
    };
  });
  if (embedded && (plan.unbounded || costly)) {
    // The embedded engine has no statement_timeout: refuse what obviously runs unbounded, or
    // what the planner expects to be too heavy for the gateway's only connection (embedded-guard.ts).
    const why = plan.unbounded ?? costly!;
    return {
      ok: false,
      envelope: dtFail('recoverable', { zh: `SQL 被拒绝：${why.zh}`, en: `SQL refused: ${why.en}` }, lang, {
        need_param: 'sql',
        refused: 'unbounded',
        sql,
      }),
    };
  }
  if (missing.length > 0) {
    const names = tables.map((t) => t.title);
    return {
      ok: false,
      envelope: dtFail(
        'recoverable',
        {
          zh: `本组织没有表 ${missing.map((m) => `「${m}」`).join('、')}。可用的表：${names.map((n) => `「${n}」`).join('、') || '（暂无）'}`,
          en: `no table ${missing.map((m) => `"${m}"`).join(', ')} in this organisation; available: ${names.join(', ') || '(none)'}`,
        },
        lang,
        { need_param: 'sql', missing_tables: missing, tables: names },
      ),
    };
  }
  // Table grants on every registered table the statement touches, views resolved to their tables.
  const touched = new Set([...closure, ...(plan.target ? [plan.target] : [])]);
  for (const t of tables) {
    if (!touched.has(t.title)) continue;
    const refusal = checkAction(await effectiveAccess(env.q, t, env.caller.roleIds), action as DatatableAction, lang, t.title);
    if (refusal) return { ok: false, envelope: refusal };
  }
  return { ok: true, plan, schema, tables };
}

/** Run a checked SELECT in `tx` through {@link wrapSelect}; rows as PostgreSQL's JSON. */
/**
 * Run a checked SELECT in `tx` through {@link wrapSelect} (LIMIT cap + 1: never more rows are
 * fetched); rows as PostgreSQL's JSON. Rows past the row cap or past the result size cap
 * ({@link MAX_SQL_RESULT_CHARS}) are cut: `truncated` says so and `by` says which cap.
 */
async function selectRows(
  env: DtEnv,
  plan: SqlPlan,
  schema: string,
  readOnly: boolean,
  opts: SqlRunOptions,
): Promise<{ rows: unknown[]; truncated: boolean; by?: 'rows' | 'size' }> {
  const cap = opts.maxRows ?? MAX_SQL_ROWS;
  const maxChars = opts.maxResultChars ?? MAX_SQL_RESULT_CHARS;
  const wrapped = wrapSelectBounded(plan.rewrittenSql, cap, maxChars);
  const again = checkSqlSync(wrapped, { schema });
  if (!again.ok || again.kind !== 'select')
    throw new Error(`internal: the wrapped SELECT did not pass the checker (${again.ok ? again.kind : again.code})`);
  return env.tx(async (tx) => {
    await prepareSqlTx(tx, schema, { readOnly, timeoutMs: opts.statementTimeoutMs ?? DEFAULT_SQL_TIMEOUT_MS });
    // Rows come in order with their JSON text; the one crossing the size cap comes without it (wrapSelectBounded).
    const { rows } = await tx.query<{ r: string | null }>(wrapped);
    const parsed: unknown[] = [];
    for (let i = 0; i < rows.length && i < cap; i++) {
      const text = rows[i]!.r;
      if (text === null) return { rows: parsed, truncated: true, by: 'size' as const };
      parsed.push(parseJsonLossless(text));
    }
    return rows.length > cap ? { rows: parsed, truncated: true, by: 'rows' as const } : { rows: parsed, truncated: false };
  });
}

/**
 * The keys a cut result adds: `truncated: true` and an `action_note` saying
 * which cap applied and what to do; the same text as `note` (kept for existing callers).
 */
function truncationNote(
  truncated: boolean,
  cap: number,
  lang: DtEnv['caller']['lang'],
  by: 'rows' | 'size' = 'rows',
  maxChars = MAX_SQL_RESULT_CHARS,
): Record<string, unknown> {
  if (!truncated) return {};
  const text =
    by === 'size'
      ? lang === 'en'
        ? `the result exceeds ${maxChars} characters; only the first rows are returned — select fewer columns, aggregate, or page with LIMIT/OFFSET`
        : `结果超过 ${maxChars} 个字符，只返回了前面的部分行；请少选列、用聚合或 LIMIT/OFFSET 分页`
      : lang === 'en'
        ? `only the first ${cap} rows are returned; aggregate or page with LIMIT/OFFSET`
        : `结果超过 ${cap} 行，只返回前 ${cap} 行；请用聚合或 LIMIT/OFFSET 分页`;
  return { truncated: true, truncated_by: by, note: text, action_note: text };
}

/**
 * `sql_query` (R-DT-42): one SELECT in a READ ONLY transaction.
 * @returns `{success:true, rows, row_count, sql}` (`truncated: true` when more than the row cap
 *   matched), or a failure envelope: refusal (`refused: <code>`, recoverable, need_param sql),
 *   permission (config, non_retriable), missing table, or a database error by SQLSTATE.
 */
export async function runSqlQuery(env: DtEnv, sql: unknown, opts: SqlRunOptions = {}): Promise<Envelope> {
  const lang = env.caller.lang;
  try {
    const p = await prepare(env, sql, 'sql_query', opts);
    if (!p.ok) return p.envelope;
    const { rows, truncated, by } = await selectRows(env, p.plan, p.schema, true, opts);
    return dtOk({
      rows,
      row_count: rows.length,
      sql: p.plan.rewrittenSql,
      ...truncationNote(truncated, opts.maxRows ?? MAX_SQL_ROWS, lang, by, opts.maxResultChars),
    });
  } catch (err) {
    return dbErrorEnvelope(err, 'sql_query', lang);
  }
}

/**
 * `sql_execute` (R-DT-43, R-DT-86): one statement of any accepted kind.
 * - SELECT → `{affected: 0, rows, row_count}`;
 * - INSERT / UPDATE → `{affected, rows?}` (rows with RETURNING);
 * - DELETE → through delete protection: `{affected, deleted, backup_file, rows?}`, or the
 *   confirmation envelope (`need_confirm`, `confirm_token`) when chat_mode and > 10 rows or an
 *   unknown pre-check count (R-DT-87..91);
 * - CREATE TABLE → `{affected: 0, created: true, table_id, table, fields}` (registered, A-36);
 *   CREATE TABLE IF NOT EXISTS on an existing table → `created: false, already_exists: true`;
 * - CREATE INDEX / VIEW, ALTER TABLE, DROP VIEW / INDEX → `{affected: 0, …}` (metadata follows).
 * Failures as {@link runSqlQuery}.
 */
export async function runSqlExecute(env: DtEnv, sql: unknown, opts: SqlExecuteOptions = {}): Promise<Envelope> {
  const lang = env.caller.lang;
  try {
    const p = await prepare(env, sql, 'sql_execute', opts);
    if (!p.ok) return p.envelope;
    const { plan, schema } = p;
    const timeoutMs = opts.statementTimeoutMs ?? DEFAULT_SQL_TIMEOUT_MS;
    switch (plan.kind) {
      case 'select': {
        const { rows, truncated, by } = await selectRows(env, plan, schema, true, opts);
        return dtOk({
          affected: 0,
          rows,
          row_count: rows.length,
          sql: plan.rewrittenSql,
          ...truncationNote(truncated, opts.maxRows ?? MAX_SQL_ROWS, lang, by, opts.maxResultChars),
        });
      }
      case 'insert':
      case 'update': {
        const cap = opts.maxRows ?? MAX_SQL_ROWS;
        const res = await env.tx(async (tx) => {
          await prepareSqlTx(tx, schema, { readOnly: false, timeoutMs });
          if (!plan.hasReturning) return { affected: (await tx.query(plan.rewrittenSql)).rowCount, rows: undefined };
          const { rows } = await tx.query<{ r: string }>(wrapReturning(plan.rewrittenSql));
          return { affected: rows.length, rows: rows.slice(0, cap).map((row) => parseJsonLossless(row.r)) };
        });
        const body: Record<string, unknown> = { affected: res.affected, sql: plan.rewrittenSql };
        if (res.rows) Object.assign(body, { rows: res.rows }, truncationNote(res.affected > cap, cap, lang));
        return dtOk(body);
      }
      case 'delete':
        return await runSqlDelete(env, plan, schema, p.tables, {
          timeoutMs,
          confirmToken: opts.confirmToken,
          maxRows: opts.maxRows ?? MAX_SQL_ROWS,
        });
      default:
        return await runSqlDdl(env, plan, schema, p.tables, timeoutMs);
    }
  } catch (err) {
    return dbErrorEnvelope(err, 'sql_execute', lang);
  }
}
