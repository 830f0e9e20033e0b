/**
 * Texts of directory import problems, zh-CN and en. Each names the row (CSV: line of the
 * file; JSON: item of its list) and the column.
 */
import type { ImportIssue, Lang } from './types.ts';

/** The kinds of problem an import reports. */
export type IssueKind =
  | 'required'
  | 'invalid'
  | 'too_long'
  | 'duplicate_key'
  | 'id_taken'
  | 'too_deep'
  | 'failed'
  | 'unknown_department'
  | 'ambiguous_department'
  | 'unknown_column';

/** Where a row comes from: CSV line numbers, or items of a JSON list. */
export type RowOrigin = 'csv' | 'json';

function where(lang: Lang, origin: RowOrigin, section: ImportIssue['section'], row: number): string {
  const list = origin === 'json' && section === 'departments' ? 'departments ' : '';
  if (lang === 'en') return origin === 'csv' ? `Row ${row}:` : `${list}Item ${row}:`;
  return origin === 'csv' ? `第 ${row} 行` : `${list}第 ${row} 项`;
}

/**
 * The localized message of one problem, e.g. `第 3 行 email 无效：a@b` /
 * `Row 3: email is invalid: a@b`. `detail` is the offending value or other context.
 */
export function issueMessage(
  lang: Lang,
  origin: RowOrigin,
  section: ImportIssue['section'],
  row: number,
  column: string,
  kind: IssueKind,
  detail = '',
): string {
  const w = where(lang, origin, section, row);
  const d = detail.length > 80 ? `${detail.slice(0, 77)}...` : detail;
  if (lang === 'en') {
    switch (kind) {
      case 'required':
        return `${w} ${column} is required`;
      case 'invalid':
        return `${w} ${column} is invalid${d ? `: ${d}` : ''}`;
      case 'too_long':
        return `${w} ${column} is too long (at most ${d} characters)`;
      case 'duplicate_key':
        return `${w} ${column} repeats ${d}`;
      case 'id_taken':
        return `${w} ${column} id ${d}`;
      case 'too_deep':
        return `${w} ${column} has more than ${d} levels`;
      case 'failed':
        return `${w} could not be saved${d ? `: ${d}` : ''}`;
      case 'unknown_department':
        return `${w} ${column} "${d}" is not in the org tree; its path will be /${d}/`;
      case 'ambiguous_department':
        return `${w} ${column} ${d}`;
      case 'unknown_column':
        return `${w} unknown column ${column} ignored`;
    }
  }
  switch (kind) {
    case 'required':
      return `${w} ${column} 不能为空`;
    case 'invalid':
      return `${w} ${column} 无效${d ? `：${d}` : ''}`;
    case 'too_long':
      return `${w} ${column} 过长（最多 ${d} 个字符）`;
    case 'duplicate_key':
      return `${w} ${column} 重复：${d}`;
    case 'id_taken':
      return `${w} ${column} 编号冲突：${d}`;
    case 'too_deep':
      return `${w} ${column} 超过 ${d} 层`;
    case 'failed':
      return `${w} 保存失败${d ? `：${d}` : ''}`;
    case 'unknown_department':
      return `${w} ${column}「${d}」不在组织树中，部门路径将为 /${d}/`;
    case 'ambiguous_department':
      return `${w} ${column}${d}`;
    case 'unknown_column':
      return `${w} 未知列 ${column}，已忽略`;
  }
}

/** Detail of a duplicate contact key: `alice（已在第 2 行）` / `alice (already in row 2)`. */
export function duplicateDetail(lang: Lang, origin: RowOrigin, key: string, firstRow: number): string {
  if (lang === 'en') return `${key} (already in ${origin === 'csv' ? 'row' : 'item'} ${firstRow})`;
  return `${key}（已在第 ${firstRow} ${origin === 'csv' ? '行' : '项'}）`;
}

/** Detail of a platform id held by another contact. */
export function takenDetail(lang: Lang, id: string, owner: string): string {
  return lang === 'en' ? `${id} already belongs to contact ${owner}` : `${id} 已属于联系人 ${owner}`;
}

/** Detail of an ambiguous department name. */
export function ambiguousDetail(lang: Lang, name: string, path: string): string {
  return lang === 'en' ? `"${name}" names several departments; took ${path}` : `「${name}」有多个同名部门，已取 ${path}`;
}
