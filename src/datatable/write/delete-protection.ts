/**
 * Delete protection (R-DT-87..94, D-05, D-19, A-29, A-57): confirmation for
 * large or uncounted deletes through the one confirmation service (src/turn/confirm-tokens.ts),
 * and a backup file of every protected delete.
 *
 * Covered: `delete_batch` (count = number of row_ids), `delete_by` (count = matched rows),
 * SQL DELETE through `sql_execute` (count = pre-check; a failed pre-check is unknown).
 * A single-row `delete` is neither confirmed nor backed up (D-19) and does not come here.
 *
 * Usage (Engineer B's SQL DELETE, C's delete_batch / delete_by):
 * ```ts
 * const out = await protectDelete(env, {
 *   action: 'sql_execute', table: { id, title },
 *   params: { sql },                       // hashed into the token (never include the token)
 *   confirmToken: payload.confirm_token,
 *   countRows: async () => n | null,       // outside any transaction; throw or null = unknown
 *   fetchRows: async (tx) => rows,         // inside the delete transaction (lock: FOR UPDATE)
 *   runDelete: async (tx, rows) => affected,
 * });
 * if (out.status !== 'deleted') return out.envelope;   // confirmation needed or refused
 * return { success: true, deleted: out.deleted, backup_file: out.backupFile };
 * ```
 */
import { rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { Envelope } from '../../envelope/types.ts';
import { log as processLog } from '../../log/logger.ts';
import type { Tx } from '../../store/db.ts';
import { issueConfirmToken, redeemConfirmToken, type ConfirmBinding, type RedeemRefusal } from '../../turn/confirm-tokens.ts';
import { dbErrorEnvelope, dtFail, type Bilingual, type DtLang } from '../model/results.ts';
import type { DtEnv } from '../model/types.ts';

/** More rows than this need a confirmation in chat mode (R-DT-87). */
export const CONFIRM_THRESHOLD = 10;

/** The skill name tokens are bound to (also when called as `nocodb`, D-18). */
export const DATATABLE_SKILL = 'datatable';

/** One protected delete. */
export interface ProtectDeleteRequest {
  /** The canonical action: `delete_batch`, `delete_by` or `sql_execute`. */
  action: string;
  /** The target table: id (token binding) and title (backup file name). */
  table: { id: string; title: string };
  /**
   * The semantic parameters the token is bound to (e.g. `{filters}` after parsing,
   * `{row_ids}`, `{sql}`); echoed in the confirmation reply (R-ACT-07). Never the token.
   */
  params: Record<string, unknown>;
  /** The presented `confirm_token`, as received (any type). */
  confirmToken?: unknown;
  /**
   * The pre-check count, run outside any transaction: a number, or null when unknown.
   * A throw counts as unknown (R-DT-89).
   */
  countRows: () => Promise<number | null>;
  /** The rows that will be deleted, inside the delete transaction (lock them). */
  fetchRows: (tx: Tx) => Promise<Record<string, unknown>[]>;
  /** Delete, inside the same transaction after the backup; returns the affected row count. */
  runDelete: (tx: Tx, rows: Record<string, unknown>[]) => Promise<number>;
}

/** What {@link protectDelete} did. */
export type ProtectDeleteOutcome =
  /** Not executed: a confirm_token was issued (chat mode, > 10 rows or unknown). */
  | { status: 'needs_confirmation'; envelope: Envelope }
  /** Not executed: a presented token was refused, or the delete failed (rolled back). */
  | { status: 'refused'; envelope: Envelope }
  /** Executed and committed. `backupFile` is the file name in the workspace root, or null. */
  | {
      status: 'deleted';
      deleted: number;
      backupFile: string | null;
      backupError?: string;
      backedUpRows: number;
    };

function bindingOf(env: DtEnv, req: ProtectDeleteRequest): ConfirmBinding {
  const c = env.caller;
  return {
    orgId: c.orgId,
    roleId: c.roleIds[0] ?? '',
    sessionId: c.sessionId,
    actorKey: c.actorKey,
    skill: DATATABLE_SKILL,
    action: req.action,
    table: req.table.id,
    params: req.params,
  };
}

/** `YYYYMMDD_HHMMSS` in UTC. */
export function backupTimestamp(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}_${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/**
 * Write `rows` (a JSON array, UTF-8, pretty-printed) to the workspace root as
 * `del_backup_<table>_<UTC YYYYMMDD_HHMMSS>.json`, or `…_<n>.json` (n = 2, 3 …) when that
 * name exists (R-DT-91, A-57). Characters of the title outside `[\u4e00-\u9fa5A-Za-z0-9_]`
 * become `_`. Never overwrites a file (exclusive create).
 * @returns the file name (not the path).
 * @throws Error when the workspace is not an absolute path or the write fails.
 */
export function writeDeleteBackup(workspaceDir: string, tableTitle: string, rows: readonly Record<string, unknown>[], now: Date): string {
  if (!workspaceDir || !isAbsolute(workspaceDir))
    throw new Error(`no absolute workspace to write the backup to (${JSON.stringify(workspaceDir)})`);
  const safe = tableTitle.replace(/[^\u4e00-\u9fa5A-Za-z0-9_]/gu, '_') || 'table';
  const base = `del_backup_${safe}_${backupTimestamp(now)}`;
  const body = `${JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
  for (let n = 1; n < 1000; n++) {
    const name = n === 1 ? `${base}.json` : `${base}_${n}.json`;
    try {
      writeFileSync(join(workspaceDir, name), body, { flag: 'wx', mode: 0o600 });
      return name;
    } catch (err) {
      if ((err as { code?: string }).code === 'EEXIST') continue;
      throw err;
    }
  }
  throw new Error(`too many backups named ${base}_*.json`);
}

function countText(n: number | null, lang: DtLang): string {
  if (n === null) return lang === 'en' ? 'an unknown number of rows' : '行数未知的数据';
  return lang === 'en' ? `${n} rows` : `${n} 行`;
}

async function confirmationEnvelope(
  env: DtEnv,
  req: ProtectDeleteRequest,
  count: number | null,
  refusal?: RedeemRefusal,
): Promise<Envelope> {
  const lang = env.caller.lang;
  const what = countText(count, lang);
  const summaryZh = `删除表「${req.table.title}」中的${what}`;
  const summaryEn = `delete ${what} from table "${req.table.title}"`;
  const issued = await env.tx((tx) =>
    issueConfirmToken(tx, bindingOf(env, req), {
      now: env.now,
      summary: lang === 'en' ? summaryEn : summaryZh,
      call: { action: req.action, table_id: req.table.id, ...req.params },
    }),
  );
  const body: Envelope = {
    need_confirm: true,
    executed: false,
    confirm_token: issued.token,
    expires_in_s: issued.expiresInS,
    action: req.action,
    table_id: req.table.id,
    table: req.table.title,
    affected: count,
    // R-ACT-07: echo what was received and say why it only previewed.
    received: req.params,
    preview_reason:
      count === null
        ? 'the number of affected rows could not be counted, so the delete needs confirmation'
        : `${count} rows exceed the limit of ${CONFIRM_THRESHOLD} for deleting without confirmation`,
    message: `Not executed. After the user confirms, repeat the same call with unchanged parameters plus confirm_token (valid ${Math.round(issued.expiresInS / 60)} minutes, single use).`,
    user_message:
      lang === 'en'
        ? `About to ${summaryEn} (a backup file is written first). Confirm within 5 minutes to proceed.`
        : `即将${summaryZh}（删除前会先备份）。请在 5 分钟内确认后执行。`,
  };
  if (refusal) {
    const why: Record<RedeemRefusal, { zh: string; en: string }> = {
      unknown: { zh: '确认令牌无效', en: 'confirm_token is unknown' },
      expired: { zh: '确认令牌已过期（有效期 5 分钟）', en: 'confirm_token has expired (valid 5 minutes)' },
      consumed: { zh: '确认令牌已使用过（只能用一次）', en: 'confirm_token was already used (single use)' },
      mismatch: { zh: '确认令牌与本次参数不一致（参数变了需要重新确认）', en: 'confirm_token was issued for different parameters' },
    };
    return {
      ...body,
      success: false,
      error: `${why[refusal].en}; nothing was deleted. A new confirm_token was issued for these parameters: it needs the user's confirmation again.`,
      error_type: 'recoverable',
      token_refused: refusal,
      user_message: lang === 'en' ? `${why[refusal].en}. ${String(body.user_message)}` : `${why[refusal].zh}。${String(body.user_message)}`,
    };
  }
  return body;
}

