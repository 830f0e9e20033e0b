/**
 * Batch SQL scripts — several statements in one `sql_execute` text — allowed only on the admin
 * line (R-DT-27, A-27). The admin line is a session of
 * channel `web_admin` with `is_admin` true (the console's proxy form); everywhere else a script
 * is refused with `error_type: "config"` and the model is told to send one statement per call
 * (R-DT-76 stays the rule of every other line).
 *
 * On the admin line the statements run in order, each one exactly as a single `sql_execute`
 * call (the checker, permissions, structural roles, grants, delete protection all apply per
 * statement) and each in its own transaction; the script stops at the first statement that
 * fails or needs a confirmation. Statements before it stay committed — the result says how
 * many ran (`executed`) and lists the ones not run (`remaining_sql`). A DELETE that needs a
 * confirmation stops the script without a token: the token would re-run the whole script, so
 * the admin runs that DELETE alone (where the usual confirmation applies), then the rest.
 */
import type { Envelope } from '../../envelope/types.ts';
import { dtFail, pick, type DtLang } from '../model/results.ts';
import type { DtCaller, DtEnv } from '../model/types.ts';
import { MAX_SQL_CHARS } from './check.ts';
import { runSqlExecute, type SqlExecuteOptions } from './execute.ts';
import { ensureParser, parseSql, sliceBytes } from './parser.ts';

/** Most statements one script may hold. */
export const MAX_SCRIPT_STATEMENTS = 50;

/** True on the admin line: channel `web_admin` and an admin session. */
export function isAdminLine(caller: Pick<DtCaller, 'channel' | 'isAdmin'>): boolean {
  return caller.channel === 'web_admin' && caller.isAdmin;
}

/**
 * The statement texts of `sql` when it holds two or more statements; null for one statement,
 * none, a parse error or an over-long text (the single-statement checker reports those).
 */
export async function scriptStatements(sql: unknown): Promise<string[] | null> {
  if (typeof sql !== 'string' || sql.trim() === '' || sql.length > MAX_SQL_CHARS || sql.includes('\u0000')) return null;
  await ensureParser();
  const r = parseSql(sql);
  if (!r.ok || r.parsed.stmts.length < 2) return null;
  const { parsed } = r;
  return parsed.ranges.map((range) =>
    sliceBytes(parsed, range.start, range.len === undefined ? parsed.bytes.length : range.start + range.len).trim(),
  );
}

/** The refusal of a script outside the admin line: `config`, `refused: "batch_script"`. */
export function scriptRefusal(count: number, lang: DtLang): Envelope {
  return dtFail(
    'config',
    {
      zh: `这段 SQL 含 ${count} 条语句。多条语句的批量脚本只能由管理员在管理后台执行；在这里请每次只执行一条语句。`,
      en: `the sql holds ${count} statements: batch scripts run only on the admin line (web_admin, admin session); send one statement per call here`,
    },
    lang,
    { refused: 'batch_script', statements: count },
  );
}

/** What one executed statement reports in `results`. */
function summary(index: number, sql: string, r: Envelope): Record<string, unknown> {
  const { success: _s, sql: _q, user_message: _u, action_note: _n, ...rest } = r;
  return { index, sql, ...rest };
}

/**
 * Run a script on the admin line (see the module comment). Callers check {@link isAdminLine}.
 * @returns `{success:true, script:true, statements, executed, affected, results: [{index, sql,
 *   affected?, rows?, created?, table_id?, backup_file?…}]}`; on a failed or confirmation-needing
 *   statement `{success:false, error_type, script:true, statements, executed, failed_index,
 *   failed: <that statement's envelope>, results, remaining_sql: [texts]}`.
 */
export async function runSqlScript(
  env: DtEnv,
  statements: readonly string[],
  opts: Omit<SqlExecuteOptions, 'confirmToken'> = {},
): Promise<Envelope> {
  const lang = env.caller.lang;
  if (statements.length > MAX_SCRIPT_STATEMENTS) {
    return dtFail(
      'recoverable',
      {
        zh: `脚本最多 ${MAX_SCRIPT_STATEMENTS} 条语句（收到 ${statements.length} 条），请分几次执行。`,
        en: `a script holds at most ${MAX_SCRIPT_STATEMENTS} statements (got ${statements.length}); run it in parts`,
      },
      lang,
      { need_param: 'sql', refused: 'batch_script_too_long', statements: statements.length },
    );
  }
  const results: Record<string, unknown>[] = [];
  let affected = 0;
  for (const [i, sql] of statements.entries()) {
    const r = await runSqlExecute(env, sql, opts);
    const stop = r.success !== true || r.need_confirm === true;
    if (stop) {
      const index = i + 1;
      const confirm = r.need_confirm === true;
      const why = confirm
        ? {
            zh: `第 ${index} 条语句（DELETE）需要确认，脚本已停在这里：请单独执行这条语句并确认，再执行其余语句。`,
            en: `statement ${index} (DELETE) needs a confirmation; the script stopped there: run that statement alone and confirm, then the rest`,
          }
        : {
            zh: `第 ${index} 条语句失败，脚本已停止：${String(r.user_message ?? r.error ?? '')}`,
            en: `statement ${index} failed, the script stopped: ${String(r.error ?? '')}`,
          };
      // Never the token nor its instructions: confirming would re-run the whole script.
      const { confirm_token: _t, message: _m, expires_in_s: _e, ...failed } = r;
      return {
        success: false,
        error: why.en,
        error_type: confirm ? 'recoverable' : (r.error_type ?? 'recoverable'),
        user_message:
          pick(why, lang) + (i > 0 ? pick({ zh: `（前 ${i} 条已执行并提交）`, en: ` (the first ${i} ran and are committed)` }, lang) : ''),
        need_param: 'sql',
        script: true,
        statements: statements.length,
        executed: i,
        failed_index: index,
        failed,
        results,
        remaining_sql: statements.slice(i),
      };
    }
    if (typeof r.affected === 'number') affected += r.affected;
    results.push(summary(i + 1, sql, r));
  }
  return {
    success: true,
    script: true,
    statements: statements.length,
    executed: statements.length,
    affected,
    results,
    user_message: pick(
      {
        zh: `脚本的 ${statements.length} 条语句已全部执行，共影响 ${affected} 行。`,
        en: `all ${statements.length} statements of the script ran; ${affected} rows affected`,
      },
      lang,
    ),
  };
}
