/**
 * The datatable metadata store (R-DT-03/04, R-DT-09): logical tables and
 * their business fields in `skillgate.dt_tables` / `skillgate.dt_fields`, and
 * {@link resolveTable}, which turns a payload's table_id or title into a {@link TableMeta}.
 * Only metadata here; the DDL on the organisation schema is structure/'s job.
 */
import type { Queryable, Tx } from '../../store/db.ts';
import type { Envelope } from '../../envelope/types.ts';
import type { DtEnv, FieldDef, FieldMeta, LogicalType, TableMeta } from '../model/types.ts';
import { fieldMetaFromDef } from './fields.ts';
import { isUuid, orgSchemaName, OrgSchemaError, qualified } from '../model/naming.ts';
import { emptyOrgEnvelope, needParam, dtFail, type DtLang } from '../model/results.ts';

interface TableRow {
  id: string;
  org_id: string;
  schema_name: string;
  title: string;
}
interface FieldRow {
  table_id: string;
  title: string;
  uidt: string;
  required: boolean;
  unique: boolean;
  options: unknown;
  precision: number | null;
  scale: number | null;
  position: number;
}

/** Thrown by {@link registerTable} when the organisation already has a table of that title. */
export class TableExistsError extends Error {
  constructor(readonly existing: TableMeta) {
    super(`table "${existing.title}" already exists (id ${existing.id})`);
    this.name = 'TableExistsError';
  }
}

function toField(r: FieldRow): FieldMeta {
  const options = Array.isArray(r.options) ? r.options.filter((o): o is string => typeof o === 'string') : [];
  return {
    title: r.title,
    uidt: r.uidt as LogicalType,
    required: r.required,
    unique: r.unique,
    options,
    precision: r.precision,
    scale: r.scale,
    position: r.position,
  };
}

async function loadFields(q: Queryable, tableIds: string[]): Promise<Map<string, FieldMeta[]>> {
  const out = new Map<string, FieldMeta[]>(tableIds.map((id) => [id, []]));
  if (tableIds.length === 0) return out;
  const { rows } = await q.query<FieldRow>(
    `SELECT table_id::text AS table_id, title, uidt, required, "unique", options, precision, scale, position
       FROM skillgate.dt_fields WHERE table_id = ANY($1::uuid[]) ORDER BY position, title`,
    [tableIds],
  );
  for (const r of rows) out.get(r.table_id)?.push(toField(r));
  return out;
}

async function withFields(q: Queryable, rows: TableRow[]): Promise<TableMeta[]> {
  const fields = await loadFields(
    q,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ id: r.id, orgId: r.org_id, schema: r.schema_name, title: r.title, fields: fields.get(r.id) ?? [] }));
}

const TABLE_COLS = 'id::text AS id, org_id, schema_name, title';

/**
 * The table `id` of organisation `orgId` with its fields (ordered by position), or null when
 * there is none — also for an id that is not a UUID (no query is sent, so an open transaction
 * never aborts on 22P02; R-DT-99).
 */
export async function getTable(q: Queryable, orgId: string, id: string): Promise<TableMeta | null> {
  if (!isUuid(id)) return null;
  const { rows } = await q.query<TableRow>(`SELECT ${TABLE_COLS} FROM skillgate.dt_tables WHERE org_id = $1 AND id = $2::uuid`, [
    orgId,
    id,
  ]);
  return rows.length === 0 ? null : ((await withFields(q, rows))[0] ?? null);
}

/** The table of organisation `orgId` whose title equals `title` exactly (R-DT-04), or null. */
export async function findTableByTitle(q: Queryable, orgId: string, title: string): Promise<TableMeta | null> {
  const { rows } = await q.query<TableRow>(`SELECT ${TABLE_COLS} FROM skillgate.dt_tables WHERE org_id = $1 AND title = $2`, [
    orgId,
    title,
  ]);
  return rows.length === 0 ? null : ((await withFields(q, rows))[0] ?? null);
}

/** Every table of organisation `orgId`, ordered by creation time then title, with fields. */
export async function listTables(q: Queryable, orgId: string): Promise<TableMeta[]> {
  const { rows } = await q.query<TableRow>(`SELECT ${TABLE_COLS} FROM skillgate.dt_tables WHERE org_id = $1 ORDER BY created_at, title`, [
    orgId,
  ]);
  return withFields(q, rows);
}

/**
 * The `list_tables` item of a table (R-DT-29): `{id, title, schema, qualified}`, where
 * `qualified` is the quoted `"org_data_x"."客户"` usable in SQL text.
 */
export function tableSummary(t: Pick<TableMeta, 'id' | 'title' | 'schema'>): {
  id: string;
  title: string;
  schema: string;
  qualified: string;
} {
  return { id: t.id, title: t.title, schema: t.schema, qualified: qualified(t.schema, t.title) };
}

/**
 * Other org ids already using `schema` (A-31: "a-b" and "ab" both normalise to org_data_ab).
 * @returns the distinct org ids ≠ `orgId` with tables in that schema.
 */
export async function schemaCollisions(q: Queryable, schema: string, orgId: string): Promise<string[]> {
  const { rows } = await q.query<{ org_id: string }>(
    'SELECT DISTINCT org_id FROM skillgate.dt_tables WHERE schema_name = $1 AND org_id <> $2 ORDER BY org_id',
    [schema, orgId],
  );
  return rows.map((r) => r.org_id);
}

/**
 * Record a table and its fields in the metadata (no DDL): used by create_table after its
 * CREATE TABLE, and by the SQL channel for tables created by `sql_execute`.
 * Field definitions are normalised like create_table's (aliases, default precision) and
 * numbered in the given order.
 * @throws TableExistsError when the organisation already has that title (checked first, so
 *   the transaction stays usable); OrgSchemaError for an unusable org id; Error for an invalid
 *   field definition.
 */
