/**
 * The allowlist walk over a libpg-query parse tree (R-DT-77/79/81/83;
 * item 8). Every object in the tree must be a node kind listed in {@link SPEC} and carry only
 * the listed fields; anything unknown is refused. Kind-specific checks enforce the channel's
 * rules: relations only in the organisation's schema (or bare, routed there), no `pg_…`
 * relation names (they would resolve into `pg_catalog`, which PostgreSQL always searches),
 * functions / types / value functions only from the allowlists, no parameters, no
 * data-modifying WITH, UPDATE/DELETE with WHERE, id / created_at never written.
 *
 * Tree shape (notes/library-facts.md §6): wrapped nodes are `{Kind: {...}}`; some positions hold
 * a bare struct whose kind the parent field implies (`relation` → RangeVar, `typeName` →
 * TypeName…); protobuf-JSON omits defaults (`{ival: {}}` is 0).
 */
import { ALLOWED_FUNCTIONS, ALLOWED_TYPES, ALLOWED_VALUE_FUNCTIONS, SYSTEM_SCHEMAS, deniedFunctionReason } from './allowlist.ts';
import { isSystemColumn } from '../model/naming.ts';
import { tokenAt, type ParsedSql, type RawNode } from './parser.ts';
import { refuse } from './refusal.ts';
import { SPEC } from './spec.ts';

/** A relation the statement reads or writes (not a CTE). */
export interface RelationRef {
  name: string;
  /** Written with the organisation's schema explicitly. */
  qualified: boolean;
}

/** State of one walk. */
export interface WalkCtx {
  /** The organisation's schema (`org_data_x`). */
  schema: string;
  /** Other organisations' schemas, for a precise refusal message. */
  otherOrgSchemas: ReadonlySet<string>;
  parsed: ParsedSql;
  /** CTE names visible at the current point (a stack of WITH lists). */
  cteScopes: string[][];
  /** Real relations referenced, by name. */
  relations: Map<string, RelationRef>;
}

/** Kinds whose node carries an extra check (run before the fields are walked). */
const CHECKS: Readonly<Record<string, (node: RawNode, ctx: WalkCtx) => void>> = {
  SelectStmt: (n) => {
    if ('intoClause' in n)
      refuse(
        'select_into',
        'SELECT … INTO creates a table outside the checked DDL path; use CREATE TABLE and INSERT … SELECT',
        'SELECT … INTO 不被允许：请先 CREATE TABLE 再 INSERT … SELECT',
      );
    if ('lockingClause' in n)
      refuse(
        'syntax_not_allowed',
        'SELECT … FOR UPDATE/SHARE is not allowed on the SQL channel',
        'SQL 通道不支持 SELECT … FOR UPDATE/SHARE',
      );
  },
  UpdateStmt: (n) => {
    if (!('whereClause' in n)) refuse('where_required', 'UPDATE needs a WHERE clause (R-DT-79)', 'UPDATE 必须带 WHERE 条件');
    for (const t of asList(n.targetList)) checkWrittenColumn(resTargetName(t));
  },
  DeleteStmt: (n) => {
    if (!('whereClause' in n)) refuse('where_required', 'DELETE needs a WHERE clause (R-DT-79)', 'DELETE 必须带 WHERE 条件');
  },
  InsertStmt: (n) => {
    const cols = asList(n.cols);
    if (cols.length === 0 && 'selectStmt' in n) {
      refuse(
        'insert_columns',
        'INSERT must list its target columns: id and created_at are filled by the platform',
        'INSERT 必须写明列名（id 和 created_at 由平台填写，不能按位置写入）',
      );
    }
    for (const c of cols) checkWrittenColumn(resTargetName(c));
    if (n.override !== undefined && n.override !== 'OVERRIDING_NOT_SET')
      refuse('system_column', 'OVERRIDING … VALUE is not allowed', '不允许 OVERRIDING … VALUE');
  },
  OnConflictClause: (n) => {
    for (const t of asList(n.targetList)) checkWrittenColumn(resTargetName(t));
  },
  RangeVar: (n, ctx) => checkRangeVar(n, ctx, true),
  TargetRangeVar: (n, ctx) => checkRangeVar(n, ctx, false),
  ColumnRef: (n, ctx) => {
    const fields = asList(n.fields);
    if (fields.length > 3) refuse('schema', 'column references with a database name are not allowed', '不允许带数据库名的列引用');
    if (fields.length === 3) {
      const schema = stringOf(fields[0]);
      if (schema !== ctx.schema) refuseSchema(schema ?? '?', ctx);
    }
  },
  FuncCall: (n, ctx) => checkFunction(n, ctx),
  TypeName: (n, ctx) => checkTypeName(n, ctx),
  A_Expr: (n) => checkOperator(asList(n.name)),
  SubLink: (n) => checkOperator(asList(n.operName)),
  SQLValueFunction: (n) => {
    const op = String(n.op ?? '');
    if (!ALLOWED_VALUE_FUNCTIONS.has(op)) {
      refuse(
        'function',
        `${op.replace('SVFOP_', '')} is not allowed (only date/time value functions)`,
        `不允许 ${op.replace('SVFOP_', '')}（只允许日期时间函数）`,
      );
    }
  },
  CollateClause: (n) => {
    if (asList(n.collname).length !== 1) refuse('schema', 'a schema-qualified collation is not allowed', '不允许带 schema 的排序规则');
  },
  CommonTableExpr: (n) => {
    const q = n.ctequery as RawNode | undefined;
    if (q && !('SelectStmt' in q)) {
      refuse(
        'data_modifying_cte',
        'INSERT/UPDATE/DELETE inside WITH is not allowed: run them as their own statement',
        'WITH 中不允许 INSERT/UPDATE/DELETE，请单独执行',
      );
    }
  },
};

