/**
 * The `display_md` of a successful datatable call (docs/datatable.md "What people see"): each
 * action says what happened in the caller's language — tables of records with the table's
 * own field order (ids and timestamps last), a key/value list for one record, sentences for
 * counts — and never shows internal columns (schema, qualified name, pageInfo). Failures and
 * confirmation requests keep their `user_message` (the confirmation prompt is shown by the
 * buttons). A record's own `display_md` field never reaches the envelope top level.
 */
import type { Envelope } from '../../envelope/types.ts';
import { escapeMarkdown, formatNumber, type ColumnHint } from '../../present/cells.ts';
import { recordList, recordsTable, TABLE_PAGE_ROWS, type TableOptions } from '../../present/table.ts';
import type { DtLang } from '../model/results.ts';
import type { DatatableAction, TableMeta } from '../model/types.ts';

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function code(s: string): string {
  return s.includes('`') ? `\`\` ${s} \`\`` : `\`${s}\``;
}

/** A `/datatable …` command: key=value when every value reads back, else the JSON form. */
export function datatableCommand(args: Rec): string {
  const simple = Object.values(args).every(
    (v) => typeof v === 'number' || (typeof v === 'string' && /^[^\s"'“{[]+$/u.test(v) && Number.isNaN(Number(v))),
  );
  if (simple) return ['/datatable', ...Object.entries(args).map(([k, v]) => `${k}=${String(v)}`)].join(' ');
  return `/datatable ${JSON.stringify(args)}`;
}

/**
 * How the records of `table` are shown: its field order (by position) and per-field hints
 * (money decimals, integers, text kept as written); instants in `timeZone`.
 */
export function tableOptions(table: TableMeta | null, lang: DtLang, timeZone?: string): TableOptions {
  if (!table) return { lang, timeZone };
  const hints: Record<string, ColumnHint> = { id: { kind: 'id' } };
  for (const f of table.fields) {
    if (f.uidt === '数字') hints[f.title] = { kind: 'number', scale: f.scale };
    else if (f.uidt === '整数') hints[f.title] = { kind: 'number' };
    else if (f.uidt === '文本' || f.uidt === '电话') hints[f.title] = { kind: 'id' };
  }
  return { lang, timeZone, columns: [...table.fields].sort((a, b) => a.position - b.position).map((f) => f.title), hints };
}

const zh = (lang: DtLang, zhText: string, enText: string): string => (lang === 'en' ? enText : zhText);

function rowsBlock(
  rows: Rec[],
  total: number,
  offset: number,
  table: TableMeta | null,
  lang: DtLang,
  more: Rec | null,
  timeZone?: string,
): string {
  const md = recordsTable(rows, tableOptions(table, lang, timeZone));
  const shown = Math.min(rows.length, TABLE_PAGE_ROWS);
  const from = offset + 1;
  const to = offset + shown;
  const lines = [md];
  if (total > shown || offset > 0) {
    lines.push(
      zh(lang, `第 ${from}–${to} 条，共 ${formatNumber(total, lang)} 条。`, `Rows ${from}–${to} of ${formatNumber(total, lang)}.`),
    );
    if (more && to < total)
      lines.push(
        zh(lang, `更多：${code(datatableCommand({ ...more, offset: to }))}`, `More: ${code(datatableCommand({ ...more, offset: to }))}`),
      );
  }
  return lines.join('\n\n');
}

function queryMore(payload: Rec, table: TableMeta): Rec {
  const args: Rec = { action: 'query', table_name: table.title };
  for (const k of ['filters', 'sort', 'limit']) if (payload[k] !== undefined) args[k] = payload[k];
  return args;
}

function title(table: TableMeta | null, env: Envelope): string {
  return escapeMarkdown(table?.title ?? (typeof env.title === 'string' ? env.title : typeof env.table === 'string' ? env.table : ''));
}

function typeText(f: Rec, lang: DtLang): string {
  const uidt = String(f.uidt ?? '');
  if (uidt === '数字' && f.precision === 18 && f.scale === 2) return zh(lang, '数字（金额）', 'number (money)');
  return uidt;
}

function batchSentence(env: Envelope, lang: DtLang): string {
  const parts = [
    ['inserted', '新增', 'inserted'],
    ['updated', '更新', 'updated'],
    ['skipped', '跳过', 'skipped'],
    ['failed', '失败', 'failed'],
  ]
    .filter(([k]) => typeof env[k!] === 'number')
    .map(([k, z, e]) => zh(lang, `${z} ${formatNumber(num(env[k!]), lang)} 条`, `${formatNumber(num(env[k!]), lang)} ${e}`));
  const total =
    typeof env.verified_total === 'number'
      ? zh(
          lang,
          `；表中现有 ${formatNumber(env.verified_total, lang)} 条`,
          `; the table now has ${formatNumber(env.verified_total, lang)} rows`,
        )
      : '';
  const head = `${parts.join(zh(lang, '，', ', '))}${total}${zh(lang, '。', '.')}`;
  const errors = Array.isArray(env.errors) ? env.errors.filter(isRec) : [];
  return errors.length ? `${head}\n\n${recordsTable(errors.slice(0, 10), { lang })}` : head;
}

/** The display markdown of one successful call, or null to leave the envelope as it is. */
export function displayFor(
  action: DatatableAction,
  env: Envelope,
  payload: Rec,
  table: TableMeta | null,
  lang: DtLang,
  timeZone?: string,
): string | null {
  if (env.success === false || env.ok === false || env.need_confirm === true || typeof env.confirm_token === 'string') return null;
  const t = title(table, env);
  switch (action) {
    case 'list_tables': {
      const list = Array.isArray(env.result) ? env.result.filter(isRec) : [];
      if (list.length === 0)
        return zh(
          lang,
          '这个组织还没有数据表。建表：`/datatable action=create_table table_name=<表名> fields=[…]`（需团队负责人或管理员）。',
          'This organisation has no data tables yet. Create one with `/datatable action=create_table table_name=<name> fields=[…]` (team owner or admin).',
        );
      const lines = list.map((r) => `- ${escapeMarkdown(String(r.title ?? ''))}`);
      const first = String(list[0]!.title ?? '');
      return [
        zh(lang, `**数据表**（共 ${list.length} 张）`, `**Data tables** (${list.length})`),
        lines.join('\n'),
        zh(
          lang,
          `查看记录：${code(datatableCommand({ action: 'query', table_name: first }))}；查看字段：${code(datatableCommand({ action: 'list_columns', table_name: first }))}`,
          `Rows: ${code(datatableCommand({ action: 'query', table_name: first }))}; fields: ${code(datatableCommand({ action: 'list_columns', table_name: first }))}`,
        ),
      ].join('\n\n');
    }
    case 'list_columns': {
      const fields = Array.isArray(env.result) ? env.result.filter(isRec) : [];
      const yes = zh(lang, '是', 'yes');
      const rows = fields.map((f) => ({
        [zh(lang, '字段', 'Field')]: f.title,
        [zh(lang, '类型', 'Type')]: typeText(f, lang),
        [zh(lang, '必填', 'Required')]: f.required === true ? yes : '',
        [zh(lang, '唯一', 'Unique')]: f.unique === true ? yes : '',
        [zh(lang, '选项', 'Options')]: Array.isArray(f.options) ? f.options.join(zh(lang, '、', ', ')) : '',
      }));
      const head = zh(lang, `**${t}** 的字段（共 ${fields.length} 个）`, `Fields of **${t}** (${fields.length})`);
      return rows.length ? `${head}\n\n${recordsTable(rows, { lang, maxRows: 200 })}` : `${head}${zh(lang, '：无', ': none')}`;
    }
    case 'query': {
      const list = Array.isArray(env.list) ? env.list.filter(isRec) : [];
      const page = isRec(env.pageInfo) ? env.pageInfo : {};
      const total = typeof page.totalRows === 'number' ? page.totalRows : list.length;
      const offset = num(page.offset);
      if (list.length === 0)
        return total > 0
          ? zh(
              lang,
              `**${t}**：这一页没有记录（共 ${formatNumber(total, lang)} 条）。`,
              `**${t}**: no rows on this page (${formatNumber(total, lang)} in total).`,
            )
          : zh(lang, `**${t}**：没有符合条件的记录。`, `**${t}**: no matching rows.`);
      const head = zh(lang, `**${t}**（共 ${formatNumber(total, lang)} 条）`, `**${t}** (${formatNumber(total, lang)} rows)`);
      return `${head}\n\n${rowsBlock(list, Math.max(total, offset + list.length), offset, table, lang, table ? queryMore(payload, table) : null, timeZone)}`;
    }
    case 'aggregate':
    case 'sql_query': {
      const rows = Array.isArray(env.rows) ? env.rows.filter(isRec) : [];
      if (rows.length === 0) return zh(lang, '没有结果。', 'No rows.');
      const head =
        action === 'aggregate'
          ? zh(lang, `**${t}** 统计结果`, `**${t}** summary`)
          : zh(
              lang,
              `查询结果（${formatNumber(rows.length, lang)} 行${env.truncated === true ? '，已截断' : ''}）`,
              `Result (${formatNumber(rows.length, lang)} rows${env.truncated === true ? ', truncated' : ''})`,
            );
      return `${head}\n\n${rowsBlock(rows, rows.length, 0, action === 'aggregate' ? table : null, lang, null, timeZone)}`;
    }
    case 'insert':
    case 'update': {
      const rec = isRec(env.record) ? env.record : null;
      const id = rec?.id ?? env.id;
      const head =
        action === 'insert'
          ? zh(lang, `已在 **${t}** 新增 1 条记录（id ${String(id)}）。`, `Added 1 row to **${t}** (id ${String(id)}).`)
          : zh(lang, `已更新 **${t}** 的记录 id ${String(id)}。`, `Updated row id ${String(id)} of **${t}**.`);
      return rec ? `${head}\n\n${recordList(rec, tableOptions(table, lang, timeZone))}` : head;
    }
    case 'insert_batch':
    case 'insert_from_file':
    case 'upsert':
      return `**${t}**：${batchSentence(env, lang)}`;
    case 'update_by':
      return zh(
        lang,
        `已更新 **${t}** 中的 ${formatNumber(num(env.updated), lang)} 条记录。`,
        `Updated ${formatNumber(num(env.updated), lang)} rows of **${t}**.`,
      );
    case 'delete':
      return zh(
        lang,
        `已删除 **${t}** 的记录 id ${escapeMarkdown(String(payload.row_id ?? payload.id ?? ''))}。`,
        `Deleted row id ${escapeMarkdown(String(payload.row_id ?? payload.id ?? ''))} of **${t}**.`,
      );
    case 'delete_batch':
    case 'delete_by': {
      const backup = typeof env.backup_file === 'string' && env.backup_file ? escapeMarkdown(env.backup_file.split(/[\\/]/).pop()!) : '';
      const n = formatNumber(num(env.deleted), lang);
      return zh(
        lang,
        `已删除 **${t}** 中的 ${n} 条记录。${backup ? `删除前的备份：${backup}` : ''}`,
        `Deleted ${n} rows of **${t}**.${backup ? ` Backup: ${backup}` : ''}`,
      );
    }
    case 'sql_execute': {
      const rows = Array.isArray(env.rows) ? env.rows.filter(isRec) : [];
      const head = zh(
        lang,
        `已执行，影响 ${formatNumber(num(env.affected), lang)} 行。`,
        `Done: ${formatNumber(num(env.affected), lang)} rows affected.`,
      );
      return rows.length ? `${head}\n\n${rowsBlock(rows, rows.length, 0, null, lang, null, timeZone)}` : head;
    }
    case 'create_table':
      return env.already_exists === true
        ? zh(lang, `数据表 **${t}** 已存在，未重复创建。`, `Table **${t}** already exists; nothing created.`)
        : zh(lang, `已创建数据表 **${t}**。`, `Created table **${t}**.`);
    case 'add_field':
      return zh(
        lang,
        `已在 **${t}** 添加字段「${escapeMarkdown(String(env.title ?? ''))}」（${escapeMarkdown(String(env.uidt ?? ''))}）。`,
        `Added field "${escapeMarkdown(String(env.title ?? ''))}" (${escapeMarkdown(String(env.uidt ?? ''))}) to **${t}**.`,
      );
    case 'update_field':
      return zh(
        lang,
        `已修改 **${t}** 的字段「${escapeMarkdown(String(env.title ?? ''))}」。`,
        `Changed field "${escapeMarkdown(String(env.title ?? ''))}" of **${t}**.`,
      );
    case 'delete_field': {
      const f = isRec(env.field) ? String(env.field.title ?? '') : '';
      return zh(lang, `已删除 **${t}** 的字段「${escapeMarkdown(f)}」。`, `Deleted field "${escapeMarkdown(f)}" of **${t}**.`);
    }
    case 'delete_table':
      return zh(lang, `已删除数据表 **${t}**。`, `Deleted table **${t}**.`);
  }
}

/** `env` with its `display_md` ({@link displayFor}; instants in `timeZone`, default the organisation's) when the action has one. */
export function withDisplay(
  action: DatatableAction,
  env: Envelope,
  payload: Rec,
  table: TableMeta | null,
  lang: DtLang,
  timeZone?: string,
): Envelope {
  const md = displayFor(action, env, payload, table, lang, timeZone);
  return md === null ? env : { ...env, display_md: md };
}
