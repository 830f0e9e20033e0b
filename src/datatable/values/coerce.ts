/**
 * Write-value validation and coercion (R-DT-66..75, R-DT-85b, A-35): turns
 * the values a caller sends into database parameters of the field's column type, or a
 * per-field error the caller can fix (recoverable). Pure functions, no I/O.
 *
 * Parameter forms: 整数 / 数字 → canonical decimal string (exact, no float rounding);
 * 勾选 → boolean; 多选 → string[] (column text[]); 日期 `YYYY-MM-DD`; 日期时间
 * `YYYY-MM-DD HH:MM:SS[.ffffff]`; 时间 `HH:MM:SS[.ffffff]`; JSON → JSON text; the rest → string.
 */
import type { FieldMeta, TableMeta } from '../model/types.ts';
import { isSystemColumn } from '../model/naming.ts';
import type { Bilingual, DtLang } from '../model/results.ts';
import { coerceDateLike, coerceInteger, coerceNumber, toHalfWidth, type CoerceResult, type DbValue } from './scalar.ts';

export { toHalfWidth, type CoerceResult, type DbValue } from './scalar.ts';

/** One refused field of a record. */
export interface FieldError {
  /** The field title ("" for a problem with the record itself). */
  field: string;
  /** What is wrong, in the caller's language. */
  error: string;
  /** The value as received (omitted for a missing required field). */
  value?: unknown;
}

/** Result of {@link coerceRecord}. */
export interface CoercedRecord {
  /** Coerced values by field title, only for fields present in the data (and valid). */
  values: Record<string, DbValue>;
  /** Refused fields; the record must not be written when non-empty. */
  errors: FieldError[];
  /** Keys ignored: unknown fields (R-DT-73) and the system columns id / created_at (R-DT-08). */
  dropped: string[];
}

function fail(lang: DtLang, m: Bilingual): CoerceResult {
  return { ok: false, error: lang === 'en' ? m.en : m.zh };
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'y', 'on', '是', '对', '真', '√', '✓']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'n', 'off', '否', '错', '假', '×', '✗']);

function coerceBool(value: unknown, lang: DtLang): CoerceResult {
  if (typeof value === 'boolean') return { ok: true, value };
  if (value === 1 || value === 0) return { ok: true, value: value === 1 };
  if (typeof value === 'string') {
    const s = value.trim().toLowerCase();
    if (TRUE_WORDS.has(s)) return { ok: true, value: true };
    if (FALSE_WORDS.has(s)) return { ok: true, value: false };
  }
  return fail(lang, {
    zh: `勾选字段只接受 true/false（或 是/否），收到 ${JSON.stringify(value)}`,
    en: `a checkbox takes true/false, got ${JSON.stringify(value)}`,
  });
}

function optionList(field: FieldMeta): string {
  return field.options.map((o) => `「${o}」`).join('、');
}

function coerceSingle(field: FieldMeta, value: unknown, lang: DtLang): CoerceResult {
  if (typeof value !== 'string' && typeof value !== 'number') {
    return fail(lang, {
      zh: `单选字段需要一个选项文本，收到 ${JSON.stringify(value)}`,
      en: `a single-select field takes one option text, got ${JSON.stringify(value)}`,
    });
  }
  const v = String(value).trim();
  if (field.options.length > 0 && !field.options.includes(v)) {
    return fail(lang, {
      zh: `「${v}」不在「${field.title}」的选项内：${optionList(field)}`,
      en: `"${v}" is not an option of "${field.title}": ${field.options.join(', ')}`,
    });
  }
  return { ok: true, value: v };
}

