/**
 * Field definitions (R-DT-66/67,
 * A-33): validation of `create_table.fields` / `add_field.field` / `update_field.patch`, the
 * stored form {@link FieldMeta}, and the column SQL type of each logical type.
 */
import { LOGICAL_TYPES, TYPE_ALIASES, type FieldDef, type FieldMeta, type LogicalType } from '../model/types.ts';
import { describeIdentifierProblem, identifierProblem, isSystemColumn } from '../model/naming.ts';
import type { Bilingual, DtLang } from '../model/results.ts';

/** Default precision/scale of 数字 (38,2). */
export const DEFAULT_NUMBER_PRECISION = 38;
export const DEFAULT_NUMBER_SCALE = 2;
/** PostgreSQL's largest numeric precision. */
export const MAX_NUMBER_PRECISION = 1000;
/** Longest single option text of 单选 / 多选 (code points). */
export const MAX_OPTION_LENGTH = 255;
/** Most options of one field. */
export const MAX_OPTIONS = 500;

/**
 * Historical NocoDB UI type names accepted as input (the entry was once `nocodb`, D-18);
 * stored and returned as the Chinese logical names (A-33).
 */
export const NOCODB_UIDT_ALIASES: Readonly<Record<string, LogicalType | keyof typeof TYPE_ALIASES>> = {
  SingleLineText: '文本',
  LongText: '长文本',
  Number: '整数',
  Decimal: '数字',
  Date: '日期',
  DateTime: '日期时间',
  Time: '时间',
  Checkbox: '勾选',
  SingleSelect: '单选',
  MultiSelect: '多选',
  Email: '邮箱',
  PhoneNumber: '电话',
  URL: '链接',
  JSON: 'JSON',
  Currency: '金额',
  Percent: '百分比',
};

/** True for the two option-carrying types. */
export function hasOptions(uidt: LogicalType): boolean {
  return uidt === '单选' || uidt === '多选';
}

/**
 * The column type of a logical type in the organisation's table (R-DT-66):
 * 文本 长文本 单选 邮箱 电话 链接 JSON → `text` (JSON is text: no jsonb, spec §7.6(1));
 * 多选 → `text[]`; 整数 → `bigint`; 数字 → `numeric(p,s)`; 日期 → `date`;
 * 日期时间 → `timestamptz` (an instant; wall-clock input is read in the caller's zone); 时间 → `time`;
 * 勾选 → `boolean`.
 */
export function columnSqlType(field: Pick<FieldMeta, 'uidt' | 'precision' | 'scale'>): string {
  switch (field.uidt) {
    case '整数':
      return 'bigint';
    case '数字':
      return `numeric(${field.precision ?? DEFAULT_NUMBER_PRECISION},${field.scale ?? DEFAULT_NUMBER_SCALE})`;
    case '日期':
      return 'date';
    case '日期时间':
      return 'timestamptz';
    case '时间':
      return 'time';
    case '勾选':
      return 'boolean';
    case '多选':
      return 'text[]';
    default:
      return 'text';
  }
}

/** Result of {@link normalizeFieldDef}: the stored form, or the problems in the user's language. */
export type FieldDefResult = { ok: true; field: FieldMeta } | { ok: false; errors: string[] };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function t(lang: DtLang, m: Bilingual): string {
  return lang === 'en' ? m.en : m.zh;
}

/**
 * Resolve a uidt input — a logical type (R-DT-66), an input alias 金额/百分比/高精度数字
 * (R-DT-67) or a NocoDB UI type name — to the stored logical type and its preset precision.
 * @returns null for an unknown name.
 */
export function resolveUidt(input: string): { uidt: LogicalType; precision?: number; scale?: number } | null {
  const name = input.trim();
  if ((LOGICAL_TYPES as readonly string[]).includes(name)) return { uidt: name as LogicalType };
  const nocodb = NOCODB_UIDT_ALIASES[name];
  const target = nocodb ?? name;
  if ((LOGICAL_TYPES as readonly string[]).includes(target)) return { uidt: target as LogicalType };
  const alias = TYPE_ALIASES[target];
  if (alias) return { uidt: alias.uidt, precision: alias.precision, scale: alias.scale };
  return null;
}

function checkOptions(raw: unknown, lang: DtLang, errors: string[]): string[] {
  if (!Array.isArray(raw)) {
    errors.push(
      t(lang, {
        zh: 'options 必须是字符串数组，例如 ["待处理","已完成"]',
        en: 'options must be an array of strings, e.g. ["open","done"]',
      }),
    );
    return [];
  }
  const out: string[] = [];
  for (const item of raw) {
    if (typeof item !== 'string' || item.trim() === '') {
      errors.push(
        t(lang, { zh: `选项 ${JSON.stringify(item)} 必须是非空字符串`, en: `option ${JSON.stringify(item)} must be a non-empty string` }),
      );
      continue;
    }
    const v = item.trim();
    if (Array.from(v).length > MAX_OPTION_LENGTH) {
      errors.push(
        t(lang, {
          zh: `选项「${v.slice(0, 20)}…」超过 ${MAX_OPTION_LENGTH} 个字符`,
          en: `option "${v.slice(0, 20)}…" is longer than ${MAX_OPTION_LENGTH} characters`,
        }),
      );
      continue;
    }
    if (!out.includes(v)) out.push(v);
  }
  if (out.length > MAX_OPTIONS) errors.push(t(lang, { zh: `选项不能超过 ${MAX_OPTIONS} 个`, en: `at most ${MAX_OPTIONS} options` }));
  return out;
}

