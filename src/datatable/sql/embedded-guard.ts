/**
 * Running-time guard of the SQL channel on the embedded engine (issue 4 item 3). PGlite runs
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
 * This is a heuristic, not a time limit: joins of large tables, heavy functions or huge
 * sorts are not detected. The real server needs none of it — there `statement_timeout`
 * (session.ts) cancels any statement. Documented in docs/datatable.md ("SQL channel limits").
 */
import type { RawNode } from './parser.ts';
import type { Bilingual } from '../results.ts';

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
