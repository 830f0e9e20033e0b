/**
 * Write actions of the datatable: insert, insert_batch,
 * insert_from_file, update, update_by (R-DT-33..38, R-DT-59..65, D-10); upsert lives in
 * upsert.ts. Every write applies the own scope: owner stamping on insert (R-DT-18), the owner
 * condition on updates (R-DT-16/17), no change of the owner field (R-DT-21); batch counts are
 * verifiable (`verified_total` = the scoped count after the write, R-DT-22, R-DT-103).
 */
import type { Envelope } from '../../envelope/types.ts';
import { quoteIdent } from '../model/naming.ts';
import { guardOwnerPatch, ownFilter, type OwnerScope } from '../access/permissions.ts';
import { dtFail, recordEnvelope, tableDbErrorEnvelope, type DtLang } from '../model/results.ts';
import { applyMapping, checkMappingDefaults, openImportRecords, resolveImportPath } from '../import/file.ts';
import type { RecordSource } from '../import/source.ts';
import { joinNotes, ownerSql, rowOut, scopedWhere, selectList, SqlParams, tableRef, type RowHandler } from '../read/rows.ts';
import { coerceRecord, type FieldError } from '../values/coerce.ts';
import { BATCH_MAX, hasUniqueConstraint, importRecords, verifiedTotal, type BatchCounts } from '../bulk/write-batch.ts';
import type { DtEnv, EffectiveAccess, TableMeta } from '../model/types.ts';