function checkPrecision(raw: unknown, name: string, min: number, lang: DtLang, errors: string[]): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  const n = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > MAX_NUMBER_PRECISION) {
    errors.push(
      t(lang, {
        zh: `${name} 必须是 ${min}~${MAX_NUMBER_PRECISION} 的整数`,
        en: `${name} must be an integer from ${min} to ${MAX_NUMBER_PRECISION}`,
      }),
    );
    return undefined;
  }
  return n;
}

function checkBool(raw: unknown, name: string, lang: DtLang, errors: string[]): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === 1) return true;
  if (raw === 'false' || raw === 0) return false;
  errors.push(t(lang, { zh: `${name} 必须是 true 或 false`, en: `${name} must be true or false` }));
  return false;
}

/**
 * Validate one field definition `{title, uidt, required?, unique?, options?, precision?,
 * scale?}` (`type` is accepted for `uidt`; a missing uidt means 文本) and
 * return its stored form at `position`:
 * - title: identifier rule (R-DT-10) and not a system column (R-DT-08);
 * - uidt: logical type, input alias with preset precision (R-DT-67) or NocoDB UI name;
 * - 单选/多选 need a non-empty `options: string[]` (trimmed, de-duplicated); other types store `[]`;
 * - 数字: precision 1–1000 (default 38, aliases preset), scale 0–precision (default 2);
 *   other types store null precision/scale.
 * Never throws; every problem is reported (zh-CN by default).
 */
export function normalizeFieldDef(input: unknown, position: number, lang: DtLang = 'zh-CN'): FieldDefResult {
  const errors: string[] = [];
  if (!isPlainObject(input)) {
    return {
      ok: false,
      errors: [t(lang, { zh: '字段定义必须是对象 {title, uidt, …}', en: 'a field definition must be an object {title, uidt, …}' })],
    };
  }
  const title = typeof input.title === 'string' ? input.title.trim() : input.title;
  const problem = identifierProblem(title);
  if (title === undefined) {
    const keys = Object.keys(input).join('、');
    errors.push(
      t(lang, {
        zh: `字段定义缺少 title（字段名写在 title 里${keys ? `，收到的键：${keys}` : ''}）`,
        en: `a field definition has no title (the field name goes in title${keys ? `; keys given: ${keys}` : ''})`,
      }),
    );
  } else if (problem) errors.push(describeIdentifierProblem(title, problem, lang));
  else if (isSystemColumn(title as string)) {
    errors.push(
      t(lang, {
        zh: `「${String(title)}」是系统列，由平台自动创建，不能自定义`,
        en: `"${String(title)}" is a system column created by the platform; it cannot be defined`,
      }),
    );
  }
  const rawUidt = input.uidt ?? input.type ?? '文本';
  const resolved = typeof rawUidt === 'string' ? resolveUidt(rawUidt) : null;
  if (!resolved) {
    errors.push(
      t(lang, {
        zh: `未知的字段类型 ${JSON.stringify(rawUidt)}；可用：${LOGICAL_TYPES.join(' ')}，以及 金额 百分比 高精度数字`,
        en: `unknown field type ${JSON.stringify(rawUidt)}; use one of ${LOGICAL_TYPES.join(' ')} or 金额 百分比 高精度数字`,
      }),
    );
  }
  const uidt: LogicalType = resolved?.uidt ?? '文本';
  const required = checkBool(input.required, 'required', lang, errors);
  const unique = checkBool(input.unique, 'unique', lang, errors);
  let options: string[] = [];
  if (hasOptions(uidt)) {
    options = checkOptions(input.options, lang, errors);
    if (Array.isArray(input.options) && options.length === 0) {
      errors.push(t(lang, { zh: `${uidt}字段必须至少配置一个选项`, en: `a ${uidt} field needs at least one option` }));
    }
  }
  let precision: number | null = null;
  let scale: number | null = null;
  if (uidt === '数字') {
    precision = checkPrecision(input.precision, 'precision', 1, lang, errors) ?? resolved?.precision ?? DEFAULT_NUMBER_PRECISION;
    scale = checkPrecision(input.scale, 'scale', 0, lang, errors) ?? resolved?.scale ?? DEFAULT_NUMBER_SCALE;
    if (scale > precision)
      errors.push(
        t(lang, {
          zh: `scale（${scale}）不能大于 precision（${precision}）`,
          en: `scale (${scale}) cannot exceed precision (${precision})`,
        }),
      );
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, field: { title: title as string, uidt, required, unique, options, precision, scale, position } };
}

/**
 * The stored form of an already-typed {@link FieldDef} (e.g. one mapped from an SQL statement,
 * A-36), filling defaults like {@link normalizeFieldDef}.
 * @throws Error listing the problems when the definition is invalid (a programming error of
 *   the caller, not a user mistake).
 */
export function fieldMetaFromDef(def: FieldDef | FieldMeta, position: number): FieldMeta {
  const r = normalizeFieldDef(def, position, 'en');
  if (!r.ok) throw new Error(`invalid field definition ${JSON.stringify(def)}: ${r.errors.join('; ')}`);
  return r.field;
}

/**
 * The public shape of a field as `list_columns`, `add_field` and `update_field` return it
 * (R-DT-30, R-DT-45/46): `{title, uidt, required, unique, options, precision, scale}`.
 */
export function fieldView(f: FieldMeta): Omit<FieldMeta, 'position'> {
  return {
    title: f.title,
    uidt: f.uidt,
    required: f.required,
    unique: f.unique,
    options: [...f.options],
    precision: f.precision,
    scale: f.scale,
  };
}
