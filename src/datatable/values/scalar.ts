/**
 * Scalar value rules (R-DT-68..71, A-35): numbers (full-width digits,
 * thousands commas, no magnitude words, integers without decimals) and ISO dates, date-times
 * and times, plus the tests for the canonical forms these rules return unchanged (the fast
 * paths of record-validator.ts). Used by coerce.ts; pure functions.
 */
import type { FieldMeta } from '../model/types.ts';
import type { Bilingual, DtLang } from '../model/results.ts';

/** A value ready to be sent as a query parameter. */
export type DbValue = string | boolean | string[] | null;

/** Result of coerceValue (coerce.ts) and of the scalar coercions here: the parameter, or a recoverable error text. */
export type CoerceResult = { ok: true; value: DbValue } | { ok: false; error: string };

/** The range of a 整数 column (PostgreSQL bigint). */
export const BIGINT_MIN = -(2n ** 63n);
export const BIGINT_MAX = 2n ** 63n - 1n;

function fail(lang: DtLang, m: Bilingual): CoerceResult {
  return { ok: false, error: lang === 'en' ? m.en : m.zh };
}

/**
 * Full-width to half-width for the characters numbers, dates and times are written with
 * (０-９ ， ． ＋ － − ： and the ideographic space) — R-DT-68.
 */
export function toHalfWidth(s: string): string {
  return s
    .replace(/[\uff10-\uff19]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xff10 + 0x30))
    .replace(/\uff0c/g, ',')
    .replace(/\uff0e/g, '.')
    .replace(/\uff0b/g, '+')
    .replace(/[\uff0d\u2212]/g, '-')
    .replace(/\uff1a/g, ':')
    .replace(/\u3000/g, ' ');
}

/** Magnitude words that must never be converted (R-DT-69): 万 亿 千 (and traditional forms), k, M, bn, w. */
const MAGNITUDE = /[万萬亿億千仟百佰]|\d\s*(?:k|m|bn|b|w|mm)\s*$/i;

/** Expand a JS number's exponent form ("1.5e-7") into plain decimal digits. */
function plainNumberText(n: number): string {
  const s = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(s);
  if (!m) return s;
  const [, sign, intPart, frac = '', expText] = m;
  const exp = Number(expText);
  const digits = intPart! + frac;
  const point = intPart!.length + exp;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A parsed decimal: sign, integer digits without leading zeros ("" for 0), fraction digits. */
interface Decimal {
  negative: boolean;
  int: string;
  frac: string;
}

const NUMBER_RE = /^([+-])?(?:(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?|\.(\d+))$/;

/**
 * Parse number text: full-width digits converted, thousands separators `1,234,567` accepted
 * (only in groups of three), magnitude words refused (R-DT-68/69). Exponents, currency signs,
 * percent signs and units are refused too.
 */
function parseDecimal(raw: string, lang: DtLang): { ok: true; d: Decimal } | { ok: false; error: string } {
  const s = toHalfWidth(raw).trim();
  if (MAGNITUDE.test(s)) {
    const r = fail(lang, {
      zh: `「${raw}」含数量级词（万/亿/千/k/M/bn），不会自动换算，请写出完整数字（例如 30000）`,
      en: `"${raw}" contains a magnitude word (万/亿/千/k/M/bn); it is never converted — write the full number (e.g. 30000)`,
    });
    return r as { ok: false; error: string };
  }
  const m = NUMBER_RE.exec(s);
  if (!m) {
    return fail(lang, {
      zh: `「${raw}」不是有效数字（只允许数字、小数点、负号和千分位逗号）`,
      en: `"${raw}" is not a number (digits, one decimal point, a sign and thousands commas only)`,
    }) as { ok: false; error: string };
  }
  const intDigits = (m[2] ?? '').replace(/,/g, '').replace(/^0+/, '');
  const frac = (m[3] ?? m[4] ?? '').replace(/0+$/, '');
  return { ok: true, d: { negative: m[1] === '-' && (intDigits !== '' || frac !== ''), int: intDigits, frac } };
}

function decimalText(d: Decimal): string {
  return `${d.negative ? '-' : ''}${d.int === '' ? '0' : d.int}${d.frac ? '.' + d.frac : ''}`;
}

function numberInput(value: unknown, lang: DtLang): { ok: true; d: Decimal } | { ok: false; error: string } {
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      return fail(lang, { zh: `${value} 不是有限数字`, en: `${value} is not a finite number` }) as { ok: false; error: string };
    return parseDecimal(plainNumberText(value), lang);
  }
  if (typeof value === 'bigint') return parseDecimal(value.toString(), lang);
  if (typeof value === 'string') return parseDecimal(value, lang);
  return fail(lang, { zh: `需要数字，收到 ${JSON.stringify(value)}`, en: `a number is required, got ${JSON.stringify(value)}` }) as {
    ok: false;
    error: string;
  };
}

/** 整数 (R-DT-68..70): exact decimal text within the bigint range; a decimal is refused. */
export function coerceInteger(value: unknown, lang: DtLang): CoerceResult {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return fail(lang, {
      zh: `${value} 超出可精确表示的范围，请以字符串传入`,
      en: `${value} is beyond exact JSON number precision; pass it as a string`,
    });
  }
  const p = numberInput(value, lang);
  if (!p.ok) return p;
  if (p.d.frac !== '') {
    return fail(lang, { zh: `整数字段不接受小数：${String(value)}`, en: `an integer field does not accept a decimal: ${String(value)}` });
  }
  const text = decimalText(p.d);
  const big = BigInt(text);
  if (big < BIGINT_MIN || big > BIGINT_MAX) return fail(lang, { zh: `${text} 超出整数范围`, en: `${text} is out of the integer range` });
  return { ok: true, value: text };
}

