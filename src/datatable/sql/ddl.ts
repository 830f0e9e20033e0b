/**
 * DDL through the SQL channel (R-DT-78, R-DT-82, R-DT-84, A-36, D-02):
 * CREATE TABLE / INDEX / VIEW, a small ALTER TABLE subset, and DROP VIEW / INDEX. Each checker
 * validates one statement node and reports what the executor must mirror in the metadata
 * (tables created or altered by SQL are registered with types mapped from the statement).
 *
 * Supported ALTER forms: ADD COLUMN, ALTER COLUMN SET/DROP DEFAULT, SET/DROP NOT NULL, RENAME
 * COLUMN. Everything else (DROP COLUMN, type changes, constraints, table renames, SET SCHEMA,
 * owners, triggers …) is refused; delete_field / update_field / delete_table do those jobs
 * (with the backups of A-30).
 */
import type { FieldDef } from '../model/types.ts';
import { COLUMN_TYPE_MAP } from './allowlist.ts';
import { describeIdentifierProblem, identifierProblem, isSystemColumn } from '../model/naming.ts';
import type { RawNode } from './parser.ts';
import { refuse } from './refusal.ts';
import {
  asList,
  checkRangeVar,
  checkTypeName,
  checkWrittenColumn,
  stringOf,
  walkNode,
  walkStruct,
  refuseSchema,
  type WalkCtx,
} from './walker.ts';

/** One ALTER step the metadata must follow. */
export type AlterStep =
  | { op: 'add_column'; field: FieldDef; ifNotExists: boolean }
  | { op: 'set_required'; column: string; required: boolean }
  | { op: 'rename_column'; column: string; to: string }
  | { op: 'default'; column: string };

/** The identifier rule for names a statement creates (R-DT-84, R-DT-10; `pg_` is reserved). */
function checkNewName(name: string, what: 'table' | 'column' | 'view' | 'index'): void {
  const problem = identifierProblem(name);
  if (problem) {
    const en = describeIdentifierProblem(name, problem, 'en');
    const zh = describeIdentifierProblem(name, problem, 'zh-CN');
    refuse('identifier', `${what} ${en} (identifier rule, spec §7.1)`, zh);
  }
  if (/^pg_/i.test(name)) refuse('identifier', `${what} names starting with pg_ are reserved`, `名称「${name}」不能以 pg_ 开头`);
}

/** Refuse fields not listed (allowlist over the DDL node's keys). */
function onlyKeys(kind: string, node: RawNode, allowed: readonly string[]): void {
  for (const key of Object.keys(node)) {
    if (!allowed.includes(key))
      refuse('syntax_not_allowed', `${kind}.${key} is not allowed on the SQL channel`, `SQL 通道不支持该语法（${kind}.${key}）`);
  }
}

/**
 * One column definition of CREATE TABLE / ADD COLUMN: identifier rule, not id/created_at
 * (R-DT-78), a mappable type (no JSONB, no arrays), constraints NOT NULL / NULL / DEFAULT /
 * UNIQUE / CHECK only (no PRIMARY KEY, no REFERENCES, no identity or generated columns).
 * @returns the field definition for the metadata.
 */
function checkColumnDef(def: RawNode, ctx: WalkCtx): FieldDef {
  onlyKeys('ColumnDef', def, ['colname', 'typeName', 'is_local', 'constraints', 'location']);
  const name = String(def.colname ?? '');
  if (isSystemColumn(name)) {
    refuse(
      'system_column',
      `column "${name}" is a system column created by the platform; do not define it (R-DT-78)`,
      `不能自定义系统列「${name}」（id、created_at 由平台创建）`,
    );
  }
  checkNewName(name, 'column');
  const tn = (def.typeName ?? {}) as RawNode;
  onlyKeys('TypeName', tn, ['names', 'typemod', 'typmods', 'location', 'arrayBounds']);
  const typ = checkTypeName(tn, ctx);
  if (tn.arrayBounds !== undefined) {
    refuse(
      'type',
      `array column "${name}" is not supported: use create_table with a 多选 field and its options`,
      `不支持数组列「${name}」：多选请用 create_table 并配置选项`,
    );
  }
  const uidt = COLUMN_TYPE_MAP[typ];
  if (!uidt)
    refuse(
      'type',
      `column type ${typ} is not supported for "${name}" (use text, integer/bigint, numeric, date, timestamp, time, boolean, json)`,
      `列「${name}」的类型 ${typ} 不受支持`,
    );
  walkNode(tn.typmods, ctx);
  const field: FieldDef = { title: name, uidt };
  if (uidt === '数字' && typ === 'numeric') {
    const mods = asList(tn.typmods).map((m) =>
      Number(((m.A_Const as RawNode | undefined)?.ival as { ival?: number } | undefined)?.ival ?? 0),
    );
    if (mods.length >= 1) field.precision = mods[0]!;
    if (mods.length >= 2) field.scale = mods[1]!;
    else if (mods.length === 1) field.scale = 0;
  }
  for (const c of asList(def.constraints)) {
    const con = (c.Constraint ?? {}) as RawNode;
    switch (con.contype) {
      case 'CONSTR_NOTNULL':
        field.required = true;
        break;
      case 'CONSTR_NULL':
        break;
      case 'CONSTR_UNIQUE':
        field.unique = true;
        break;
      case 'CONSTR_DEFAULT':
      case 'CONSTR_CHECK':
        break;
      default:
        refuseConstraint(con);
    }
    checkConstraintNode(con, ctx);
  }
  return field;
}

