/**
 * The two data tables of `repair_ticket`, reached only through the built-in `datatable` skill
 * (`runtime_context.call_skill`; docs/datatable.md — skills never open their own connection):
 * 工单 (tickets) and 维修工 (workers), created on first use.
 */

/** `runtime_context.call_skill` (never throws; R-CALL-10). */
export type CallSkill = (name: string, input: Record<string, unknown>) => Promise<Record<string, unknown>>;

export const TICKETS = '工单';
export const WORKERS = '维修工';
export const STATUSES = ['待处理', '处理中', '已完成'] as const;

/** Field definitions (docs/configuration.md "Data-table field definitions"). */
export const TABLE_FIELDS: Readonly<Record<string, readonly Record<string, unknown>[]>> = {
  [TICKETS]: [
    { title: '描述', uidt: '长文本', required: true },
    { title: '位置', uidt: '文本' },
    { title: '状态', uidt: '单选', options: [...STATUSES] },
    { title: '报修人', uidt: '文本' },
    { title: '报修人工号', uidt: '文本' },
    { title: 'origin_channel', uidt: '文本' },
    { title: 'origin_openid', uidt: '文本' },
    { title: 'origin_session_id', uidt: '文本' },
    { title: '报修照片', uidt: '文本' },
    { title: '维修工', uidt: '文本' },
    { title: '维修工工号', uidt: '文本' },
    { title: '维修工联系方式', uidt: '文本' },
    { title: '费用', uidt: '数字', precision: 18, scale: 2 },
    { title: '完成说明', uidt: '长文本' },
    { title: '完成照片', uidt: '文本' },
    { title: '派单时间', uidt: '日期时间' },
    { title: '完成时间', uidt: '日期时间' },
  ],
  [WORKERS]: [
    { title: '姓名', uidt: '文本', required: true },
    { title: '工号', uidt: '文本' },
    { title: '联系方式', uidt: '文本', required: true },
    { title: '值班', uidt: '勾选' },
  ],
};

/** A ticket row as `datatable query` returns it (id + created_at + the fields). */
export type Row = Record<string, unknown> & { id: number | string };

/** A failed datatable call, carried up to the skill's answer. */
export class TableError extends Error {
  constructor(readonly envelope: Record<string, unknown>) {
    super(String(envelope.user_message ?? envelope.error ?? 'datatable failed'));
  }
}

function failed(r: Record<string, unknown>): boolean {
  return r.success === false || r.ok === false;
}

/** One datatable call. @throws TableError when it failed */
export async function dt(call: CallSkill, action: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await call('datatable', { action, payload });
  if (failed(r)) throw new TableError(r);
  return r;
}

/**
 * Create whichever of 工单 / 维修工 does not exist yet. Only missing tables are created, so a
 * member (who may not create tables, D-01) can use the skill once an owner/admin has used it.
 * @throws TableError when a table is missing and cannot be created
 */
export async function ensureTables(call: CallSkill): Promise<void> {
  const list = await dt(call, 'list_tables', {});
  const have = new Set(((list.result as { title?: string }[] | undefined) ?? []).map((t) => t.title));
  for (const title of [TICKETS, WORKERS]) {
    if (have.has(title)) continue;
    await dt(call, 'create_table', { table_name: title, fields: TABLE_FIELDS[title] });
  }
}

/** Rows of `table` matching `filters` (newest first, at most `limit`). */
export async function query(call: CallSkill, table: string, filters: unknown[] = [], limit = 20): Promise<Row[]> {
  const r = await dt(call, 'query', { table_name: table, ...(filters.length ? { filters } : {}), sort: '-id', limit });
  return (r.list as Row[] | undefined) ?? [];
}

/** The ticket with this id, or null. */
export async function getTicket(call: CallSkill, id: number): Promise<Row | null> {
  return (await query(call, TICKETS, [{ field: 'id', op: 'eq', value: id }], 1))[0] ?? null;
}

/** The record of an insert/update answer (`record`, else the flat fields). */
function recordOf(r: Record<string, unknown>): Row {
  const rec = (r.record ?? r.result) as Row | undefined;
  if (rec && typeof rec === 'object' && 'id' in rec) return rec;
  const { success: _s, record: _r, ...flat } = r;
  return flat as Row;
}

/** Insert one row. @returns the complete record after writing */
export async function insert(call: CallSkill, table: string, data: Record<string, unknown>): Promise<Row> {
  const r = await dt(call, 'insert', { table_name: table, data });
  return recordOf(r);
}

/** Update one row. @returns the complete record after the update */
export async function update(call: CallSkill, table: string, id: number | string, data: Record<string, unknown>): Promise<Row> {
  const r = await dt(call, 'update', { table_name: table, row_id: id, data });
  return recordOf(r);
}