/**
 * Most fraction digits a 数字 value may carry (PostgreSQL's numeric input stops at 16383 with
 * SQLSTATE 22003 before the column's scale would round it; far below that is plenty).
 */
export const MAX_FRACTION_DIGITS = 1000;

/** 数字 (R-DT-68/69): exact decimal text within precision − scale integer digits, at most {@link MAX_FRACTION_DIGITS} decimals. */
export function coerceNumber(field: FieldMeta, value: unknown, lang: DtLang): CoerceResult {
  const p = numberInput(value, lang);
  if (!p.ok) return p;
  const precision = field.precision ?? 38;
  const scale = field.scale ?? 2;
  if (p.d.frac.length > MAX_FRACTION_DIGITS) {
    return fail(lang, {
      zh: `${String(value).slice(0, 40)}… 的小数位过多（超过 ${MAX_FRACTION_DIGITS} 位），请先四舍五入到 ${scale} 位小数`,
      en: `${String(value).slice(0, 40)}… has more than ${MAX_FRACTION_DIGITS} decimals; round it to ${scale} decimals first`,
    });
  }
  if (p.d.int.length > precision - scale) {
    return fail(lang, {
      zh: `${String(value)} 超出字段精度（最多 ${precision - scale} 位整数、${scale} 位小数）`,
      en: `${String(value)} exceeds the field's precision (${precision - scale} integer digits, ${scale} decimals at most)`,
    });
  }
  return { ok: true, value: decimalText(p.d) };
}

/** Days of each month in a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Year `y` ≥ 1, month `mo`, day `d` name a real day (proleptic Gregorian calendar). */
function validDate(y: number, mo: number, d: number): boolean {
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  if (mo === 2 && d === 29) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= MONTH_DAYS[mo - 1]!;
}

/** The two characters of `s` at `i` as a number 0–99, or -1 when they are not both ASCII digits. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** `HH:MM:SS` at `i` of `s` (colons at i+2 and i+5) within 23:59:59. */
function clockAt(s: string, i: number): boolean {
  if (s.charCodeAt(i + 2) !== 58 || s.charCodeAt(i + 5) !== 58) return false;
  const h = two(s, i);
  const mi = two(s, i + 3);
  const sec = two(s, i + 6);
  return h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59;
}