/** PRIMARY KEY / FOREIGN KEY / EXCLUDE / identity / generated … are refused with their rule. */
function refuseConstraint(con: RawNode): never {
  switch (con.contype) {
    case 'CONSTR_PRIMARY':
      return refuse(
        'primary_key',
        "PRIMARY KEY is not allowed: every table gets the platform's id bigserial primary key (R-DT-78)",
        '不能定义 PRIMARY KEY：主键 id 由平台创建',
      );
    case 'CONSTR_FOREIGN':
      return refuse(
        'foreign_key',
        'FOREIGN KEY / REFERENCES is not allowed: data tables use no foreign keys (spec §7.1)',
        '数据表不使用外键（REFERENCES）',
      );
    default:
      return refuse(
        'syntax_not_allowed',
        `constraint ${String(con.contype ?? '?').replace('CONSTR_', '')} is not allowed`,
        `不支持约束 ${String(con.contype ?? '?').replace('CONSTR_', '')}`,
      );
  }
}

/** The keys a DEFAULT / CHECK / UNIQUE constraint may carry; expressions are walked. */
function checkConstraintNode(con: RawNode, ctx: WalkCtx): void {
  onlyKeys('Constraint', con, [
    'contype',
    'conname',
    'location',
    'raw_expr',
    'is_enforced',
    'initially_valid',
    'keys',
    'nulls_not_distinct',
    'skip_validation',
  ]);
  walkNode(con.raw_expr, ctx);
}

/** What a CREATE TABLE defines. */
export interface CreateTableInfo {
  title: string;
  ifNotExists: boolean;
  fields: FieldDef[];
}

/** CREATE TABLE (R-DT-78, R-DT-82, R-DT-84, A-36). */
export function checkCreateTable(n: RawNode, ctx: WalkCtx): CreateTableInfo {
  onlyKeys('CreateStmt', n, ['relation', 'tableElts', 'oncommit', 'if_not_exists']);
  if (n.oncommit !== undefined && n.oncommit !== 'ONCOMMIT_NOOP')
    refuse('persistence', 'ON COMMIT is for temporary tables and not allowed', '不允许 ON COMMIT（临时表）');
  const rel = (n.relation ?? {}) as RawNode;
  checkTargetRelation(rel, ctx);
  const title = String(rel.relname ?? '');
  ctx.relations.delete(title); // being created, not read
  checkNewName(title, 'table');
  const fields: FieldDef[] = [];
  const tableUnique: string[][] = [];
  for (const el of asList(n.tableElts)) {
    if (el.ColumnDef) {
      fields.push(checkColumnDef(el.ColumnDef as RawNode, ctx));
    } else if (el.Constraint) {
      const con = el.Constraint as RawNode;
      if (con.contype === 'CONSTR_UNIQUE') {
        tableUnique.push(asList(con.keys).map((k) => stringOf(k) ?? ''));
      } else if (con.contype !== 'CONSTR_CHECK') {
        refuseConstraint(con);
      }
      checkConstraintNode(con, ctx);
    } else {
      refuse(
        'syntax_not_allowed',
        `${Object.keys(el)[0] ?? '?'} is not allowed in CREATE TABLE (no LIKE / INHERITS)`,
        'CREATE TABLE 中不支持该写法（LIKE / INHERITS 等）',
      );
    }
  }
  for (const keys of tableUnique) {
    for (const k of keys)
      if (isSystemColumn(k)) refuse('system_column', `constraint on system column "${k}"`, `不能对系统列「${k}」加约束`);
    if (keys.length === 1) {
      const f = fields.find((x) => x.title === keys[0]);
      if (f) f.unique = true;
    }
  }
  return { title, ifNotExists: n.if_not_exists === true, fields };
}

