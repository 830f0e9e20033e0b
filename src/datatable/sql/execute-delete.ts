/**
 * SQL DELETE through delete protection (R-DT-87..91, A-29, D-05): the
 * pre-check count is the checker's `SELECT count(DISTINCT <target>.ctid) …` over the
 * statement's own FROM/USING/WHERE text, run in its own READ ONLY transaction — a failed
 * pre-check is an unknown count and needs a confirmation (R-DT-89). The confirmation token and
 * the backup file come from the one delete-protection service (write/delete-protection.ts, the
 * confirmation service of docs/messaging.md); the token is bound to the statement text.
 */
import type { Envelope } from '../../envelope/types.ts';
import type { Tx } from '../../store/db.ts';
import { DeleteMismatch, protectDelete } from '../write/delete-protection.ts';
import { quoteIdent } from '../model/naming.ts';
import { dtOk } from '../model/results.ts';
import type { DtEnv, TableMeta } from '../model/types.ts';
import { checkSqlSync, type SqlPlan } from './check.ts';
import { parseJsonLossless, prepareSqlTx, wrapReturning } from './session.ts';

/**
 * The statement must have deleted exactly the rows fetched for the backup (`backedUp`, each with
 * its `id`): as many, and none of them left. A volatile condition (`random()`, `now()` near a
 * boundary) or a concurrent change makes the two sets differ; then {@link DeleteMismatch} rolls
 * the whole delete back, so no row is ever deleted without being in the backup file.
 */
async function expectDeletedExactly(tx: Tx, ref: string, backedUp: readonly Record<string, unknown>[], deleted: number): Promise<void> {
  const ids = backedUp
    .map((r) => r.id)
    .filter((id) => id !== undefined && id !== null)
    .map(String);
  let left = 0;
  if (ids.length > 0) {
    const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${ref} WHERE "id"::text = ANY($1::text[])`, [ids]);
    left = rows[0]?.n ?? 0;
  }
  if (deleted === backedUp.length && left === 0) return;
  throw new DeleteMismatch({
    zh: `这条 DELETE 实际删除的行（${deleted} 行）与删除前备份的行（${backedUp.length} 行）不一致——条件里可能有 random() 之类每次结果不同的函数，或数据同时被修改。为保证每一条被删的行都有备份，本次已全部回滚，未删除任何数据。请改用确定的条件（例如按 id）。`,
    en: `this DELETE removed different rows (${deleted}) than those backed up before it (${backedUp.length}) — its condition may use a function whose result changes each time, such as random(), or the rows changed meanwhile. So that every deleted row is in the backup, everything was rolled back and nothing was deleted. Use a deterministic condition (e.g. by id).`,
  });
}

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
export async function runSqlDelete(
  env: DtEnv,
  plan: SqlPlan,
  schema: string,
  tables: readonly TableMeta[],
  opts: SqlDeleteOptions,
): Promise<Envelope> {
  const pre = plan.delete;
  if (!pre) throw new Error('internal: a DELETE plan without its pre-check');
  // Both derived queries must pass the checker too (defence in depth: they are built from text).
  for (const q of [pre.countSql, pre.rowsSql]) {
    const again = checkSqlSync(q, { schema });
    if (!again.ok || again.kind !== 'select')
      throw new Error(`internal: the DELETE pre-check did not pass the checker (${again.ok ? again.kind : again.code})`);
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
    runDelete: async (tx, backedUp) => {
      let deleted: number;
      if (!plan.hasReturning) deleted = (await tx.query(plan.rewrittenSql)).rowCount;
      else {
        const { rows } = await tx.query<{ r: string }>(wrapReturning(plan.rewrittenSql));
        returned = rows.map((row) => parseJsonLossless(row.r) as Record<string, unknown>);
        deleted = rows.length;
      }
      await expectDeletedExactly(tx, `${quoteIdent(schema)}.${quoteIdent(target)}`, backedUp, deleted);
      return deleted;
    },
  });
  if (out.status !== 'deleted') return out.envelope;
  const body: Record<string, unknown> = {
    affected: out.deleted,
    deleted: out.deleted,
    backup_file: out.backupFile,
    sql: plan.rewrittenSql,
  };
  if (out.backupError !== undefined) body.backup_error = out.backupError;
  if (plan.hasReturning) body.rows = returned.slice(0, opts.maxRows);
  return dtOk(body);
}
