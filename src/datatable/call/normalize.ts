/**
 * Input normalisation of the datatable entry (R-ACT-01..07, R-DT-01,
 * R-DT-05): gather flat and nested payload keys, map action aliases (case, `_`/`-`/space,
 * camelCase, English synonyms, Chinese with filler characters, a 「确认」 prefix) and
 * parameter-key aliases onto the canonical names, and describe every change in one
 * `action_note`. A call without a (known) action is refused with `need_param: "action"`
 * and the action list; the action is never guessed from the input's shape.
 */
import type { Envelope } from '../../envelope/types.ts';
import { DATATABLE_ACTIONS, type DatatableAction } from '../model/types.ts';

/**
 * Action aliases → canonical action (R-ACT-01). Keys are in the cleaned form of
 * {@link cleanAction}. Values are checked against DATATABLE_ACTIONS at load time (R-ACT-02).
 */
export const ACTION_ALIASES: Readonly<Record<string, DatatableAction>> = {
  // list_tables
  tables: 'list_tables',
  list_table: 'list_tables',
  show_tables: 'list_tables',
  get_tables: 'list_tables',
  list: 'list_tables',
  表列表: 'list_tables',
  列出表: 'list_tables',
  列表: 'list_tables',
  所有表: 'list_tables',
  查看表: 'list_tables',
  有哪些表: 'list_tables',
  数据表列表: 'list_tables',
  // list_columns
  columns: 'list_columns',
  fields: 'list_columns',
  list_fields: 'list_columns',
  list_column: 'list_columns',
  describe: 'list_columns',
  describe_table: 'list_columns',
  get_columns: 'list_columns',
  get_fields: 'list_columns',
  schema: 'list_columns',
  table_schema: 'list_columns',
  字段列表: 'list_columns',
  列出字段: 'list_columns',
  查看字段: 'list_columns',
  表结构: 'list_columns',
  字段: 'list_columns',
  列: 'list_columns',
  // query
  select: 'query',
  find: 'query',
  search: 'query',
  get: 'query',
  read: 'query',
  fetch: 'query',
  list_rows: 'query',
  rows: 'query',
  get_rows: 'query',
  query_rows: 'query',
  query_records: 'query',
  list_records: 'query',
  lookup: 'query',
  查询: 'query',
  查看: 'query',
  查找: 'query',
  搜索: 'query',
  检索: 'query',
  查: 'query',
  读取: 'query',
  列出: 'query',
  浏览: 'query',
  // aggregate
  agg: 'aggregate',
  aggregation: 'aggregate',
  stats: 'aggregate',
  statistics: 'aggregate',
  summarize: 'aggregate',
  summary: 'aggregate',
  group_by: 'aggregate',
  count: 'aggregate',
  sum: 'aggregate',
  统计: 'aggregate',
  汇总: 'aggregate',
  聚合: 'aggregate',
  分组统计: 'aggregate',
  求和: 'aggregate',
  计数: 'aggregate',
  // insert
  add: 'insert',
  add_row: 'insert',
  add_record: 'insert',
  insert_row: 'insert',
  insert_one: 'insert',
  insert_record: 'insert',
  create_row: 'insert',
  create_record: 'insert',
  new_row: 'insert',
  new_record: 'insert',
  append: 'insert',
  新增: 'insert',
  添加: 'insert',
  插入: 'insert',
  录入: 'insert',
  写入: 'insert',
  新建: 'insert',
  增加: 'insert',
  登记: 'insert',
  // insert_batch
  batch_insert: 'insert_batch',
  bulk_insert: 'insert_batch',
  insert_many: 'insert_batch',
  insert_rows: 'insert_batch',
  add_rows: 'insert_batch',
  insert_records: 'insert_batch',
  add_records: 'insert_batch',
  batch_add: 'insert_batch',
  批量新增: 'insert_batch',
  批量添加: 'insert_batch',
  批量插入: 'insert_batch',
  批量录入: 'insert_batch',
  批量写入: 'insert_batch',
  // insert_from_file
  import: 'insert_from_file',
  import_file: 'insert_from_file',
  insert_file: 'insert_from_file',
  load_file: 'insert_from_file',
  import_from_file: 'insert_from_file',
  file_import: 'insert_from_file',
  bulk_import: 'insert_from_file',
  导入: 'insert_from_file',
  文件导入: 'insert_from_file',
  从文件导入: 'insert_from_file',
  批量导入: 'insert_from_file',
  // upsert
  insert_or_update: 'upsert',
  update_or_insert: 'upsert',
  merge: 'upsert',
  save: 'upsert',
  upsert_rows: 'upsert',
  新增或更新: 'upsert',
  更新或新增: 'upsert',
  插入或更新: 'upsert',
  有则更新无则新增: 'upsert',
  // update
  edit: 'update',
  modify: 'update',
  patch: 'update',
  update_row: 'update',
  update_record: 'update',
  change: 'update',
  更新: 'update',
  修改: 'update',
  编辑: 'update',
  改: 'update',
  // update_by
  update_where: 'update_by',
  update_many: 'update_by',
  bulk_update: 'update_by',
  batch_update: 'update_by',
  update_by_filter: 'update_by',
  update_by_filters: 'update_by',
  update_rows: 'update_by',
  按条件更新: 'update_by',
  条件更新: 'update_by',
  批量更新: 'update_by',
  批量修改: 'update_by',
  按条件修改: 'update_by',
  // delete
  remove: 'delete',
  del: 'delete',
  delete_row: 'delete',
  delete_record: 'delete',
  remove_row: 'delete',
  destroy: 'delete',
  删除: 'delete',
  删掉: 'delete',
  移除: 'delete',
  删: 'delete',
  // delete_batch
  batch_delete: 'delete_batch',
  bulk_delete: 'delete_batch',
  delete_many: 'delete_batch',
  delete_rows: 'delete_batch',
  delete_records: 'delete_batch',
  remove_rows: 'delete_batch',
  delete_ids: 'delete_batch',
  批量删除: 'delete_batch',
  批量移除: 'delete_batch',
  // delete_by
  delete_where: 'delete_by',
  remove_by: 'delete_by',
  remove_where: 'delete_by',
  delete_by_filter: 'delete_by',
  delete_by_filters: 'delete_by',
  按条件删除: 'delete_by',
  条件删除: 'delete_by',
  // sql_query
  sql: 'sql_query',
  query_sql: 'sql_query',
  run_sql: 'sql_query',
  select_sql: 'sql_query',
  sql_select: 'sql_query',
  raw_query: 'sql_query',
  sql查询: 'sql_query',
  查询sql: 'sql_query',
  // sql_execute
  execute_sql: 'sql_execute',
  exec_sql: 'sql_execute',
  sql_exec: 'sql_execute',
  sql_run: 'sql_execute',
  execute: 'sql_execute',
  执行sql: 'sql_execute',
  sql执行: 'sql_execute',
  // create_table
  new_table: 'create_table',
  add_table: 'create_table',
  make_table: 'create_table',
  table_create: 'create_table',
  建表: 'create_table',
  创建表: 'create_table',
  新建表: 'create_table',
  创建数据表: 'create_table',
  新建数据表: 'create_table',
  // add_field
  add_column: 'add_field',
  new_field: 'add_field',
  create_field: 'add_field',
  create_column: 'add_field',
  new_column: 'add_field',
  添加字段: 'add_field',
  新增字段: 'add_field',
  加字段: 'add_field',
  增加字段: 'add_field',
  添加列: 'add_field',
  新增列: 'add_field',
  // update_field
  alter_field: 'update_field',
  modify_field: 'update_field',
  rename_field: 'update_field',
  update_column: 'update_field',
  alter_column: 'update_field',
  edit_field: 'update_field',
  change_field: 'update_field',
  修改字段: 'update_field',
  更新字段: 'update_field',
  编辑字段: 'update_field',
  重命名字段: 'update_field',
  修改列: 'update_field',
  // delete_field
  drop_field: 'delete_field',
  remove_field: 'delete_field',
  delete_column: 'delete_field',
  drop_column: 'delete_field',
  remove_column: 'delete_field',
  删除字段: 'delete_field',
  删字段: 'delete_field',
  删除列: 'delete_field',
  移除字段: 'delete_field',
  // delete_table
  drop_table: 'delete_table',
  remove_table: 'delete_table',
  删除表: 'delete_table',
  删表: 'delete_table',
  删除数据表: 'delete_table',
  移除表: 'delete_table',
};