export async function registerTable(tx: Tx, orgId: string, title: string, fields: ReadonlyArray<FieldDef | FieldMeta>): Promise<TableMeta> {
  const schema = orgSchemaName(orgId);
  const existing = await findTableByTitle(tx, orgId, title);
  if (existing) throw new TableExistsError(existing);
  const metas = fields.map((f, i) => fieldMetaFromDef(f, i));
  const { rows } = await tx.query<{ id: string }>(
    'INSERT INTO skillgate.dt_tables (org_id, schema_name, title) VALUES ($1, $2, $3) RETURNING id::text AS id',
    [orgId, schema, title],
  );
  const id = rows[0]!.id;
  for (const f of metas) await insertFieldMeta(tx, id, f);
  return { id, orgId, schema, title, fields: metas };
}

/** Add one field's metadata to table `tableId` (its DDL is the caller's). */
export async function insertFieldMeta(tx: Queryable, tableId: string, f: FieldMeta): Promise<void> {
  await tx.query(
    `INSERT INTO skillgate.dt_fields (table_id, title, uidt, required, "unique", options, precision, scale, position)
     VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)`,
    [tableId, f.title, f.uidt, f.required, f.unique, JSON.stringify(f.options), f.precision, f.scale, f.position],
  );
}

/**
 * Replace the metadata of field `title` of table `tableId` with `next` (which may carry a new
 * title: a rename).
 * @returns false when no such field existed.
 */
export async function updateFieldMeta(tx: Queryable, tableId: string, title: string, next: FieldMeta): Promise<boolean> {
  const r = await tx.query(
    `UPDATE skillgate.dt_fields SET title = $3, uidt = $4, required = $5, "unique" = $6, options = $7::jsonb,
            precision = $8, scale = $9, position = $10
      WHERE table_id = $1::uuid AND title = $2`,
    [
      tableId,
      title,
      next.title,
      next.uidt,
      next.required,
      next.unique,
      JSON.stringify(next.options),
      next.precision,
      next.scale,
      next.position,
    ],
  );
  return r.rowCount > 0;
}

/** Remove the metadata of field `title` (its DDL is the caller's). @returns false when absent. */
export async function deleteFieldMeta(tx: Queryable, tableId: string, title: string): Promise<boolean> {
  const r = await tx.query('DELETE FROM skillgate.dt_fields WHERE table_id = $1::uuid AND title = $2', [tableId, title]);
  return r.rowCount > 0;
}

/** Remove a table's metadata (fields and grants cascade). @returns false when absent. */
export async function deleteTableMeta(tx: Queryable, tableId: string): Promise<boolean> {
  const r = await tx.query('DELETE FROM skillgate.dt_tables WHERE id = $1::uuid', [tableId]);
  return r.rowCount > 0;
}

/** What {@link resolveTable} found: the table (with a note when a title was given as table_id). */
export type ResolveTableResult = { ok: true; table: TableMeta; note?: string } | { ok: false; envelope: Envelope };

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * The table a call names (R-DT-03, R-DT-04):
 * 1. `table_id` (UUID) of the caller's org;
 * 2. else `table_name`, `table` or `table_title` matched exactly against titles (no extra turn);
 *    a non-UUID `table_id` is also tried as a title (and `note` says so);
 * 3. else a recoverable envelope with `need_param: "table_id"` and `tables` = the list of
 *    `{id, title, schema, qualified}` to choose from (also when the id/title is unknown).
 * An empty org id yields the config envelope of R-DT-12 (no schema is derived).
 * Reads through `env.q`: call it outside `env.tx` (embedded PGlite is one session).
 */
export async function resolveTable(env: DtEnv, payload: Record<string, unknown>): Promise<ResolveTableResult> {
  const lang: DtLang = env.caller.lang;
  const orgId = env.caller.orgId;
  try {
    orgSchemaName(orgId);
  } catch (err) {
    if (err instanceof OrgSchemaError) return { ok: false, envelope: emptyOrgEnvelope(lang) };
    throw err;
  }
  const rawId = payload.table_id;
  const id = typeof rawId === 'number' ? String(rawId) : str(rawId);
  if (id && isUuid(id)) {
    const t = await getTable(env.q, orgId, id);
    if (t) return { ok: true, table: t };
  }
  const titleArg = str(payload.table_name) ?? str(payload.table) ?? str(payload.table_title);
  if (titleArg) {
    const t = await findTableByTitle(env.q, orgId, titleArg);
    if (t) return { ok: true, table: t };
  }
  if (id && !isUuid(id) && !titleArg) {
    const t = await findTableByTitle(env.q, orgId, id);
    if (t) return { ok: true, table: t, note: `table_id "${id}" is a title → ${t.id}` };
  }
  const tables = (await listTables(env.q, orgId)).map(tableSummary);
  const names = tables.map((x) => `「${x.title}」`).join('、') || (lang === 'en' ? '(none)' : '（暂无）');
  const asked = id ?? titleArg;
  if (asked) {
    return {
      ok: false,
      envelope: dtFail(
        'recoverable',
        {
          zh: `找不到数据表「${asked}」。可用的表：${names}`,
          en: `no table "${asked}" in this organisation; available tables: ${tables.map((x) => x.title).join(', ') || '(none)'}`,
        },
        lang,
        { need_param: 'table_id', tables },
      ),
    };
  }
  return {
    ok: false,
    envelope: needParam(
      'table_id',
      {
        zh: `请指定数据表（table_id，或用 table_name 给出表名）。可用的表：${names}`,
        en: `table_id is required (or table_name with the exact title); available tables: ${tables.map((x) => x.title).join(', ') || '(none)'}`,
      },
      lang,
      { tables },
    ),
  };
}
