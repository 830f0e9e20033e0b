/**
 * DDL through `sql_execute` (R-DT-82, R-DT-86, A-36, D-02): CREATE
 * TABLE (registered in the metadata with the types mapped from the statement), CREATE INDEX /
 * VIEW, the supported ALTER TABLE subset (the metadata follows each step) and DROP VIEW /
 * INDEX. Each runs in one transaction holding the organisation schema's structural lock
 * (the same lock as the structural actions), so metadata and DDL commit or roll back together.
 */
import type { Envelope } from '../../envelope/types.ts';
import type { Tx } from '../../store/db.ts';
import { fieldMetaFromDef, fieldView, normalizeFieldDef } from '../catalog/fields.ts';
import { renameOwnerField } from '../access/grants.ts';
import { insertFieldMeta, registerTable, updateFieldMeta } from '../catalog/metadata.ts';
import { quoteIdent } from '../model/naming.ts';
import { dtFail, dtOk } from '../model/results.ts';
import { lockSchema } from '../structure/ddl.ts';
import type { DtEnv, FieldMeta, TableMeta } from '../model/types.ts';
import type { SqlPlan } from './check.ts';
import type { AlterStep } from './ddl.ts';
import { missingRelations, prepareSqlTx } from './session.ts';

/** Open the DDL transaction: structural lock, the org schema, LOCAL settings. */
async function ddlTx(tx: Tx, schema: string, timeoutMs: number): Promise<void> {
  await lockSchema(tx, schema);
  await tx.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await prepareSqlTx(tx, schema, { readOnly: false, timeoutMs });
}

/**
 * Run a checked DDL plan (kinds create_table, create_index, create_view, alter, drop).
 * @returns `{success:true, affected: 0, sql, …}` with `created` / `table_id` for CREATE TABLE
 *   (R-DT-86) and the table's fields after ALTER; or a recoverable envelope (invalid mapped
 *   field, table already exists).
 */
export async function runSqlDdl(
  env: DtEnv,
  plan: SqlPlan,
  schema: string,
  tables: readonly TableMeta[],
  timeoutMs: number,
): Promise<Envelope> {
  if (plan.kind === 'create_table') return createTable(env, plan, schema, tables, timeoutMs);
  if (plan.kind === 'alter') return alterTable(env, plan, schema, tables, timeoutMs);
  await env.tx(async (tx) => {
    await ddlTx(tx, schema, timeoutMs);
    await tx.query(plan.rewrittenSql);
  });
  const body: Record<string, unknown> = { affected: 0, sql: plan.rewrittenSql };
  if (plan.kind === 'create_index') body.created_index = true;
  if (plan.kind === 'create_view') body.created_view = true;
  if (plan.drop) body.dropped = plan.drop.objects;
  return dtOk(body);
}

async function createTable(env: DtEnv, plan: SqlPlan, schema: string, tables: readonly TableMeta[], timeoutMs: number): Promise<Envelope> {
  const lang = env.caller.lang;
  const info = plan.createTable!;
  const problems: string[] = [];
  info.fields.forEach((f, i) => {
    const r = normalizeFieldDef(f, i, lang);
    if (!r.ok) problems.push(...r.errors);
  });
  if (problems.length > 0) {
    return dtFail(
      'recoverable',
      { zh: `建表语句的字段无法登记：${problems.join('；')}`, en: `the columns cannot be registered: ${problems.join('; ')}` },
      lang,
      { need_param: 'sql' },
    );
  }
  const existing = tables.find((t) => t.title === info.title);
  if (existing) {
    if (info.ifNotExists) {
      return dtOk({
        affected: 0,
        created: false,
        already_exists: true,
        table_id: existing.id,
        table: existing.title,
        sql: plan.rewrittenSql,
      });
    }
    return dtFail('recoverable', { zh: `表「${info.title}」已存在`, en: `table "${info.title}" already exists` }, lang, {
      need_param: 'sql',
      already_exists: true,
      table_id: existing.id,
    });
  }
  const out = await env.tx(async (tx) => {
    await ddlTx(tx, schema, timeoutMs);
    if (info.ifNotExists && (await missingRelations(tx, schema, [info.title])).length === 0) return null;
    await tx.query(plan.rewrittenSql);
    return registerTable(tx, env.caller.orgId, info.title, info.fields);
  });
  if (!out) {
    // IF NOT EXISTS over a table that exists in the schema but not in the metadata: untouched.
    return dtOk({ affected: 0, created: false, already_exists: true, table_id: null, table: info.title, sql: plan.rewrittenSql });
  }
  return dtOk({
    affected: 0,
    created: true,
    table_id: out.id,
    table: out.title,
    fields: out.fields.map(fieldView),
    sql: plan.rewrittenSql,
  });
}

/** Apply one ALTER step to the metadata copy `fields` (and the database), in order. */
async function applyStep(tx: Tx, tableId: string, fields: FieldMeta[], step: AlterStep): Promise<void> {
  const idx = (title: string) => fields.findIndex((f) => f.title === title);
  switch (step.op) {
    case 'add_column': {
      if (idx(step.field.title) >= 0) return; // IF NOT EXISTS on a known field
      const meta = fieldMetaFromDef(
        step.field,
        fields.reduce((m, f) => Math.max(m, f.position + 1), 0),
      );
      await insertFieldMeta(tx, tableId, meta);
      fields.push(meta);
      return;
    }
    case 'set_required':
    case 'rename_column': {
      const i = idx(step.column);
      if (i < 0) return;
      const next: FieldMeta = step.op === 'set_required' ? { ...fields[i]!, required: step.required } : { ...fields[i]!, title: step.to };
      await updateFieldMeta(tx, tableId, step.column, next);
      if (step.op === 'rename_column') await renameOwnerField(tx, tableId, step.column, step.to);
      fields[i] = next;
      return;
    }
    case 'default':
      return;
  }
}

async function alterTable(env: DtEnv, plan: SqlPlan, schema: string, tables: readonly TableMeta[], timeoutMs: number): Promise<Envelope> {
  const lang = env.caller.lang;
  const alter = plan.alter!;
  const problems: string[] = [];
  for (const s of alter.steps) {
    if (s.op !== 'add_column') continue;
    const r = normalizeFieldDef(s.field, 0, lang);
    if (!r.ok) problems.push(...r.errors);
  }
  if (problems.length > 0) {
    return dtFail(
      'recoverable',
      { zh: `新增的列无法登记：${problems.join('；')}`, en: `the new columns cannot be registered: ${problems.join('; ')}` },
      lang,
      { need_param: 'sql' },
    );
  }
  const meta = tables.find((t) => t.title === alter.table);
  const fields = meta ? meta.fields.map((f) => ({ ...f })) : [];
  await env.tx(async (tx) => {
    await ddlTx(tx, schema, timeoutMs);
    await tx.query(plan.rewrittenSql);
    if (meta) for (const step of alter.steps) await applyStep(tx, meta.id, fields, step);
  });
  const body: Record<string, unknown> = {
    affected: 0,
    altered: true,
    table_id: meta?.id ?? null,
    table: alter.table,
    sql: plan.rewrittenSql,
  };
  if (meta) body.fields = fields.sort((a, b) => a.position - b.position).map(fieldView);
  return dtOk(body);
}