function withNote(env: Envelope, note: string | undefined): Envelope {
  return note ? { ...env, action_note: note } : env;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A recoverable refusal listing per-field errors of one record. */
export function fieldErrorsEnvelope(errors: FieldError[], lang: DtLang): Envelope {
  const zh = errors.map((e) => (e.field ? `「${e.field}」${e.error}` : e.error)).join('；');
  const en = errors.map((e) => (e.field ? `${e.field}: ${e.error}` : e.error)).join('; ');
  return dtFail('recoverable', { zh: `数据有误，未写入：${zh}`, en: `invalid data, nothing written: ${en}` }, lang, {
    need_param: 'data',
    errors,
  });
}

/** The > 100 redirect (R-DT-62, D-10). */
export function redirectToFile(n: number, param: string, lang: DtLang): Envelope {
  return dtFail(
    'recoverable',
    {
      zh: `一次最多 ${BATCH_MAX} 条（收到 ${n} 条）。超过 ${BATCH_MAX} 条请把全部数据一次性写入工作区 JSON 文件，再用 insert_from_file 导入，不要拆成多次批量写入。`,
      en: `at most ${BATCH_MAX} records per call (got ${n}); write all of them once to a JSON file in the workspace and use insert_from_file (do not split into several batches)`,
    },
    lang,
    { redirect: 'insert_from_file', need_param: param },
  );
}

function onConflictSkip(payload: Record<string, unknown>, lang: DtLang): { skip: boolean } | { envelope: Envelope } {
  const v = payload.on_conflict;
  if (v === undefined || v === null || v === '') return { skip: false };
  if (v === 'skip') return { skip: true };
  return {
    envelope: dtFail('recoverable', { zh: 'on_conflict 只支持 "skip"。', en: 'on_conflict supports only "skip"' }, lang, {
      need_param: 'on_conflict',
    }),
  };
}

/** The batch result envelope `{inserted, skipped, failed, errors, verified_total}` with a summary. */
async function batchEnvelope(
  env: DtEnv,
  table: TableMeta,
  owner: OwnerScope | null,
  counts: BatchCounts,
  requested: number,
): Promise<Envelope> {
  const lang = env.caller.lang;
  const { failed, errors } = counts;
  const total = await verifiedTotal(env, table, owner);
  const summaryZh = `共 ${requested} 条：写入 ${counts.inserted}，跳过 ${counts.skipped}，失败 ${failed}${failed ? '（见 errors）' : ''}；表中现有 ${total ?? '未知'} 条。`;
  const summaryEn = `${requested} records: ${counts.inserted} inserted, ${counts.skipped} skipped, ${failed} failed${failed ? ' (see errors)' : ''}; the table now holds ${total ?? 'unknown'} rows.`;
  const body: Envelope = { inserted: counts.inserted, skipped: counts.skipped, failed, errors, verified_total: total };
  if (counts.inserted === 0 && failed > 0) {
    return {
      success: false,
      error: `nothing inserted: ${summaryEn}`,
      error_type: 'recoverable',
      user_message: lang === 'en' ? summaryEn : summaryZh,
      ...body,
    };
  }
  return { success: true, ...body, partial: failed > 0, user_message: lang === 'en' ? summaryEn : summaryZh };
}

async function runBatch(
  env: DtEnv,
  table: TableMeta,
  access: EffectiveAccess,
  records: readonly unknown[] | RecordSource,
  skip: boolean,
  prepare?: (rec: unknown) => unknown,
): Promise<Envelope> {
  const lang = env.caller.lang;
  const scope = ownFilter(access, env.caller, table);
  if (!scope.ok) return scope.envelope;
  if (skip && !(await hasUniqueConstraint(env.q, table))) {
    return dtFail(
      'recoverable',
      {
        zh: `表「${table.title}」没有唯一约束，on_conflict=skip 无从判断重复。请先把某个字段设为唯一，或去掉 on_conflict。`,
        en: `table "${table.title}" has no unique constraint, so on_conflict=skip cannot detect duplicates`,
      },
      lang,
      { need_param: 'on_conflict' },
    );
  }
  const counts = await importRecords(env, table, records, scope.owner, prepare ? { skip, prepare } : { skip });
  return batchEnvelope(env, table, scope.owner, counts, records.length);
}

/**
 * `insert(table_id, data)` → the complete record after writing (R-DT-33): `{success:true,
 * id, <fields>, created_at}` (`success` written last, so a field of that name cannot flip the
 * result). `data` as an array is accepted as a batch of ≤ 100 with a note (D-10, R-DT-63);
 * more are refused with `redirect: "insert_from_file"`.
 */
export const insert: RowHandler = async (env, payload, call) => {
  const { table, access } = call;
  const lang = env.caller.lang;
  const data = payload.data;
  if (Array.isArray(data)) {
    if (data.length > BATCH_MAX) return redirectToFile(data.length, 'data', lang);
    if (data.length === 0)
      return dtFail('recoverable', { zh: 'data 不能为空。', en: 'data must not be empty' }, lang, { need_param: 'data' });
    return withNote(await runBatch(env, table, access, data, false), 'data (array) → insert_batch (D-10)');
  }
  if (!isRecord(data)) {
    return dtFail(
      'recoverable',
      {
        zh: 'data 必须是一个对象 {字段: 值}；多条请用 records + insert_batch。',
        en: 'data must be one object {field: value}; use records with insert_batch for several',
      },
      lang,
      { need_param: 'data' },
    );
  }
  const scope = ownFilter(access, env.caller, table);
  if (!scope.ok) return scope.envelope;
  const stamped: Record<string, unknown> = { ...data };
  if (scope.owner) for (const f of scope.owner.fields) stamped[f] = scope.owner.empNo;
  const c = coerceRecord(table, stamped, { mode: 'insert', lang });
  if (c.errors.length) return fieldErrorsEnvelope(c.errors, lang);
  const cols = Object.keys(c.values);
  const p = new SqlParams();
  const sql =
    cols.length === 0
      ? `INSERT INTO ${tableRef(table)} DEFAULT VALUES RETURNING ${selectList(table)}`
      : `INSERT INTO ${tableRef(table)} (${cols.map(quoteIdent).join(', ')}) VALUES (${cols.map((k) => p.add(c.values[k])).join(', ')}) RETURNING ${selectList(table)}`;
  const note = c.dropped.length ? `ignored unknown fields: ${c.dropped.join(', ')}` : undefined;
  try {
    const { rows } = await env.tx((tx) => tx.query(sql, p.values));
    return withNote(recordEnvelope(rowOut(table, rows[0]!)), note);
  } catch (err) {
    return withNote(tableDbErrorEnvelope(err, 'insert', lang, { table: table.title, fields: table.fields, written: cols }), note);
  }
};

/**
 * `insert_batch(table_id, records)` → `{inserted, skipped, failed, errors, verified_total}`
 * (R-DT-34): 1–100 objects (more ⇒ redirect insert_from_file, R-DT-62); each row isolated
 * (R-DT-98); `on_conflict: "skip"` needs a unique constraint (R-DT-60).
 */
export const insertBatch: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const records = payload.records ?? (Array.isArray(payload.data) ? payload.data : undefined);
  const note = payload.records === undefined && records !== undefined ? 'data (array) → records' : undefined;
  if (!Array.isArray(records) || records.length === 0) {
    return dtFail('recoverable', { zh: 'records 必填：对象数组 [{...}, {...}]。', en: 'records is required: an array of objects' }, lang, {
      need_param: 'records',
    });
  }
  if (records.length > BATCH_MAX) return redirectToFile(records.length, 'records', lang);
  const skip = onConflictSkip(payload, lang);
  if ('envelope' in skip) return skip.envelope;
  return withNote(await runBatch(env, table, access, records, skip.skip), note);
};