/** Walk a wrapped node, a list of them, or nothing. */
export function walkNode(value: unknown, ctx: WalkCtx): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const v of value) walkNode(v, ctx);
    return;
  }
  if (typeof value !== 'object') refuse('syntax_not_allowed', 'unexpected value in the parse tree', '无法识别的语法');
  const keys = Object.keys(value as object);
  if (keys.length === 0) return; // an empty node (e.g. plain DISTINCT's marker)
  if (keys.length !== 1) refuse('syntax_not_allowed', 'unexpected structure in the parse tree', '无法识别的语法');
  const kind = keys[0]!;
  walkStruct(kind, (value as RawNode)[kind], ctx);
}

/** Walk a struct of a known kind (bare or unwrapped) against the allowlist. */
export function walkStruct(kind: string, value: unknown, ctx: WalkCtx): void {
  if (Array.isArray(value)) {
    for (const v of value) walkStruct(kind, v, ctx);
    return;
  }
  const spec = SPEC[kind];
  if (!spec) refuse('syntax_not_allowed', `${kind} is not allowed on the SQL channel`, `SQL 通道不支持该语法（${kind}）`);
  if (typeof value !== 'object' || value === null) refuse('syntax_not_allowed', `malformed ${kind}`, `无法识别的语法（${kind}）`);
  const node = value as RawNode;
  CHECKS[kind]?.(node, ctx);
  const pushed = pushCtes(kind, node, ctx);
  try {
    for (const [key, v] of Object.entries(node)) {
      const field = spec[key];
      if (!field)
        refuse('syntax_not_allowed', `${kind}.${key} is not allowed on the SQL channel`, `SQL 通道不支持该语法（${kind}.${key}）`);
      if (field === 's') {
        if (kind === 'A_Const' || typeof v !== 'object' || v === null) continue;
        refuse('syntax_not_allowed', `unexpected value in ${kind}.${key}`, `无法识别的语法（${kind}.${key}）`);
      } else if (field === 'n') {
        walkNode(v, ctx);
      } else if (field === 'sel') {
        for (const item of Array.isArray(v) ? v : [v]) {
          if (!item || typeof item !== 'object' || !('SelectStmt' in item)) {
            refuse('syntax_not_allowed', `only a SELECT may appear in ${kind}.${key}`, `此处只允许 SELECT（${kind}.${key}）`);
          }
          walkNode(item, ctx);
        }
      } else {
        walkStruct(field.slice(1), v, ctx);
      }
    }
  } finally {
    if (pushed) ctx.cteScopes.pop();
  }
}

