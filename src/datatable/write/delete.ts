/**
 * Delete actions of the datatable (R-DT-39..41, R-DT-87..93, D-19):
 * `delete` (one row, neither confirmed nor backed up), `delete_batch` and `delete_by` (through
 * delete-protection.ts: confirmation above 10 rows in chat mode, a backup file before every
 * delete). Own scope appends the owner condition everywhere (R-DT-16/17).
 */
import type { Envelope } from '../../envelope/types.ts';
import { protectDelete } from './delete-protection.ts';
import { ownFilter } from '../access/permissions.ts';
import { dbErrorEnvelope, dtFail } from '../model/results.ts';
import { joinNotes, ownerSql, rowOut, scopedWhere, selectList, SqlParams, tableRef, type RowHandler } from '../read/rows.ts';
import { parseRowId } from './write.ts';

function withNote(env: Envelope, note: string | undefined): Envelope {
  return note ? { ...env, action_note: note } : env;
}

/**
 * `delete(table_id, row_id)` → `true` (R-DT-39), as `{success: true, result: true}`. A row
 * that does not exist (or belongs to someone else under own scope) is a recoverable "not
 * found". No confirmation, no backup (R-DT-90, D-19).
 */
export const deleteRow: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const id = parseRowId(payload, lang);
  if ('envelope' in id) return id.envelope;
  const scope = ownFilter(access, env.caller, table);
  if (!scope.ok) return scope.envelope;
  const p = new SqlParams();
  const sql = `DELETE FROM ${tableRef(table)} WHERE "id" = ${p.add(id.id)} AND ${ownerSql(scope.owner, p)}`;
  try {
    const res = await env.tx((tx) => tx.query(sql, p.values));
    if (res.rowCount === 0)
      return dtFail('recoverable', { zh: `找不到 id 为 ${id.id} 的记录。`, en: `no row with id ${id.id}` }, lang, {
        need_param: 'row_id',
        not_found: true,
      });
    return { success: true, result: true };
  } catch (err) {
    return dbErrorEnvelope(err, 'delete', lang);
  }
};

/** Parse `row_ids`: a non-empty array of positive integers (R-DT-93); duplicates removed. */
function parseRowIds(raw: unknown): string[] | null {
  let v = raw;
  if (typeof v === 'string') v = v.split(/[,，\s]+/).filter(Boolean);
  if (!Array.isArray(v) || v.length === 0) return null;
  const out: string[] = [];
  for (const x of v) {
    const s =
      typeof x === 'number' && Number.isSafeInteger(x) && x > 0
        ? String(x)
        : typeof x === 'string' && /^[1-9]\d{0,18}$/.test(x.trim())
          ? x.trim()
          : null;
    if (s === null) return null;
    if (!out.includes(s)) out.push(s);
  }
  return out;
}

/**
 * `delete_batch(table_id, row_ids)` → `{deleted, requested, backup_file}` (R-DT-40). Counting
 * basis: the number of row_ids (R-DT-89); > 10 in chat mode ⇒ confirm_token. The rows found
 * (own scope applied) are backed up and deleted in one transaction.
 */
export const deleteBatch: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const ids = parseRowIds(payload.row_ids);
  if (!ids) {
    return dtFail(
      'recoverable',
      {
        zh: 'row_ids 不能为空，且必须是正整数 id 的数组（避免误删全表）。',
        en: 'row_ids must be a non-empty array of positive integer ids (never the whole table)',
      },
      lang,
      {
        need_param: 'row_ids',
      },
    );
  }
  const scope = ownFilter(access, env.caller, table);
  if (!scope.ok) return scope.envelope;
  const select = (forUpdate: boolean) => {
    const p = new SqlParams();
    return {
      sql: `SELECT ${selectList(table)} FROM ${tableRef(table)} WHERE "id" = ANY(${p.add(ids)}::bigint[]) AND ${ownerSql(scope.owner, p)} ORDER BY "id"${forUpdate ? ' FOR UPDATE' : ''}`,
      values: p.values,
    };
  };
  const out = await protectDelete(env, {
    action: 'delete_batch',
    table: { id: table.id, title: table.title },
    params: { row_ids: [...ids].sort((a, b) => Number(BigInt(a) - BigInt(b))) },
    confirmToken: payload.confirm_token,
    countRows: async () => ids.length,
    fetchRows: async (tx) => {
      const s = select(true);
      return (await tx.query(s.sql, s.values)).rows.map((r) => rowOut(table, r));
    },
    runDelete: async (tx, rows) => {
      if (rows.length === 0) return 0;
      const res = await tx.query(`DELETE FROM ${tableRef(table)} WHERE "id" = ANY($1::bigint[])`, [rows.map((r) => String(r.id))]);
      return res.rowCount;
    },
  });
  if (out.status !== 'deleted') return out.envelope;
  const body: Envelope = { success: true, deleted: out.deleted, requested: ids.length, backup_file: out.backupFile };
  if (out.backupError) body.backup_error = out.backupError;
  return body;
};

/**
 * `delete_by(table_id, filters)` → `{deleted, backup_file}` (R-DT-41). Filters must be
 * non-empty and parsable (R-DT-93, D-11); counting basis: the matched rows (R-DT-89); the own
 * scope's owner condition is ANDed (R-DT-16). Backed-up rows = deleted rows.
 */
export const deleteBy: RowHandler = async (env, payload, { table, access }) => {
  const probe = scopedWhere(table, access, env.caller, payload.filters, new SqlParams(), { requireFilters: true });
  if ('envelope' in probe) return probe.envelope;
  const where = (alias?: string) => {
    const p = new SqlParams();
    const w = scopedWhere(table, access, env.caller, payload.filters, p, { requireFilters: true, ...(alias ? { alias } : {}) });
    if ('envelope' in w) throw new Error('filters changed between parses');
    return { sql: w.sql, values: p.values };
  };
  const out = await protectDelete(env, {
    action: 'delete_by',
    table: { id: table.id, title: table.title },
    params: { filters: probe.conditions },
    confirmToken: payload.confirm_token,
    countRows: async () => {
      const w = where();
      const { rows } = await env.q.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${tableRef(table)} WHERE ${w.sql}`, w.values);
      return Number(rows[0]?.n ?? 0);
    },
    fetchRows: async (tx) => {
      const w = where();
      return (
        await tx.query(`SELECT ${selectList(table)} FROM ${tableRef(table)} WHERE ${w.sql} ORDER BY "id" FOR UPDATE`, w.values)
      ).rows.map((r) => rowOut(table, r));
    },
    runDelete: async (tx, rows) => {
      if (rows.length === 0) return 0;
      const res = await tx.query(`DELETE FROM ${tableRef(table)} WHERE "id" = ANY($1::bigint[])`, [rows.map((r) => String(r.id))]);
      return res.rowCount;
    },
  });
  const note = joinNotes(probe.notes);
  if (out.status !== 'deleted') return withNote(out.envelope, note);
  const body: Envelope = { success: true, deleted: out.deleted, backup_file: out.backupFile };
  if (out.backupError) body.backup_error = out.backupError;
  return withNote(body, note);
};