/**
 * `insert_from_file(table_id, file, mapping?, defaults?, on_conflict?)` → same shape as
 * insert_batch (R-DT-35). The file (JSON array, `{records: […]}` or JSON Lines) is read from
 * the workspace (or the attachment store); `mapping` renames source keys to columns,
 * `defaults` fills missing values; the file is never deleted (R-DT-64). No size limit besides
 * the file's (256 MiB).
 */
export const insertFromFile: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const where = resolveImportPath(payload.file ?? payload.path ?? payload.file_path, env.caller.workspaceDir);
  if ('error' in where) return dtFail('recoverable', where.error, lang, { need_param: 'file' });
  const md = checkMappingDefaults(payload.mapping, payload.defaults);
  if (md) return dtFail('recoverable', md.error, lang, { need_param: md.param });
  const skip = onConflictSkip(payload, lang);
  if ('envelope' in skip) return skip.envelope;
  const read = openImportRecords(where.path);
  if ('error' in read) return dtFail('recoverable', read.error, lang, { need_param: 'file' });
  if (read.source.length === 0)
    return dtFail('recoverable', { zh: '导入文件里没有记录。', en: 'the import file holds no records' }, lang, { need_param: 'file' });
  const mapping = payload.mapping as Record<string, string> | undefined;
  const defaults = payload.defaults as Record<string, unknown> | undefined;
  const prepare = mapping || defaults ? (r: unknown) => applyMapping(r, mapping ?? undefined, defaults ?? undefined) : undefined;
  return runBatch(env, table, access, read.source, skip.skip, prepare);
};

function rowIdOf(v: unknown): string | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v === 'string' && /^\s*[1-9]\d{0,18}\s*$/.test(v)) return v.trim();
  return null;
}

/** A positive integer row id from `payload.row_id`, or a need_param refusal. */
export function parseRowId(payload: Record<string, unknown>, lang: DtLang): { id: string } | { envelope: Envelope } {
  const id = rowIdOf(payload.row_id);
  if (id === null)
    return {
      envelope: dtFail(
        'recoverable',
        { zh: 'row_id 必填，且是正整数（记录的 id）。', en: 'row_id is required: the positive integer id of the row' },
        lang,
        { need_param: 'row_id' },
      ),
    };
  return { id };
}