function coerceMulti(field: FieldMeta, value: unknown, lang: DtLang): CoerceResult {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') {
    const s = value.trim();
    let parsed: unknown;
    if (s.startsWith('[')) {
      try {
        parsed = JSON.parse(s);
      } catch {
        parsed = undefined;
      }
    }
    items = Array.isArray(parsed) ? parsed : s.split(/[,，、;；]/);
  } else {
    return fail(lang, {
      zh: `多选字段需要选项数组，收到 ${JSON.stringify(value)}`,
      en: `a multi-select field takes an array of options, got ${JSON.stringify(value)}`,
    });
  }
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string' && typeof item !== 'number') {
      return fail(lang, {
        zh: `多选的每一项必须是选项文本，收到 ${JSON.stringify(item)}`,
        en: `each multi-select item must be an option text, got ${JSON.stringify(item)}`,
      });
    }
    const v = String(item).trim();
    if (v === '') continue;
    if (field.options.length > 0 && !field.options.includes(v)) {
      return fail(lang, {
        zh: `「${v}」不在「${field.title}」的选项内：${optionList(field)}`,
        en: `"${v}" is not an option of "${field.title}": ${field.options.join(', ')}`,
      });
    }
    if (!out.includes(v)) out.push(v);
  }
  return { ok: true, value: out.length === 0 ? null : out };
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE_RE = /^\+?[0-9()\-\s#*]+$/;

function coerceText(field: FieldMeta, value: unknown, lang: DtLang): CoerceResult {
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return coerceText(field, String(value), lang);
  if (typeof value !== 'string') {
    return fail(lang, {
      zh: `「${field.title}」是${field.uidt}字段，不接受对象或数组（JSON 数据请用 JSON 类型字段）`,
      en: `"${field.title}" is a ${field.uidt} field; objects and arrays are not accepted (use a JSON field)`,
    });
  }
  if (field.uidt === '邮箱') {
    const v = value.trim();
    return EMAIL_RE.test(v)
      ? { ok: true, value: v }
      : fail(lang, { zh: `「${value}」不是有效的邮箱地址`, en: `"${value}" is not an e-mail address` });
  }
  if (field.uidt === '电话') {
    const v = toHalfWidth(value).trim();
    const digits = v.replace(/\D/g, '').length;
    return PHONE_RE.test(v) && digits >= 3 && v.length <= 32
      ? { ok: true, value: v }
      : fail(lang, { zh: `「${value}」不是有效的电话号码`, en: `"${value}" is not a phone number` });
  }
  if (field.uidt === '链接') {
    const v = value.trim();
    const okUrl = (u: string): boolean => {
      try {
        const url = new URL(u);
        return (url.protocol === 'http:' || url.protocol === 'https:') && (url.hostname.includes('.') || url.hostname === 'localhost');
      } catch {
        return false;
      }
    };
    const valid = !/\s/.test(v) && (/^https?:\/\//i.test(v) ? okUrl(v) : !/^[a-z][a-z0-9+.-]*:/i.test(v) && okUrl(`https://${v}`));
    return valid
      ? { ok: true, value: v }
      : fail(lang, { zh: `「${value}」不是有效的链接（需 http/https 网址）`, en: `"${value}" is not an http(s) link` });
  }
  return { ok: true, value };
}

function coerceJson(value: unknown, lang: DtLang): CoerceResult {
  if (typeof value === 'string') {
    try {
      JSON.parse(value);
      return { ok: true, value: value.trim() };
    } catch {
      return fail(lang, {
        zh: `「${value.length > 40 ? value.slice(0, 40) + '…' : value}」不是合法 JSON；请直接传对象/数组，由平台序列化`,
        en: 'not valid JSON text; pass an object or array and the platform serialises it',
      });
    }
  }
  const text = JSON.stringify(value);
  if (text === undefined) return fail(lang, { zh: '无法序列化为 JSON', en: 'cannot be serialised as JSON' });
  return { ok: true, value: text };
}

/**
 * Validate and coerce one value for `field`:
 * - `null`/`undefined`/`""` → NULL (R-DT-74; whitespace-only counts as empty except for text types);
 * - a string (or 多选 item) holding U+0000 is refused for every type (PostgreSQL cannot store it);
 * - 整数: integer, full-width digits and thousands commas accepted (R-DT-68), a decimal refused
 *   (R-DT-70; `1.0` is an integer), magnitude words refused (R-DT-69), bigint range;
 * - 数字: decimal within precision − scale integer digits (extra fraction digits are rounded by
 *   the database to the field's scale);
 * - 日期 / 日期时间 / 时间: ISO only (R-DT-71, A-35); 日期时间 also takes a date alone
 *   (midnight); an offset is accepted and the wall-clock time as written is stored;
 * - 勾选: booleans, 1/0, true/false/yes/no/是/否 …;
 * - 单选 / 多选: values among the options (R-DT-72); 多选 takes an array or a `,`/`，`/`、` list;
 * - 邮箱 / 电话 / 链接: format checks; 文本 / 长文本: strings, numbers and booleans as text;
 * - JSON: objects/arrays/scalars serialised by the platform (R-DT-85b); a string must be JSON text.
 * @returns the parameter value, or a recoverable error text in `lang`. Never throws.
 */
export function coerceValue(field: FieldMeta, value: unknown, lang: DtLang = 'zh-CN'): CoerceResult {
  if (value === null || value === undefined || value === '') return { ok: true, value: null };
  if (hasNul(value)) return nulError(field, lang);
  const textual = field.uidt === '文本' || field.uidt === '长文本' || field.uidt === 'JSON';
  if (!textual && typeof value === 'string' && value.trim() === '') return { ok: true, value: null };
  switch (field.uidt) {
    case '整数':
      return coerceInteger(value, lang);
    case '数字':
      return coerceNumber(field, value, lang);
    case '日期':
    case '日期时间':
    case '时间':
      return coerceDateLike(field, value, lang);
    case '勾选':
      return coerceBool(value, lang);
    case '单选':
      return coerceSingle(field, value, lang);
    case '多选':
      return coerceMulti(field, value, lang);
    case 'JSON':
      return coerceJson(value, lang);
    default:
      return coerceText(field, value, lang);
  }
}

/**
 * True when `v` (a string, or an array holding one) contains U+0000: PostgreSQL text cannot
 * store it (SQLSTATE 22021), so it is refused here with the field named.
 */
export function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some((x) => typeof x === 'string' && x.includes('\u0000'));
  return false;
}

function nulError(field: FieldMeta, lang: DtLang): CoerceResult {
  return fail(lang, {
    zh: `「${field.title}」的值含有空字符（\\u0000），数据库无法保存，请去掉该字符`,
    en: `the value of "${field.title}" contains a NUL character (\\u0000), which the database cannot store; remove it`,
  });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A field's shortcut inside {@link checkRecord}: the coerced value, or {@link SLOW} when {@link coerceValue} must decide. */
export type FastValue = (v: unknown) => DbValue | typeof SLOW;

/** Marks "the shortcut does not decide this value" (record-validator.ts). */
export const SLOW: unique symbol = Symbol('slow');

/** The fields of a table as {@link checkRecord} walks them, built once per table. */
export interface RecordPlan {
  /** Writable fields by title (system columns are never writable, R-DT-08), each with its shortcut. */
  byTitle: ReadonlyMap<string, { field: FieldMeta; fast: FastValue | null }>;
  /** Fields that must be present and non-empty on insert (R-DT-75). */
  required: readonly FieldMeta[];
}

/** The {@link RecordPlan} of `table`; `fast` gives each field its shortcut (none: every value takes {@link coerceValue}). */
export function recordPlan(table: Pick<TableMeta, 'fields'>, fast?: (field: FieldMeta) => FastValue): RecordPlan {
  const byTitle = new Map<string, { field: FieldMeta; fast: FastValue | null }>();
  for (const f of table.fields) if (!isSystemColumn(f.title)) byTitle.set(f.title, { field: f, fast: fast ? fast(f) : null });
  return { byTitle, required: table.fields.filter((f) => f.required) };
}

/**
 * Validate a whole record against `table`'s fields:
 * unknown keys and the system columns are dropped (R-DT-73, R-DT-08) and listed in `dropped`;
 * every known field is coerced by {@link coerceValue}; in `insert` mode every required field
 * must be present and non-empty (R-DT-75: never in `update` mode).
 * A `data` that is not a plain object yields one error with field "" (R-DT-59).
 * @returns values, errors and dropped keys; write only when `errors` is empty. Never throws.
 */
export function coerceRecord(
  table: Pick<TableMeta, 'fields'>,
  data: unknown,
  opts: { mode: 'insert' | 'update'; lang?: DtLang },
): CoercedRecord {
  return checkRecord(recordPlan(table), data, opts.mode, opts.lang ?? 'zh-CN');
}

/**
 * {@link coerceRecord} over a prepared plan: a field's shortcut, when it has one and decides,
 * gives the value; otherwise {@link coerceValue} does (shortcuts only ever agree with it).
 */
export function checkRecord(plan: RecordPlan, data: unknown, mode: 'insert' | 'update', lang: DtLang): CoercedRecord {
  const values: Record<string, DbValue> = {};
  const out: CoercedRecord = { values, errors: [], dropped: [] };
  if (!isPlainObject(data)) {
    out.errors.push({
      field: '',
      error: lang === 'en' ? 'a record must be one object {field: value}' : '每条记录必须是一个对象 {字段: 值}',
      value: data,
    });
    return out;
  }
  for (const key in data) {
    if (!Object.hasOwn(data, key)) continue;
    const entry = plan.byTitle.get(key);
    if (entry === undefined) {
      out.dropped.push(key);
      continue;
    }
    const raw = data[key];
    const x = entry.fast === null ? SLOW : entry.fast(raw);
    if (x !== SLOW) {
      values[key] = x;
      continue;
    }
    const r = coerceValue(entry.field, raw, lang);
    if (r.ok) values[key] = r.value;
    else out.errors.push({ field: key, error: r.error, value: raw });
  }
  if (mode === 'insert') {
    for (const f of plan.required) {
      if (out.errors.length > 0 && out.errors.some((e) => e.field === f.title)) continue;
      const v = values[f.title];
      if (v === undefined || v === null) {
        out.errors.push({ field: f.title, error: lang === 'en' ? `"${f.title}" is required` : `「${f.title}」是必填字段` });
      }
    }
  }
  return out;
}
