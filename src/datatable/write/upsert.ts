/**
 * `upsert(table_id, key_fields, data | records)` → `{inserted, updated, failed, errors,
 * verified_total}` (R-DT-36, R-DT-61/62, A-34).
 *
 * Matches on `key_fields` without relying on a unique constraint: per record, inside one
 * transaction, a transaction-scoped advisory lock on (table, key values) serialises
 * concurrent upserts of the same key on a server, the matching row is locked
 * (`FOR UPDATE`) and updated, or a new row inserted. Each record runs in its own SAVEPOINT
 * (R-DT-98). No constraint is ever created. Own scope: matching includes the owner
 * condition and inserts are stamped (R-DT-16/18).
 */
import type { Envelope } from '../../envelope/types.ts';
import { canonicalJson } from '../../turn/confirm-tokens.ts';
import { quoteIdent } from '../model/naming.ts';
import { ownFilter } from '../access/permissions.ts';
import { dtFail, errorFields, sqlState } from '../model/results.ts';
import { ownerSql, SqlParams, tableRef, type RowHandler } from '../read/rows.ts';
import { coerceRecord, type DbValue } from '../values/coerce.ts';
import { BATCH_MAX, verifiedTotal, type RowError } from '../bulk/write-batch.ts';
import { redirectToFile } from './write.ts';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** See the module comment. */
export const upsert: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  let keys = payload.key_fields;
  if (typeof keys === 'string')
    keys = keys
      .split(/[,，]/)
      .map((s) => s.trim())
      .filter(Boolean);
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
    return dtFail(
      'recoverable',
      {
        zh: 'upsert 必须给 key_fields（用来匹配已有记录的字段名数组）。',
        en: 'upsert needs key_fields: the field names that identify an existing row',
      },
      lang,
      {
        need_param: 'key_fields',
      },
    );
  }
  const keyFields = keys as string[];
  const unknown = keyFields.filter((k) => !table.fields.some((f) => f.title === k));
  if (unknown.length) {
    return dtFail(
      'recoverable',
      { zh: `key_fields 中的字段不存在：${unknown.join('、')}`, en: `key_fields names unknown fields: ${unknown.join(', ')}` },
      lang,
      { need_param: 'key_fields' },
    );
  }
  const records: unknown[] | undefined = Array.isArray(payload.records)
    ? payload.records
    : isRecord(payload.data)
      ? [payload.data]
      : Array.isArray(payload.data)
        ? payload.data
        : undefined;
  if (!records || records.length === 0) {
    return dtFail(
      'recoverable',
      { zh: 'upsert 需要 data（一个对象）或 records（对象数组）。', en: 'upsert needs data (one object) or records (an array of objects)' },
      lang,
      { need_param: 'records' },
    );
  }
  if (records.length > BATCH_MAX) return redirectToFile(records.length, 'records', lang);
  const scope = ownFilter(access, env.caller, table);
  if (!scope.ok) return scope.envelope;
  const owner = scope.owner;

  let inserted = 0;
  let updated = 0;
  const errors: RowError[] = [];
  const failedRows = new Set<number>();
  const fail = (row: number, e: Omit<RowError, 'row'>) => {
    errors.push({ row, ...e });
    failedRows.add(row);
  };

  // Validate in the application first (R-DT-66..75).
  const prepared: Array<{ row: number; values: Record<string, DbValue>; insertOk: boolean; insertErrors: RowError[] }> = [];
  for (let i = 0; i < records.length; i++) {
    const row = i + 1;
    let rec = records[i];
    if (owner && isRecord(rec)) {
      rec = { ...rec };
      for (const f of owner.fields) (rec as Record<string, unknown>)[f] = owner.empNo;
    }
    const c = coerceRecord(table, rec, { mode: 'update', lang });
    if (c.errors.length) {
      for (const e of c.errors)
        fail(row, { error: e.error, ...(e.field ? { field: e.field } : {}), ...(e.value !== undefined ? { value: e.value } : {}) });
      continue;
    }
    const missing = keyFields.filter((k) => c.values[k] === undefined || c.values[k] === null);
    if (missing.length) {
      fail(row, {
        field: missing[0]!,
        error: lang === 'en' ? `key field "${missing.join('", "')}" has no value` : `匹配字段「${missing.join('、')}」没有值`,
      });
      continue;
    }
    const ins = coerceRecord(table, rec, { mode: 'insert', lang });
    prepared.push({
      row,
      values: c.values,
      insertOk: ins.errors.length === 0,
      insertErrors: ins.errors.map((e) => ({ row, error: e.error, ...(e.field ? { field: e.field } : {}) })),
    });
  }

  if (prepared.length > 0) {
    try {
      await env.tx(async (tx) => {
        for (const r of prepared) {
          try {
            const outcome = await tx.savepoint(async (sp) => {
              const lockKey = `${table.id}:${canonicalJson(keyFields.map((k) => r.values[k]))}`;
              await sp.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey]);
              const p = new SqlParams();
              const match = keyFields.map((k) => `${quoteIdent(k)} = ${p.add(r.values[k])}`).join(' AND ');
              const found = await sp.query<{ id: string }>(
                `SELECT "id"::text AS id FROM ${tableRef(table)} WHERE ${match} AND ${ownerSql(owner, p)} FOR UPDATE`,
                p.values,
              );
              if (found.rows.length > 1) return { kind: 'ambiguous' as const, n: found.rows.length };
              const cols = Object.keys(r.values);
              if (found.rows.length === 1) {
                const u = new SqlParams();
                const sets = cols.map((c) => `${quoteIdent(c)} = ${u.add(r.values[c])}`);
                await sp.query(`UPDATE ${tableRef(table)} SET ${sets.join(', ')} WHERE "id" = ${u.add(found.rows[0]!.id)}`, u.values);
                return { kind: 'updated' as const };
              }
              if (!r.insertOk) return { kind: 'invalid' as const };
              const ip = new SqlParams();
              await sp.query(
                `INSERT INTO ${tableRef(table)} (${cols.map(quoteIdent).join(', ')}) VALUES (${cols.map((c) => ip.add(r.values[c])).join(', ')})`,
                ip.values,
              );
              return { kind: 'inserted' as const };
            });
            if (outcome.kind === 'updated') updated++;
            else if (outcome.kind === 'inserted') inserted++;
            else if (outcome.kind === 'invalid') for (const e of r.insertErrors) fail(r.row, e);
            else
              fail(r.row, {
                error:
                  lang === 'en'
                    ? `${outcome.n} rows match key_fields; refine the key`
                    : `有 ${outcome.n} 行匹配 key_fields，无法确定更新哪一行，请换用能唯一确定记录的字段`,
              });
          } catch (err) {
            // Names from the metadata captured before the statement (R-DT-101), not from the failed transaction.
            const code = sqlState(err);
            const [field] = errorFields(err, { table: table.title, fields: table.fields, written: Object.keys(r.values) });
            fail(r.row, {
              error: err instanceof Error ? err.message : String(err),
              ...(field ? { field } : {}),
              ...(code ? { sqlstate: code } : {}),
            });
          }
        }
      });
    } catch (err) {
      // The transaction itself failed (commit, connection): nothing of it is kept.
      inserted = 0;
      updated = 0;
      const code = sqlState(err);
      for (const r of prepared)
        fail(r.row, { error: err instanceof Error ? err.message : String(err), ...(code ? { sqlstate: code } : {}) });
    }
  }

  errors.sort((a, b) => a.row - b.row);
  const failed = failedRows.size;
  const total = await verifiedTotal(env, table, owner);
  const zh = `共 ${records.length} 条：新增 ${inserted}，更新 ${updated}，失败 ${failed}${failed ? '（见 errors）' : ''}；表中现有 ${total ?? '未知'} 条。`;
  const en = `${records.length} records: ${inserted} inserted, ${updated} updated, ${failed} failed${failed ? ' (see errors)' : ''}; the table now holds ${total ?? 'unknown'} rows.`;
  const body: Envelope = { inserted, updated, failed, errors, verified_total: total };
  if (inserted + updated === 0 && failed > 0)
    return { success: false, error: `nothing written: ${en}`, error_type: 'recoverable', user_message: lang === 'en' ? en : zh, ...body };
  return { success: true, ...body, partial: failed > 0, user_message: lang === 'en' ? en : zh };
};