class TokenRefused extends Error {
  constructor(readonly reason: RedeemRefusal) {
    super(`confirm token refused: ${reason}`);
  }
}

/**
 * Thrown by a `runDelete` that finds the statement did not delete exactly the rows fetched and
 * backed up (a volatile condition such as `random()`, or rows changed concurrently): the
 * transaction rolls back, the backup is removed, and the caller gets `reason` as a recoverable
 * error (`refused: "unstable_delete"`). Nothing is deleted that the backup does not hold.
 */
export class DeleteMismatch extends Error {
  constructor(readonly reason: Bilingual) {
    super(reason.en);
    this.name = 'DeleteMismatch';
  }
}

class NeedsConfirmation extends Error {
  constructor(readonly count: number) {
    super('needs confirmation');
  }
}

/**
 * Run one protected delete (R-DT-87..93, D-05, A-29).
 *
 * chat_mode true:
 * - no token: `countRows()`; > 10 or unknown ⇒ a token is issued and nothing runs
 *   (`needs_confirmation`, the envelope echoes `params`); otherwise the delete runs — and if
 *   the transaction's `fetchRows` finds more than 10 rows after all, it rolls back and a token
 *   is issued instead.
 * - a token: redeemed inside the delete transaction (consumed only if the delete commits).
 *   A refused token always means `refused` (nothing runs, the token is not consumed;
 *   docs/messaging.md). When the pre-check counts ≤ 10 rows the reply issues no new token (no
 *   false confirmation prompt) and says the call without confirm_token deletes directly
 *   (`confirmation_needed: false`). Otherwise unknown / consumed ⇒ `refused`; expired /
 *   mismatched parameters ⇒ `refused` carrying a fresh token for the new parameters,
 *   which again needs the user's confirmation.
 * chat_mode false (chains, schedules): runs without a token.
 *
 * Every executed delete first writes the fetched rows to `del_backup_<table>_<ts>.json` in
 * the workspace root; a failed backup is logged and does not block (R-DT-92).
 * Database errors roll the transaction back and come back as `refused` with an envelope
 * classified by SQLSTATE. Never throws for the caller's mistakes.
 */