/** Push the CTE names of a statement's WITH clause while its fields are walked. */
function pushCtes(kind: string, node: RawNode, ctx: WalkCtx): boolean {
  if (!['SelectStmt', 'InsertStmt', 'UpdateStmt', 'DeleteStmt'].includes(kind)) return false;
  const withClause = node.withClause as { ctes?: unknown[] } | undefined;
  if (!withClause) return false;
  const names = (withClause.ctes ?? []).map((c) => String(((c as RawNode).CommonTableExpr as RawNode | undefined)?.ctename ?? ''));
  ctx.cteScopes.push(names);
  return true;
}

/** True when `name` is a CTE visible at this point of the walk. */
function isCte(name: string, ctx: WalkCtx): boolean {
  return ctx.cteScopes.some((scope) => scope.includes(name));
}

/**
 * A relation reference (R-DT-77/81): no catalog name; a schema only when it is the org's own;
 * never TEMP/UNLOGGED; no `pg_…` names (PostgreSQL searches pg_catalog before the org schema,
 * and every pg_catalog relation is named pg_…). `allowCte` — FROM items may name a CTE; DML
 * targets always name a real table.
 */
export function checkRangeVar(n: RawNode, ctx: WalkCtx, allowCte: boolean): void {
  const relname = String(n.relname ?? '');
  if (n.catalogname !== undefined)
    refuse(
      'schema',
      `a database-qualified name (${String(n.catalogname)}.…) is not allowed`,
      `不允许跨数据库引用（${String(n.catalogname)}.…）`,
    );
  if (n.schemaname !== undefined && n.schemaname !== ctx.schema) refuseSchema(String(n.schemaname), ctx);
  if (n.relpersistence !== undefined && n.relpersistence !== 'p') {
    refuse('persistence', 'temporary or unlogged tables are not allowed', '不允许临时表或 UNLOGGED 表');
  }
  if (/^pg_/i.test(relname)) {
    refuse(
      'catalog_relation',
      `"${relname}" names a system catalog (pg_catalog is not accessible)`,
      `「${relname}」是系统表，SQL 通道不允许访问 pg_catalog`,
    );
  }
  if (n.schemaname === undefined && allowCte && isCte(relname, ctx)) return;
  if (!ctx.relations.has(relname)) ctx.relations.set(relname, { name: relname, qualified: n.schemaname !== undefined });
}

/** Refuse a schema other than the organisation's, naming the rule it breaks (R-DT-81). */
export function refuseSchema(schema: string, ctx: WalkCtx): never {
  const lower = schema.toLowerCase();
  if (ctx.otherOrgSchemas.has(schema) || (lower.startsWith('org_data_') && schema !== ctx.schema)) {
    refuse('schema', `schema "${schema}" belongs to another organisation`, `不允许访问其他组织的数据（schema「${schema}」）`);
  }
  if (SYSTEM_SCHEMAS.has(lower) || lower.startsWith('pg_')) {
    refuse(
      'schema',
      `schema "${schema}" is not accessible: public, pg_catalog and information_schema are refused`,
      `不允许访问系统 schema「${schema}」（public、pg_catalog、information_schema 均被禁止）`,
    );
  }
  refuse(
    'schema',
    `schema "${schema}" is not accessible: write table names bare, they are routed to your organisation`,
    `不允许访问 schema「${schema}」：表名请直接写裸名，系统会路由到本组织`,
  );
}

/** The String value of a wrapped `{String: {sval}}` node. */
export function stringOf(node: unknown): string | undefined {
  const s = (node as { String?: { sval?: string } } | undefined)?.String;
  return s ? (s.sval ?? '') : undefined;
}

/** A field value that may be absent, one node or a list, as a list. */
export function asList(value: unknown): RawNode[] {
  if (value === undefined || value === null) return [];
  return (Array.isArray(value) ? value : [value]) as RawNode[];
}

function resTargetName(node: RawNode): string {
  return String(((node.ResTarget ?? node) as RawNode).name ?? '');
}