/**
 * R-ACT-02 self-check: every alias target is a canonical action. Runs at module load, so a
 * broken table fails every import (and the test suite) at once.
 * @throws Error naming the offending alias.
 */
export function assertAliasTargets(aliases: Readonly<Record<string, string>> = ACTION_ALIASES): void {
  const canonical = new Set<string>(DATATABLE_ACTIONS);
  for (const [alias, target] of Object.entries(aliases)) {
    if (!canonical.has(target)) throw new Error(`datatable action alias "${alias}" targets "${target}", which is not a canonical action`);
  }
}
assertAliasTargets();

/** Parameter-key aliases → canonical key (R-ACT-04). */
export const PARAM_ALIASES: Readonly<Record<string, string>> = {
  record: 'data',
  row: 'data',
  values: 'data',
  fields_values: 'data',
  rows: 'records',
  items: 'records',
  filter: 'filters',
  where: 'filters',
  conditions: 'filters',
  order_by: 'sort',
  orderBy: 'sort',
  order: 'sort',
  sort_by: 'sort',
  table: 'table_name',
  table_title: 'table_name',
  tableName: 'table_name',
  title_of_table: 'table_name',
  tableId: 'table_id',
  tableid: 'table_id',
  rowId: 'row_id',
  rowid: 'row_id',
  record_id: 'row_id',
  rowIds: 'row_ids',
  ids: 'row_ids',
  record_ids: 'row_ids',
  keyFields: 'key_fields',
  keys: 'key_fields',
  match_fields: 'key_fields',
  groupBy: 'group_by',
  confirmToken: 'confirm_token',
  token: 'confirm_token',
  confirm: '确认',
  approve: '确认',
  确定: '确认',
  confirmed: '确认',
  approved: '确认',
  onConflict: 'on_conflict',
  fieldTitle: 'field_title',
};

