/**
 * Structural datatable actions on tables (R-DT-29/30, R-DT-44, R-DT-48,
 * R-DT-25, D-01, A-30, A-31): list_tables, list_columns, create_table, delete_table — real DDL
 * in the organisation schema plus the metadata. Field actions live in field-actions.ts;
 * {@link STRUCTURE_HANDLERS} / {@link STRUCTURE_TABLE_HANDLERS} gather all of them for the
 * dispatcher.
 *
 * Return shapes (inside `{success:true, …}`): list_tables / list_columns → `result: [...]`
 * (the spec's arrays, as envelope normalisation would wrap them); create_table → `{id, title}`
 * (+ `already_exists: true`); delete_table → `result: true` (+ `backup_file`).
 */
import type { ActionHandler, DtEnv, FieldMeta } from '../model/types.ts';
import type { Envelope } from '../../envelope/types.ts';
import { fieldView, normalizeFieldDef } from '../catalog/fields.ts';
import {
  deleteTableMeta,
  findTableByTitle,
  listTables,
  registerTable,
  schemaCollisions,
  tableSummary,
  TableExistsError,
} from '../catalog/metadata.ts';
import { describeIdentifierProblem, identifierProblem, orgSchemaName, OrgSchemaError, qualified, quoteIdent } from '../model/naming.ts';
import { checkAction } from '../access/permissions.ts';
import { dbErrorEnvelope, dtFail, dtOk, emptyOrgEnvelope, needParam, sqlState } from '../model/results.ts';
import { backupBeforeDrop, createTableSql, lockSchema, structuralGate, type TableHandler } from './ddl.ts';
import { addField, deleteField, updateField } from './field-actions.ts';

export { structuralGate, type TableCall, type TableHandler } from './ddl.ts';

/**
 * list_tables (R-DT-29): every table of the caller's organisation as
 * `result: [{id, title, schema, qualified}]`, plus `count`.
 */
export const listTablesAction: ActionHandler = async (env) => {
  try {
    orgSchemaName(env.caller.orgId);
  } catch (err) {
    if (err instanceof OrgSchemaError) return emptyOrgEnvelope(env.caller.lang);
    throw err;
  }
  const tables = (await listTables(env.q, env.caller.orgId)).map(tableSummary);
  return dtOk({ result: tables, count: tables.length });
};

/**
 * list_columns (R-DT-30, A-33): the business fields from the metadata (never
 * information_schema, R-DT-09) as `result: [{title, uidt, required, unique, options,
 * precision, scale}]`; uidt is the Chinese logical type name.
 */
export const listColumnsAction: TableHandler = async (_env, _payload, { table }) => {
  return dtOk({ result: table.fields.map(fieldView), table_id: table.id, title: table.title });
};

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * create_table(table_name, fields) (R-DT-44, R-DT-07/08/10/11, R-DT-66/67): validates the
 * title and every field definition (all problems reported at once), then — in one
 * transaction under the schema lock — `CREATE SCHEMA IF NOT EXISTS`, `CREATE TABLE` with
 * `id bigserial PRIMARY KEY`, `created_at`, the business columns (UNIQUE where asked; no
 * foreign keys) and the metadata. An existing title returns that table with
 * `already_exists: true` (nothing changes). Needs team_role owner/admin (D-01). The title may
 * also come as `title`, `table` or `table_title`. Refuses an org id whose schema name another
 * org already uses (A-31).
 */
