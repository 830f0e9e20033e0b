/**
 * Running-time guard of the SQL channel on the embedded engine . PGlite runs
 * queries on the gateway's only database connection and has no `statement_timeout` (no timer
 * signal in WASM), so a runaway statement would block every other database user of the
 * process until it ends. This guard refuses the constructs that obviously run unbounded,
 * before execution:
 *
 * - `generate_series(…)` unless every argument is an integer constant and the series has at
 *   most {@link MAX_SERIES_ROWS} rows; the product over all series of one statement is capped
 *   by {@link MAX_SERIES_PRODUCT} (cross joins multiply);
 * - `WITH RECURSIVE` whose recursive arm has no WHERE in a statement without LIMIT (a WHERE
 *   or LIMIT does not prove termination — e.g. a LIMIT over an aggregate, or `WHERE n > 0` —
 *   so this only catches the obvious case).
 *
 * - any SELECT / INSERT / UPDATE / DELETE whose plan PostgreSQL itself estimates above
 *   {@link MAX_EMBEDDED_PLAN_COST} (`EXPLAIN`, which plans without executing): cross joins of a
 *   CTE with itself, joins of large tables without a usable condition, huge sorts.
 *
 * These are estimates, not a time limit: a statement the planner misjudges, or a heavy function
 * call, still runs. The real server needs none of it — there `statement_timeout` (session.ts)
 * cancels any statement. Documented in docs/datatable.md ("SQL channel limits").
 */
import type { Tx } from '../../store/db.ts';
import type { RawNode } from './parser.ts';
import type { Bilingual } from '../model/results.ts';
import type { SqlKind } from './check.ts';

/**
 * Highest planner cost (PostgreSQL cost units) a statement may have on the embedded engine.
 * Measured on PGlite 0.5 on the 2-core reference machine: cost 2·10⁵ ≈ 1 s, so this allows
 * roughly 10 s of work; a 200 000-row table can be scanned, grouped, sorted and joined on a key
 * many times over within it.
 */
export const MAX_EMBEDDED_PLAN_COST = 2_000_000;

/** Statement kinds `EXPLAIN` can plan (DDL cannot be explained). */
export const EXPLAINABLE_KINDS: ReadonlySet<SqlKind> = new Set<SqlKind>(['select', 'insert', 'update', 'delete']);

/**
 * The refusal when PostgreSQL's plan of `sql` costs more than {@link MAX_EMBEDDED_PLAN_COST},
 * else null. Runs `EXPLAIN (FORMAT JSON)` in `tx` (the caller's search_path and read-only
 * transaction; nothing is executed). A statement that cannot be planned is left to the
 * execution, which reports the database's own error.
 */
export async function planTooCostly(tx: Pick<Tx, 'query'>, sql: string): Promise<Bilingual | null> {
  let cost: number;
  try {
    await tx.query('SAVEPOINT sg_explain');
    const { rows } = await tx.query<{ 'QUERY PLAN': Array<{ Plan?: { 'Total Cost'?: number } }> }>(`EXPLAIN (FORMAT JSON) ${sql}`);
    await tx.query('RELEASE SAVEPOINT sg_explain');
    const plan = rows[0]?.['QUERY PLAN'];
    cost = Number((Array.isArray(plan) ? plan[0]?.Plan?.['Total Cost'] : undefined) ?? 0);
  } catch {
    await tx.query('ROLLBACK TO SAVEPOINT sg_explain').catch(() => undefined);
    return null;
  }
  if (!(cost > MAX_EMBEDDED_PLAN_COST)) return null;
  const est = cost >= 1e9 ? `${(cost / 1e9).toFixed(1)}e9` : cost >= 1e6 ? `${(cost / 1e6).toFixed(1)}e6` : String(Math.round(cost));
  return {
    zh: `这条语句的预估代价过高（${est}，上限 ${MAX_EMBEDDED_PLAN_COST / 1e6}e6）。内置数据库没有语句超时，这样的查询会长时间占住网关唯一的数据库连接。请加上筛选条件或连接条件、缩小范围后再试（或改用 PostgreSQL 服务器：设置 DATABASE_URL）。`,
    en: `the statement's estimated cost is too high (${est}; the limit is ${MAX_EMBEDDED_PLAN_COST / 1e6}e6). The embedded database has no statement timeout, so such a query would hold the gateway's only database connection for a long time. Add filter or join conditions to narrow it (or use a PostgreSQL server: set DATABASE_URL).`,
  };
}

/** Most rows one generate_series may produce on the embedded engine. */
export const MAX_SERIES_ROWS = 1_000_000;
/** Most rows all generate_series of one statement may produce together (their product). */
export const MAX_SERIES_PRODUCT = 10_000_000;