/** Filler characters and words dropped from a Chinese action before the lookup (「中文夹字」). */
const FILLER_WORDS = [
  '帮我',
  '给我',
  '麻烦',
  '一下',
  '一条',
  '一行',
  '一些',
  '多条',
  '数据',
  '记录',
  '信息',
  '内容',
  '操作',
  '里面',
  '中的',
];
const FILLER_CHARS = /[请的吧呢啊了把]/g;

/**
 * The cleaned form of an action for the alias lookup: trimmed, NFKC, camelCase split,
 * lower-cased, runs of `-`, space, `.`, `/` turned into `_`.
 */
export function cleanAction(raw: string): string {
  return raw
    .normalize('NFKC')
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[\s\-./]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
}

function lookup(cleaned: string): DatatableAction | undefined {
  if ((DATATABLE_ACTIONS as readonly string[]).includes(cleaned)) return cleaned as DatatableAction;
  const direct = ACTION_ALIASES[cleaned];
  if (direct) return direct;
  const compact = cleaned.replace(/_/g, '');
  if (ACTION_ALIASES[compact]) return ACTION_ALIASES[compact];
  if (/[\u4e00-\u9fa5]/.test(cleaned)) {
    let stripped = compact;
    for (const f of FILLER_WORDS) stripped = stripped.split(f).join('');
    if (stripped && ACTION_ALIASES[stripped]) return ACTION_ALIASES[stripped];
    stripped = stripped.replace(FILLER_CHARS, '');
    if (stripped && ACTION_ALIASES[stripped]) return ACTION_ALIASES[stripped];
  }
  return undefined;
}

/** The outcome of {@link resolveAction}. */
export interface ResolvedAction {
  action: DatatableAction;
  /** True when the action started with 「确认」 (R-ACT-06). */
  confirmPrefix: boolean;
}

/**
 * Map a received action onto the canonical set (R-ACT-01, R-ACT-06): a leading 「确认」 is
 * stripped and reported; undefined when nothing matches (the caller then refuses with the
 * action list — the action is never guessed).
 */
export function resolveAction(raw: string): ResolvedAction | undefined {
  let text = raw.normalize('NFKC').trim();
  let confirmPrefix = false;
  if (text.startsWith('确认')) {
    confirmPrefix = true;
    text = text.slice(2).replace(/^[\s:：，,_-]+/, '');
  }
  const action = lookup(cleanAction(text));
  return action ? { action, confirmPrefix } : undefined;
}