/** id / created_at are the platform's: never written (spec §7.1, R-DT-08). */
export function checkWrittenColumn(name: string): void {
  if (isSystemColumn(name)) {
    refuse(
      'system_column',
      `column "${name}" is a system column filled by the platform and cannot be written`,
      `「${name}」是平台系统列，不能写入`,
    );
  }
}

function checkOperator(names: RawNode[]): void {
  if (names.length > 1) {
    const schema = stringOf(names[0]) ?? '?';
    refuse('schema', `an operator qualified with schema "${schema}" is not allowed`, `不允许带 schema 的运算符（${schema}）`);
  }
}

/**
 * A function call: unqualified and allowlisted. The parser itself writes `pg_catalog.<f>` for
 * SQL syntax such as EXTRACT, TRIM, SUBSTRING … FROM, AT TIME ZONE (funcformat
 * COERCE_SQL_SYNTAX); an explicit `pg_catalog.f(…)` call is refused like any other schema.
 */
function checkFunction(n: RawNode, ctx: WalkCtx): void {
  const parts = asList(n.funcname).map((p) => stringOf(p) ?? '');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2 && parts[0] === 'pg_catalog' && n.funcformat === 'COERCE_SQL_SYNTAX') {
    name = parts[1]!;
  } else if (parts.length === 2) {
    if (parts[0] === ctx.schema)
      refuse('function', `function "${parts[1]}" is not on the SQL channel allowlist`, `不允许调用函数 ${parts[1]}`);
    refuseSchema(parts[0]!, ctx);
  } else {
    refuse('schema', 'a database-qualified function name is not allowed', '不允许带数据库名的函数');
  }
  if (!ALLOWED_FUNCTIONS.has(name)) {
    const why = deniedFunctionReason(name);
    if (name.startsWith('jsonb'))
      refuse(
        'jsonb',
        `function ${name} uses JSONB, which is not supported (spec §7.6(1))`,
        `不支持 JSONB（函数 ${name}）：JSON 请存在 text 列中`,
      );
    refuse('function', `function ${name}() is refused: it ${why}`, `不允许调用函数 ${name}()`);
  }
}

/**
 * A type name (casts, typed literals, column definitions): allowlisted, no JSONB (R-DT-83), no
 * reg* casts (they resolve object names in any schema), no schema except the `pg_catalog.` the
 * parser writes itself for SQL-standard names (`integer` → pg_catalog.int4); an explicit
 * `pg_catalog.` in the text is refused.
 */
export function checkTypeName(n: RawNode, ctx: WalkCtx): string {
  const parts = asList(n.names).map((p) => stringOf(p) ?? '');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2 && parts[0] === 'pg_catalog' && !explicitCatalog(n.location, ctx)) {
    name = parts[1]!;
  } else if (parts.length === 2) {
    refuseSchema(parts[0]!, ctx);
  } else {
    refuse('schema', 'a database-qualified type name is not allowed', '不允许带数据库名的类型');
  }
  if (name.toLowerCase() === 'jsonb') {
    refuse(
      'jsonb',
      'the JSONB type and ::jsonb casts are not supported: store JSON in text columns (spec §7.6(1))',
      "不支持 JSONB 类型或 ::jsonb 转换：JSON 请存在 text 列中（DEFAULT 写成 '[]'）",
    );
  }
  if (/^reg/i.test(name)) {
    refuse(
      'type',
      `casts to ${name} resolve object names across schemas and are not allowed`,
      `不允许转换为 ${name}（会跨 schema 解析对象名）`,
    );
  }
  if (!ALLOWED_TYPES.has(name)) refuse('type', `type ${name} is not allowed on the SQL channel`, `SQL 通道不支持类型 ${name}`);
  return name;
}

/** True when the text at `location` spells `pg_catalog` (the user wrote the schema). */
function explicitCatalog(location: unknown, ctx: WalkCtx): boolean {
  if (typeof location !== 'number') return false;
  const tok = tokenAt(ctx.parsed, location);
  if (!tok) return false;
  return tok.text.replace(/"/g, '').toLowerCase() === 'pg_catalog';
}