/** The target relation of a DDL statement: org schema or bare, permanent, not pg_…. */
function checkTargetRelation(rel: RawNode, ctx: WalkCtx): void {
  onlyKeys('RangeVar', rel, ['schemaname', 'catalogname', 'relname', 'inh', 'relpersistence', 'alias', 'location']);
  checkRangeVar(rel, ctx, false);
}

/** What CREATE INDEX names. */
export interface CreateIndexInfo {
  table: string;
  name: string | null;
}

/** CREATE [UNIQUE] INDEX on an organisation table (no CONCURRENTLY, no tablespace/options). */
export function checkCreateIndex(n: RawNode, ctx: WalkCtx): CreateIndexInfo {
  onlyKeys('IndexStmt', n, [
    'idxname',
    'relation',
    'accessMethod',
    'indexParams',
    'indexIncludingParams',
    'whereClause',
    'unique',
    'nulls_not_distinct',
    'if_not_exists',
  ]);
  const rel = (n.relation ?? {}) as RawNode;
  checkTargetRelation(rel, ctx);
  if (n.idxname !== undefined) checkNewName(String(n.idxname), 'index');
  const am = String(n.accessMethod ?? 'btree');
  if (!['btree', 'hash', 'gin', 'gist', 'brin'].includes(am))
    refuse('syntax_not_allowed', `index method ${am} is not allowed`, `不支持索引类型 ${am}`);
  walkNode(n.indexParams, ctx);
  walkNode(n.indexIncludingParams, ctx);
  walkNode(n.whereClause, ctx);
  return { table: String(rel.relname ?? ''), name: n.idxname === undefined ? null : String(n.idxname) };
}

/** CREATE [OR REPLACE] VIEW in the org schema over a checked SELECT. */
export function checkCreateView(n: RawNode, ctx: WalkCtx): { name: string } {
  onlyKeys('ViewStmt', n, ['view', 'aliases', 'query', 'replace', 'withCheckOption']);
  const view = (n.view ?? {}) as RawNode;
  checkTargetRelation(view, ctx);
  ctx.relations.delete(String(view.relname ?? '')); // the view itself is being created
  checkNewName(String(view.relname ?? ''), 'view');
  walkNode(n.aliases, ctx);
  const q = n.query as RawNode | undefined;
  if (!q || !('SelectStmt' in q)) refuse('syntax_not_allowed', 'a view must be defined by a SELECT', '视图只能由 SELECT 定义');
  walkNode(q, ctx);
  return { name: String(view.relname ?? '') };
}

/** ALTER TABLE: the supported subset; returns the metadata steps. */
export function checkAlterTable(n: RawNode, ctx: WalkCtx): { table: string; steps: AlterStep[] } {
  onlyKeys('AlterTableStmt', n, ['relation', 'cmds', 'objtype', 'missing_ok']);
  if (n.objtype !== 'OBJECT_TABLE') refuse('ddl_not_supported', 'only ALTER TABLE is supported', '只支持 ALTER TABLE');
  const rel = (n.relation ?? {}) as RawNode;
  checkTargetRelation(rel, ctx);
  const steps: AlterStep[] = [];
  for (const c of asList(n.cmds)) {
    const cmd = (c.AlterTableCmd ?? {}) as RawNode;
    onlyKeys('AlterTableCmd', cmd, ['subtype', 'name', 'def', 'behavior', 'missing_ok']);
    if (cmd.behavior === 'DROP_CASCADE') refuse('ddl_not_supported', 'CASCADE is not allowed', '不允许 CASCADE');
    const col = String(cmd.name ?? '');
    switch (cmd.subtype) {
      case 'AT_AddColumn': {
        const def = (cmd.def as RawNode | undefined)?.ColumnDef as RawNode | undefined;
        if (!def) refuse('syntax_not_allowed', 'ADD COLUMN needs a column definition', 'ADD COLUMN 缺少列定义');
        steps.push({ op: 'add_column', field: checkColumnDef(def, ctx), ifNotExists: cmd.missing_ok === true });
        break;
      }
      case 'AT_DropColumn':
        checkWrittenColumn(col);
        return refuse(
          'ddl_not_supported',
          'DROP COLUMN is not available on the SQL channel: use the delete_field action (it backs the column up and protects owner fields)',
          'SQL 通道不支持 DROP COLUMN，请使用 delete_field 操作（会先备份该列数据）',
          'delete_field',
        );
      case 'AT_ColumnDefault':
        checkWrittenColumn(col);
        walkNode(cmd.def, ctx);
        steps.push({ op: 'default', column: col });
        break;
      case 'AT_SetNotNull':
      case 'AT_DropNotNull':
        checkWrittenColumn(col);
        steps.push({ op: 'set_required', column: col, required: cmd.subtype === 'AT_SetNotNull' });
        break;
      default:
        refuse(
          'ddl_not_supported',
          `ALTER TABLE ${String(cmd.subtype ?? '?').replace('AT_', '')} is not supported on the SQL channel; use update_field / add_field / delete_field`,
          'SQL 通道只支持 ALTER TABLE 的 ADD COLUMN、SET/DROP DEFAULT、SET/DROP NOT NULL、RENAME COLUMN；其他修改请用 update_field 等结构化操作',
          'update_field',
        );
    }
  }
  return { table: String(rel.relname ?? ''), steps };
}