/** A normalised call, ready for dispatch. */
export interface NormalizedCall {
  action: DatatableAction;
  /** Flat + nested parameters with canonical keys (nested `payload` wins on a clash). */
  payload: Record<string, unknown>;
  /** `"<received> → <canonical>"` parts joined by "; "; undefined when nothing changed. */
  actionNote?: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The `need_param: action` refusal with the list of actions (R-ACT-05). */
export function missingActionEnvelope(received: string | undefined, lang: 'zh-CN' | 'en', note?: string): Envelope {
  const list = DATATABLE_ACTIONS.join(', ');
  const env: Envelope = {
    success: false,
    error:
      received === undefined
        ? `action is required; supported actions: ${list}`
        : `unknown action "${received}"; supported actions: ${list}`,
    error_type: 'recoverable',
    need_param: 'action',
    actions: [...DATATABLE_ACTIONS],
    user_message:
      lang === 'en'
        ? received === undefined
          ? `Please say which operation to run (one of: ${list}).`
          : `"${received}" is not a data-table operation (supported: ${list}).`
        : received === undefined
          ? `请指定要执行的操作 action（可选：${list}）。`
          : `不支持的操作「${received}」（可选：${list}）。`,
  };
  if (note) env.action_note = note;
  return env;
}

/**
 * Normalise one datatable input (R-DT-01, R-ACT-01..06).
 *
 * - `payload` may be an object or a JSON string of one; flat top-level keys are gathered
 *   into it (nested keys win on a clash).
 * - Key aliases are renamed (`row` → `data`, `filter` → `filters`, `order_by` → `sort`,
 *   `table` → `table_name`, `confirm`/`approve`/`确定` → `确认` …); when both the alias and the
 *   canonical key are given, the canonical one is kept and the alias dropped (noted).
 * - `确认` holding a token string (`ct_…`) while `confirm_token` is absent becomes
 *   `confirm_token` (noted).
 * - A 「确认」 action prefix sets `确认: true` (R-ACT-06). `确认` never replaces a
 *   confirm_token for protected deletes.
 * @returns the normalised call, or a `need_param: "action"` envelope (R-ACT-05) carrying the
 *   notes gathered so far.
 */
export function normalizeInput(input: unknown, lang: 'zh-CN' | 'en' = 'zh-CN'): NormalizedCall | { envelope: Envelope } {
  const src: Record<string, unknown> = isRecord(input) ? input : {};
  const notes: string[] = [];
  let nested: Record<string, unknown> = {};
  if (isRecord(src.payload)) nested = src.payload;
  else if (typeof src.payload === 'string' && src.payload.trim() !== '') {
    // schema.json allows payload as a JSON string of the object (docs, SKILL.md); anything
    // else in a string payload is refused clearly rather than ignored.
    let parsed: unknown;
    try {
      parsed = JSON.parse(src.payload);
    } catch {
      parsed = undefined;
    }
    if (!isRecord(parsed)) {
      return {
        envelope: {
          success: false,
          error: 'payload is a string but not the JSON text of an object; pass payload as an object {…} (or its JSON text)',
          error_type: 'recoverable',
          need_param: 'payload',
          user_message:
            lang === 'en' ? 'payload must be an object {…} or the JSON text of one.' : 'payload 必须是对象 {…}，或该对象的 JSON 字符串。',
        },
      };
    }
    nested = parsed;
    notes.push('payload (JSON text) → payload');
  }
  const merged: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    if (k === 'action' || k === 'payload' || k === '__proto__') continue;
    merged[k] = v;
  }
  for (const [k, v] of Object.entries(nested)) if (k !== '__proto__') merged[k] = v;

  const payload: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(merged)) if (!Object.hasOwn(PARAM_ALIASES, k)) payload[k] = v;
  for (const [k, v] of Object.entries(merged)) {
    if (!Object.hasOwn(PARAM_ALIASES, k)) continue;
    const canonical = PARAM_ALIASES[k]!;
    if (Object.hasOwn(payload, canonical)) {
      notes.push(`${k} ignored (${canonical} given)`);
      continue;
    }
    payload[canonical] = v;
    notes.push(`${k} → ${canonical}`);
  }
  if (typeof payload.确认 === 'string' && /^ct_[A-Za-z0-9_-]{8,}$/.test(payload.确认) && payload.confirm_token === undefined) {
    payload.confirm_token = payload.确认;
    delete payload.确认;
    notes.push('确认 (token) → confirm_token');
  }

  const rawAction = src.action ?? nested.action;
  if (typeof rawAction !== 'string' || rawAction.trim() === '') {
    return { envelope: missingActionEnvelope(undefined, lang, notes.length ? notes.join('; ') : undefined) };
  }
  const resolved = resolveAction(rawAction);
  if (!resolved) return { envelope: missingActionEnvelope(rawAction, lang, notes.length ? notes.join('; ') : undefined) };
  if (resolved.action !== rawAction) notes.unshift(`${rawAction} → ${resolved.action}`);
  if (resolved.confirmPrefix) {
    payload.确认 = true;
    notes.push('确认=true (action prefix)');
  }
  const out: NormalizedCall = { action: resolved.action, payload };
  if (notes.length) out.actionNote = notes.join('; ');
  return out;
}