/** The integer value of a constant argument (`5`, `-5`, `'5'`), else null. */
function intConst(node: unknown): bigint | null {
  const n = node as RawNode | undefined;
  if (!n || typeof n !== 'object') return null;
  const c = n.A_Const as RawNode | undefined;
  if (c) {
    if (c.ival !== undefined) return BigInt(Number((c.ival as { ival?: number }).ival ?? 0));
    const f = (c.fval as { fval?: string } | undefined)?.fval;
    if (f !== undefined && /^-?\d+$/.test(f)) return BigInt(f);
    const str = (c.sval as { sval?: string } | undefined)?.sval;
    if (str !== undefined && /^\s*-?\d+\s*$/.test(str)) return BigInt(str.trim());
    return null;
  }
  const e = n.A_Expr as RawNode | undefined;
  if (e && e.kind === 'AEXPR_OP' && e.lexpr === undefined) {
    const op = ((e.name as RawNode[] | undefined)?.[0]?.String as { sval?: string } | undefined)?.sval;
    const v = intConst(e.rexpr);
    if (v !== null && op === '-') return -v;
    if (v !== null && op === '+') return v;
  }
  return null;
}

function funcName(n: RawNode): string {
  const parts = (n.funcname as RawNode[] | undefined) ?? [];
  const last = parts[parts.length - 1] as { String?: { sval?: string } } | undefined;
  return (last?.String?.sval ?? '').toLowerCase();
}

/**
 * A recursive WITH is taken as unbounded when one of its CTEs is a UNION whose recursive arm
 * (`rarg`) has no WHERE and the statement has no top-level LIMIT. A WHERE or a LIMIT does not
 * prove termination (heuristic; see the module note).
 */
function recursionUnbounded(withClause: RawNode, topLimit: boolean): boolean {
  if (topLimit) return false;
  for (const c of (withClause.ctes as RawNode[] | undefined) ?? []) {
    const q = ((c.CommonTableExpr as RawNode | undefined)?.ctequery as RawNode | undefined)?.SelectStmt as RawNode | undefined;
    if (!q || q.op === undefined || q.op === 'SETOP_NONE') continue;
    const rarg = q.rarg as RawNode | undefined;
    if (!rarg || rarg.whereClause === undefined) return true;
  }
  return false;
}

/** Rows of `generate_series(args)` when all are integer constants, else null. */
function seriesRows(args: unknown[]): bigint | null {
  if (args.length < 2 || args.length > 3) return null;
  const v = args.map(intConst);
  if (v.some((x) => x === null)) return null;
  const [from, to, step = 1n] = v as bigint[];
  if (step === 0n) return null;
  const span = (to! - from!) / step + 1n;
  return span < 0n ? 0n : span;
}

/**
 * Why `stmt` (a parsed statement, `{Kind: {...}}`) may run unbounded on the embedded engine,
 * or null. Walks the tree iteratively (no recursion, any depth).
 * @returns a bilingual reason for a `unbounded` refusal.
 */
export function unboundedReason(stmt: RawNode): Bilingual | null {
  const topLimit = (stmt.SelectStmt as RawNode | undefined)?.limitCount !== undefined;
  const stack: unknown[] = [stmt];
  let product = 1n;
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    const node = v as RawNode;
    const withClause = (node.withClause as RawNode | undefined) ?? (node.WithClause as RawNode | undefined);
    if (withClause && withClause.recursive === true && recursionUnbounded(withClause, topLimit)) {
      return {
        en: 'a WITH RECURSIVE whose recursive part has no WHERE condition, in a statement without LIMIT, may never end; the embedded database cannot stop it (add a WHERE that ends the recursion, or a LIMIT)',
        zh: 'WITH RECURSIVE 的递归部分没有 WHERE 终止条件、语句也没有 LIMIT，可能永不结束；内置数据库无法中止它（请在递归部分加 WHERE 终止条件，或加 LIMIT）',
      };
    }
    const f = node.FuncCall as RawNode | undefined;
    if (f && funcName(f) === 'generate_series') {
      const rows = seriesRows((f.args as unknown[] | undefined) ?? []);
      if (rows === null || rows > BigInt(MAX_SERIES_ROWS)) {
        return {
          en: `generate_series on the embedded database needs integer constant bounds and at most ${MAX_SERIES_ROWS} rows (its running time cannot be limited otherwise)`,
          zh: `内置数据库上的 generate_series 只接受整数常量边界，且最多 ${MAX_SERIES_ROWS} 行（否则无法限制运行时间）`,
        };
      }
      product *= rows > 0n ? rows : 1n;
      if (product > BigInt(MAX_SERIES_PRODUCT)) {
        return {
          en: `the generate_series of this statement produce more than ${MAX_SERIES_PRODUCT} rows together (embedded database)`,
          zh: `本语句中的 generate_series 合计超过 ${MAX_SERIES_PRODUCT} 行（内置数据库无法限制运行时间）`,
        };
      }
    }
    for (const x of Object.values(node)) if (x && typeof x === 'object') stack.push(x);
  }
  return null;
}