export async function protectDelete(env: DtEnv, req: ProtectDeleteRequest): Promise<ProtectDeleteOutcome> {
  const lang = env.caller.lang;
  const chat = env.caller.chatMode;
  const token = typeof req.confirmToken === 'string' && req.confirmToken.trim() !== '' ? req.confirmToken.trim() : undefined;
  if (req.confirmToken !== undefined && req.confirmToken !== null && req.confirmToken !== '' && token === undefined) {
    return {
      status: 'refused',
      envelope: dtFail('recoverable', { zh: 'confirm_token 必须是字符串。', en: 'confirm_token must be a string' }, lang, {
        need_param: 'confirm_token',
      }),
    };
  }

  if (chat && token === undefined) {
    let count: number | null;
    try {
      count = await req.countRows();
    } catch {
      count = null; // a failed pre-check is unknown (R-DT-89)
    }
    if (count === null || count > CONFIRM_THRESHOLD)
      return { status: 'needs_confirmation', envelope: await confirmationEnvelope(env, req, count) };
  }

  let backupFile: string | null = null;
  let backupError: string | undefined;
  let backedUpRows = 0;
  try {
    const deleted = await env.tx(async (tx) => {
      if (chat && token !== undefined) {
        const r = await redeemConfirmToken(tx, token, bindingOf(env, req), { now: env.now });
        if (!r.ok) throw new TokenRefused(r.reason);
      }
      const rows = await req.fetchRows(tx);
      if (chat && token === undefined && rows.length > CONFIRM_THRESHOLD) throw new NeedsConfirmation(rows.length);
      backedUpRows = rows.length;
      if (rows.length > 0) {
        try {
          backupFile = writeDeleteBackup(env.caller.workspaceDir, req.table.title, rows, env.now());
        } catch (err) {
          backupError = err instanceof Error ? err.message : String(err);
          (env.log ?? processLog()).warn(
            { table: req.table.title, action: req.action, rows: rows.length, err: backupError },
            'datatable: delete backup failed; deleting anyway (R-DT-92)',
          );
        }
      }
      return req.runDelete(tx, rows);
    });
    const out: ProtectDeleteOutcome = { status: 'deleted', deleted, backupFile, backedUpRows };
    if (backupError !== undefined) out.backupError = backupError;
    return out;
  } catch (err) {
    if (err instanceof NeedsConfirmation)
      return { status: 'needs_confirmation', envelope: await confirmationEnvelope(env, req, err.count) };
    if (err instanceof TokenRefused) {
      let count: number | null;
      try {
        count = await req.countRows();
      } catch {
        count = null;
      }
      if (count !== null && count <= CONFIRM_THRESHOLD) {
        // ≤ 10 rows need no confirmation, so a refused token must not turn into a
        // (false) confirmation prompt with a fresh token. docs/messaging.md: a refused token is
        // refused — nothing runs, the token is not consumed. The reply says so and that the same
        // call without confirm_token deletes directly.
        const whyZh: Record<RedeemRefusal, string> = {
          unknown: '无效',
          expired: '已过期',
          consumed: '已使用过',
          mismatch: '与本次参数不一致',
        };
        return {
          status: 'refused',
          envelope: dtFail(
            'recoverable',
            {
              zh: `确认令牌${whyZh[err.reason]}，未删除任何数据。本次删除只涉及 ${count} 行（不超过 ${CONFIRM_THRESHOLD} 行），不需要确认：去掉 confirm_token 重新调用即可直接删除。`,
              en: `confirm_token refused (${err.reason}); nothing was deleted. This delete affects ${count} rows (at most ${CONFIRM_THRESHOLD}) and needs no confirmation: call again without confirm_token to delete directly`,
            },
            lang,
            { need_param: 'confirm_token', token_refused: err.reason, confirmation_needed: false, affected: count },
          ),
        };
      }
      if (err.reason === 'expired' || err.reason === 'mismatch') {
        return { status: 'refused', envelope: await confirmationEnvelope(env, req, count, err.reason) };
      }
      const zh = err.reason === 'consumed' ? '确认令牌已使用过（只能用一次），未删除任何数据。' : '确认令牌无效，未删除任何数据。';
      const en =
        err.reason === 'consumed'
          ? 'confirm_token was already used (single use); nothing was deleted'
          : 'confirm_token is unknown; nothing was deleted';
      return {
        status: 'refused',
        envelope: dtFail(
          'recoverable',
          {
            zh: `${zh}如需删除，请不带 confirm_token 重新调用以获取新的确认。`,
            en: `${en}; call again without confirm_token to get a new confirmation`,
          },
          lang,
          {
            need_param: 'confirm_token',
            token_refused: err.reason,
          },
        ),
      };
    }
    // Rolled back: a backup of rows that were not deleted would mislead the user.
    if (backupFile !== null) rmSync(join(env.caller.workspaceDir, backupFile), { force: true });
    if (err instanceof DeleteMismatch)
      return { status: 'refused', envelope: dtFail('recoverable', err.reason, lang, { need_param: 'sql', refused: 'unstable_delete' }) };
    return { status: 'refused', envelope: dbErrorEnvelope(err, req.action, lang) };
  }
}
