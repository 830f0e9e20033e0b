/**
 * SQL DELETE through delete protection (spec 000 §7.7★; R-DT-87..91, A-29, D-05): the
 * pre-check count is the checker's `SELECT count(DISTINCT <target>.ctid) …` over the
 * statement's own FROM/USING/WHERE text, run in its own READ ONLY transaction — a failed
 * pre-check is an unknown count and needs a confirmation (R-DT-89). The confirmation token and
 * the backup file come from the one delete-protection service (delete-protection.ts, the
 * confirmation service of CONTRACTS.md §10); the token is bound to the statement text.
 */
import type { Envelope } from '../../envelope/types.ts';
import { protectDelete } from '../delete-protection.ts';
import { dtOk } from '../results.ts';
import type { DtEnv, TableMeta } from '../types.ts';
import { checkSqlSync, type SqlPlan } from './check.ts';
import { parseJsonLossless, prepareSqlTx, wrapReturning } from './session.ts';

/** Options of {@link runSqlDelete}. */
export interface SqlDeleteOptions {
  timeoutMs: number;
  confirmToken?: unknown;
  maxRows: number;
}

/**
 * Run a checked DELETE plan with confirmation and backup.
 * @returns `{success:true, affected, deleted, backup_file, rows?}` (rows with RETURNING), the
 *   confirmation envelope (`need_confirm: true`, `confirm_token`), or a refusal envelope.
 */
export async function runSqlDelete(env: DtEnv, plan: SqlPlan, schema: string, tables: readonly TableMeta[], opts: SqlDeleteOptions): Promise<Envelope> {
  const pre = plan.delete;
  if (!pre) throw new Error('internal: a DELETE plan without its pre-check');
  // Both derived queries must pass the checker too (defence in depth: they are built from text).
  for (const q of [pre.countSql, pre.rowsSql]) {
    const again = checkSqlSync(q, { schema });
    if (!again.ok || again.kind !== 'select') throw new Error(`internal: the DELETE pre-check did not pass the checker (${again.ok ? again.kind : again.code})`);
  }
  const target = plan.target ?? '';
  const meta = tables.find((t) => t.title === target);
  let returned: Record<string, unknown>[] = [];
  const out = await protectDelete(env, {
    action: 'sql_execute',
    table: { id: meta?.id ?? `${schema}.${target}`, title: target },
    params: { sql: plan.rewrittenSql },
    confirmToken: opts.confirmToken,
    countRows: () =>
      env.tx(async (tx) => {
        await prepareSqlTx(tx, schema, { readOnly: true, timeoutMs: opts.timeoutMs });
        const { rows } = await tx.query<{ n: string | number }>(pre.countSql);
        const n = Number(rows[0]?.n);
        return Number.isFinite(n) ? n : null;
      }),
    fetchRows: async (tx) => {
      await prepareSqlTx(tx, schema, { readOnly: false, timeoutMs: opts.timeoutMs });
      // PostgreSQL's own JSON of each row: dates and timestamps exactly as stored.
      const { rows } = await tx.query<{ r: string }>(`SELECT row_to_json(b)::text AS r FROM (\n${pre.rowsSql}\n) AS b`);
      return rows.map((row) => parseJsonLossless(row.r) as Record<string, unknown>);
    },
    runDelete: async (tx) => {
      if (!plan.hasReturning) return (await tx.query(plan.rewrittenSql)).rowCount;
      const { rows } = await tx.query<{ r: string }>(wrapReturning(plan.rewrittenSql));
      returned = rows.map((row) => parseJsonLossless(row.r) as Record<string, unknown>);
      return rows.length;
    },
  });
  if (out.status !== 'deleted') return out.envelope;
  const body: Record<string, unknown> = { affected: out.deleted, deleted: out.deleted, backup_file: out.backupFile, sql: plan.rewrittenSql };
  if (out.backupError !== undefined) body.backup_error = out.backupError;
  if (plan.hasReturning) body.rows = returned.slice(0, opts.maxRows);
  return dtOk(body);
}