/** `YYYY-MM-DD` at the start of `s` naming a real day. */
function ymdAt(s: string): boolean {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return false;
  const hi = two(s, 0);
  const lo = two(s, 2);
  const mo = two(s, 5);
  const d = two(s, 8);
  return hi >= 0 && lo >= 0 && mo >= 0 && d >= 0 && validDate(hi * 100 + lo, mo, d);
}

/** `v` is a canonical 日期 (`YYYY-MM-DD`, a real day): {@link coerceDateLike} returns it unchanged. */
export function isCanonicalDate(v: string): boolean {
  return v.length === 10 && ymdAt(v);
}

/** `v` is a canonical 时间 (`HH:MM:SS`): {@link coerceDateLike} returns it unchanged. */
export function isCanonicalTime(v: string): boolean {
  return v.length === 8 && clockAt(v, 0);
}

/**
 * The 日期时间 parameter of `v` when `v` is `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DDTHH:MM:SS` (a
 * real day and time): the same text with a space, exactly what {@link coerceDateLike} returns;
 * else null (the full rule decides).
 */
export function canonicalDateTime(v: string): string | null {
  if (v.length !== 19 || !ymdAt(v) || !clockAt(v, 11)) return null;
  const sep = v.charCodeAt(10);
  return sep === 32 ? v : sep === 84 ? `${v.slice(0, 10)} ${v.slice(11)}` : null;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

function timeText(h: string, mi: string, s: string | undefined, f: string | undefined): string | null {
  if (Number(h) > 23 || Number(mi) > 59 || Number(s ?? '0') > 59) return null;
  return `${h}:${mi}:${s ?? '00'}${f ?? ''}`;
}

/** An ISO offset as PostgreSQL reads it (`Z` → `+00:00`, `+0800` → `+08:00`); "" for none. */
function offsetText(o: string | undefined): string {
  if (!o) return '';
  if (o.toUpperCase() === 'Z') return '+00:00';
  const digits = o.slice(1).replace(':', '');
  return `${o[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
}

/** 日期 / 日期时间 / 时间 in ISO form (R-DT-71, A-35) → `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.f]`, `HH:MM:SS[.f]`. */
export function coerceDateLike(field: FieldMeta, value: unknown, lang: DtLang): CoerceResult {
  const formats: Record<string, Bilingual> = {
    日期: { zh: 'YYYY-MM-DD（如 2026-01-02）', en: 'YYYY-MM-DD (e.g. 2026-01-02)' },
    日期时间: { zh: 'YYYY-MM-DD HH:MM[:SS]（如 2026-01-02 09:30，可用 T 分隔）', en: 'YYYY-MM-DD HH:MM[:SS] (e.g. 2026-01-02T09:30)' },
    时间: { zh: 'HH:MM[:SS]（如 09:30）', en: 'HH:MM[:SS] (e.g. 09:30)' },
  };
  const fmt = formats[field.uidt]!;
  const bad = (): CoerceResult =>
    fail(lang, { zh: `「${String(value)}」不是 ISO 格式，应为 ${fmt.zh}`, en: `"${String(value)}" is not ISO; use ${fmt.en}` });
  if (typeof value !== 'string') return bad();
  const s = toHalfWidth(value).trim();
  if (field.uidt === '时间') {
    const m = TIME_RE.exec(s);
    const text = m ? timeText(m[1]!, m[2]!, m[3], m[4]) : null;
    return text ? { ok: true, value: text } : bad();
  }
  if (field.uidt === '日期') {
    const m = DATE_RE.exec(s);
    return m && validDate(Number(m[1]), Number(m[2]), Number(m[3])) ? { ok: true, value: s } : bad();
  }
  const m = DATETIME_RE.exec(s);
  if (!m || !validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return bad();
  const date = `${m[1]}-${m[2]}-${m[3]}`;
  if (m[4] === undefined) return { ok: true, value: `${date} 00:00:00` };
  const time = timeText(m[4], m[5]!, m[6], m[7]);
  // The column is timestamptz: an offset names the instant; a wall-clock time without
  // one is read in the caller's zone (the transaction's TimeZone), so it reads back as written.
  return time ? { ok: true, value: `${date} ${time}${offsetText(m[8])}` } : bad();
}