/** Validate a patch for update / update_by: coercion in update mode (R-DT-75), owner guard (R-DT-21). */
function preparePatch(
  env: DtEnv,
  table: TableMeta,
  access: EffectiveAccess,
  data: unknown,
): { values: Record<string, unknown>; note?: string } | { envelope: Envelope } {
  const lang = env.caller.lang;
  if (!isRecord(data))
    return {
      envelope: dtFail(
        'recoverable',
        { zh: 'data 必须是一个对象 {字段: 新值}。', en: 'data must be one object {field: new value}' },
        lang,
        { need_param: 'data' },
      ),
    };
  const guard = guardOwnerPatch(data, access, env.caller);
  if (guard) return { envelope: guard };
  const c = coerceRecord(table, data, { mode: 'update', lang });
  if (c.errors.length) return { envelope: fieldErrorsEnvelope(c.errors, lang) };
  if (Object.keys(c.values).length === 0) {
    return {
      envelope: dtFail(
        'recoverable',
        {
          zh: `data 里没有可更新的字段（忽略了：${c.dropped.join('、') || '无'}）。`,
          en: `data names no field of the table (ignored: ${c.dropped.join(', ') || 'none'})`,
        },
        lang,
        {
          need_param: 'data',
        },
      ),
    };
  }
  const note = c.dropped.length ? `ignored unknown fields: ${c.dropped.join(', ')}` : undefined;
  return note ? { values: c.values, note } : { values: c.values };
}

/**
 * `update(table_id, row_id, data)` → the complete record after the update (R-DT-37). Required
 * fields are not checked (R-DT-75); own scope appends the owner condition (R-DT-17), so a
 * foreign row answers "not found"; the owner field cannot change (R-DT-21).
 */
export const update: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const id = parseRowId(payload, lang);
  if ('envelope' in id) return id.envelope;
  const scope = ownFilter(access, env.caller, table);
  if (!scope.ok) return scope.envelope;
  const patch = preparePatch(env, table, access, payload.data);
  if ('envelope' in patch) return patch.envelope;
  const p = new SqlParams();
  const sets = Object.entries(patch.values).map(([k, v]) => `${quoteIdent(k)} = ${p.add(v)}`);
  const sql = `UPDATE ${tableRef(table)} SET ${sets.join(', ')} WHERE "id" = ${p.add(id.id)} AND ${ownerSql(scope.owner, p)} RETURNING ${selectList(table)}`;
  try {
    const { rows } = await env.tx((tx) => tx.query(sql, p.values));
    if (rows.length === 0) {
      return withNote(
        dtFail('recoverable', { zh: `找不到 id 为 ${id.id} 的记录。`, en: `no row with id ${id.id}` }, lang, {
          need_param: 'row_id',
          not_found: true,
        }),
        patch.note,
      );
    }
    return withNote(recordEnvelope(rowOut(table, rows[0]!)), patch.note);
  } catch (err) {
    return withNote(
      tableDbErrorEnvelope(err, 'update', lang, { table: table.title, fields: table.fields, written: Object.keys(patch.values) }),
      patch.note,
    );
  }
};

/**
 * `update_by(table_id, filters, data)` → `{updated}` (R-DT-38). Filters must be non-empty and
 * parsable (D-11); own scope ANDs the owner condition (R-DT-16); the owner field cannot change.
 */
export const updateBy: RowHandler = async (env, payload, { table, access }) => {
  const lang = env.caller.lang;
  const patch = preparePatch(env, table, access, payload.data);
  if ('envelope' in patch) return patch.envelope;
  const p = new SqlParams();
  const sets = Object.entries(patch.values).map(([k, v]) => `${quoteIdent(k)} = ${p.add(v)}`);
  const where = scopedWhere(table, access, env.caller, payload.filters, p, { requireFilters: true });
  if ('envelope' in where) return where.envelope;
  const note = joinNotes([...where.notes, patch.note]);
  try {
    const res = await env.tx((tx) => tx.query(`UPDATE ${tableRef(table)} SET ${sets.join(', ')} WHERE ${where.sql}`, p.values));
    return withNote({ success: true, updated: res.rowCount }, note);
  } catch (err) {
    return withNote(
      tableDbErrorEnvelope(err, 'update_by', lang, { table: table.title, fields: table.fields, written: Object.keys(patch.values) }),
      note,
    );
  }
};