export const createTableAction: ActionHandler = async (env, payload) => {
  const lang = env.caller.lang;
  const gate = structuralGate(env);
  if (gate) return gate;
  let schema: string;
  try {
    schema = orgSchemaName(env.caller.orgId);
  } catch (err) {
    if (err instanceof OrgSchemaError) return emptyOrgEnvelope(lang);
    throw err;
  }
  const title = str(payload.table_name) ?? str(payload.title) ?? str(payload.table) ?? str(payload.table_title);
  if (!title)
    return needParam('table_name', { zh: '请给出表名 table_name（中文、字母、数字、下划线）', en: 'table_name is required' }, lang);
  const problem = identifierProblem(title);
  if (problem)
    return needParam(
      'table_name',
      { zh: describeIdentifierProblem(title, problem, 'zh-CN'), en: describeIdentifierProblem(title, problem, 'en') },
      lang,
    );
  const existing = await findTableByTitle(env.q, env.caller.orgId, title);
  if (existing) return dtOk({ id: existing.id, title: existing.title, already_exists: true });
  const rawFields = payload.fields;
  if (!Array.isArray(rawFields)) {
    return needParam(
      'fields',
      {
        zh: 'fields 必须是字段定义数组，例如 [{"title":"客户名","uidt":"文本"}]',
        en: 'fields must be an array of field definitions, e.g. [{"title":"name","uidt":"文本"}]',
      },
      lang,
    );
  }
  const errors: string[] = [];
  const fields: FieldMeta[] = [];
  for (const [i, raw] of rawFields.entries()) {
    const r = normalizeFieldDef(raw, i, lang);
    if (!r.ok) errors.push(...r.errors.map((e) => `fields[${i}]: ${e}`));
    else if (fields.some((f) => f.title === r.field.title))
      errors.push(`fields[${i}]: ${lang === 'en' ? `duplicate field "${r.field.title}"` : `字段「${r.field.title}」重复`}`);
    else fields.push(r.field);
  }
  if (errors.length > 0) {
    return needParam('fields', { zh: `字段定义有误：${errors.join('；')}`, en: `invalid field definitions: ${errors.join('; ')}` }, lang, {
      errors,
    });
  }
  const collision = await schemaCollisionEnvelope(env, schema);
  if (collision) return collision;
  try {
    const created = await env.tx(async (tx) => {
      await lockSchema(tx, schema);
      const again = await findTableByTitle(tx, env.caller.orgId, title);
      if (again) return { table: again, already: true };
      await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await tx.query(createTableSql(schema, title, fields));
      const table = await registerTable(tx, env.caller.orgId, title, fields);
      return { table, already: false };
    });
    return created.already
      ? dtOk({ id: created.table.id, title: created.table.title, already_exists: true })
      : dtOk({ id: created.table.id, title: created.table.title });
  } catch (err) {
    if (err instanceof TableExistsError) return dtOk({ id: err.existing.id, title: err.existing.title, already_exists: true });
    if (sqlState(err) === '42P07') {
      return dtFail(
        'recoverable',
        {
          zh: `schema ${schema} 中已有名为「${title}」的表，但它不在数据表清单中（可能由外部创建），请换一个表名或联系管理员`,
          en: `a relation named "${title}" already exists in ${schema} but is not a registered table; choose another name`,
        },
        lang,
        { need_param: 'table_name', sqlstate: '42P07' },
      );
    }
    return dbErrorEnvelope(err, 'create_table', lang);
  }
};

/**
 * delete_table(table_id) (R-DT-48, A-30): needs team_role owner/admin (D-01) and the action
 * allowed by the grants; backs the rows up to the workspace root first (a failed backup does
 * not block), then `DROP TABLE` (no CASCADE: a view created on it makes the drop fail with a
 * recoverable error) and removes the metadata and grants. Not confirmed (spec §7.7 covers row
 * deletes only). Returns `result: true` and `backup_file` (null when no backup was written).
 */
export const deleteTableAction: TableHandler = async (env, _payload, { table, access }) => {
  const lang = env.caller.lang;
  const denied = structuralGate(env) ?? checkAction(access, 'delete_table', lang, table.title);
  if (denied) return denied;
  try {
    const backupFile = await env.tx(async (tx) => {
      await lockSchema(tx, table.schema);
      const backup = await backupBeforeDrop(env, tx, table);
      await tx.query(`DROP TABLE IF EXISTS ${qualified(table.schema, table.title)}`);
      await deleteTableMeta(tx, table.id);
      return backup;
    });
    return dtOk({ result: true, deleted: table.title, backup_file: backupFile });
  } catch (err) {
    if (sqlState(err) === '2BP01') {
      return dtFail(
        'recoverable',
        {
          zh: `表「${table.title}」还被视图等对象引用，请先删除这些视图`,
          en: `other objects (views) depend on "${table.title}"; drop them first`,
        },
        lang,
        { sqlstate: '2BP01' },
      );
    }
    return dbErrorEnvelope(err, 'delete_table', lang);
  }
};

/** Structural actions that need no existing table. */
export const STRUCTURE_HANDLERS = {
  list_tables: listTablesAction,
  create_table: createTableAction,
} as const satisfies Record<string, ActionHandler>;

/** Structural actions on a table the dispatcher resolved (R-DT-03/04) and checked. */
export const STRUCTURE_TABLE_HANDLERS = {
  list_columns: listColumnsAction,
  add_field: addField,
  update_field: updateField,
  delete_field: deleteField,
  delete_table: deleteTableAction,
} as const satisfies Record<string, TableHandler>;

/**
 * A-31: two org ids that normalise to one schema would share data. When another org already
 * owns tables in `schema`, every datatable action of this org is refused (config,
 * non_retriable); null when the schema is this org's alone.
 */
export async function schemaCollisionEnvelope(env: DtEnv, schema: string): Promise<Envelope | null> {
  const others = await schemaCollisions(env.q, schema, env.caller.orgId);
  if (others.length === 0) return null;
  const lang = env.caller.lang;
  return dtFail(
    'config',
    {
      zh: `组织 ${env.caller.orgId} 与另一个组织归一化后是同一个数据 schema（${schema}），已拒绝。请联系管理员调整 org_id`,
      en: `org_id "${env.caller.orgId}" normalises to schema ${schema}, which another organisation already uses; refused (A-31)`,
    },
    lang,
    { non_retriable: true },
  );
}