/** ALTER TABLE … RENAME COLUMN a TO b (other renames refused). */
export function checkRename(n: RawNode, ctx: WalkCtx): { table: string; steps: AlterStep[] } {
  onlyKeys('RenameStmt', n, ['renameType', 'relationType', 'relation', 'subname', 'newname', 'behavior', 'missing_ok']);
  if (n.renameType !== 'OBJECT_COLUMN' || n.relationType !== 'OBJECT_TABLE') {
    refuse(
      'ddl_not_supported',
      'only ALTER TABLE … RENAME COLUMN is supported (tables keep their titles)',
      '只支持 ALTER TABLE … RENAME COLUMN（不支持改表名）',
    );
  }
  const rel = (n.relation ?? {}) as RawNode;
  checkTargetRelation(rel, ctx);
  const from = String(n.subname ?? '');
  const to = String(n.newname ?? '');
  checkWrittenColumn(from);
  if (isSystemColumn(to)) refuse('system_column', `"${to}" is a system column name`, `「${to}」是系统列名`);
  checkNewName(to, 'column');
  return { table: String(rel.relname ?? ''), steps: [{ op: 'rename_column', column: from, to }] };
}

/** DROP VIEW / DROP INDEX in the org schema; DROP TABLE is redirected to delete_table. */
export function checkDrop(n: RawNode, ctx: WalkCtx): { objects: string[]; type: 'view' | 'index' } {
  onlyKeys('DropStmt', n, ['objects', 'removeType', 'behavior', 'missing_ok']);
  if (n.removeType === 'OBJECT_TABLE') {
    refuse(
      'ddl_not_supported',
      'DROP TABLE is not available on the SQL channel: use the delete_table action (it keeps the metadata consistent)',
      'SQL 通道不支持 DROP TABLE，请使用 delete_table 操作',
      'delete_table',
    );
  }
  if (n.removeType !== 'OBJECT_VIEW' && n.removeType !== 'OBJECT_INDEX') {
    refuse(
      'statement_not_allowed',
      `DROP ${String(n.removeType ?? '?').replace('OBJECT_', '')} is not allowed`,
      `不允许 DROP ${String(n.removeType ?? '?').replace('OBJECT_', '')}`,
    );
  }
  if (n.behavior === 'DROP_CASCADE') refuse('ddl_not_supported', 'CASCADE is not allowed', '不允许 CASCADE');
  const objects: string[] = [];
  for (const o of asList(n.objects)) {
    const parts = asList((o.List as RawNode | undefined)?.items).map((p) => stringOf(p) ?? '');
    if (parts.length === 0 || parts.length > 2) refuse('schema', 'a database-qualified name is not allowed', '不允许跨数据库引用');
    if (parts.length === 2 && parts[0] !== ctx.schema) refuseSchema(parts[0]!, ctx);
    const name = parts[parts.length - 1]!;
    if (/^pg_/i.test(name)) refuse('catalog_relation', `"${name}" names a system object`, `「${name}」是系统对象`);
    objects.push(name);
  }
  return { objects, type: n.removeType === 'OBJECT_VIEW' ? 'view' : 'index' };
}

/** Walk a DML / SELECT statement node with the allowlist walker. */
export function walkStatement(kind: string, node: RawNode, ctx: WalkCtx): void {
  walkStruct(kind, node, ctx);
}
