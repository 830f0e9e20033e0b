/**
 * One value as a person reads it (docs/results.md "How a result is shown"): numbers grouped
 * for the locale (ids and codes kept as written), money with its decimals, instants in the
 * organisation's time zone ({@link formatInstant}), yes/no for booleans, lists joined, long
 * text cut at a word or character boundary, never inside a character. Markdown-escaped.
 */
import { formatInstant, parseInstant } from './clock.ts';

/** Language of shown text. */
export type ShowLang = 'zh-CN' | 'en';

/** What is known about a column beyond its values (a data table's field type). */
export interface ColumnHint {
  /** `number` with `scale` = fixed decimals (money, 金额); `id` = shown as written. */
  kind?: 'number' | 'id' | 'text';
  scale?: number | null;
}

/** How cells are written. */
export interface CellOptions {
  lang: ShowLang;
  /** IANA zone for instants (default: the organisation's, {@link formatInstant}). */
  timeZone?: string;
  /** Longest cell, in characters (graphemes), before it is cut with `…`. */
  maxChars?: number;
}

/** Escape text so markdown shows it literally (inline; newlines become spaces). */
export function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

const ID_NAME_RE = /(^|_)(id|uuid|no|code|key)$|^id_|(编号|号|代码|工号|ID)$/i;

/** True when a column named `name` holds identifiers (shown as written, never grouped). */
export function isIdColumn(name: string): boolean {
  return ID_NAME_RE.test(name);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** `s` cut to `max` graphemes with `…`; a Latin word is not cut in the middle when a space is near. */
export function cutText(s: string, max: number): string {
  const flat = s.replace(/\s*\r?\n\s*/g, ' ');
  const parts = [...graphemes.segment(flat)].map((g) => g.segment);
  if (parts.length <= max) return flat;
  let head = parts.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  if (/[A-Za-z0-9]$/.test(head) && /^[A-Za-z0-9]/.test(parts[max - 1] ?? '') && space >= head.length - 15 && space > 0)
    head = head.slice(0, space);
  return `${head.trimEnd()}…`;
}

const numberFormats = new Map<string, Intl.NumberFormat>();

/** `n` for the locale: grouped; `scale` fixed decimals, else up to 6. */
export function formatNumber(n: number, lang: ShowLang, scale?: number | null): string {
  const key = `${lang}|${scale ?? ''}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(
      lang,
      typeof scale === 'number' ? { minimumFractionDigits: scale, maximumFractionDigits: scale } : { maximumFractionDigits: 6 },
    );
    numberFormats.set(key, f);
  }
  return f.format(n);
}

/** The plain (unescaped) text of one value. */
export function plainValue(v: unknown, hint: ColumnHint, opts: CellOptions): string {
  if (v === null || v === undefined || v === '') return '';
  if (v instanceof Date) return formatInstant(v, opts.timeZone);
  if (typeof v === 'boolean') return opts.lang === 'en' ? (v ? 'yes' : 'no') : v ? '是' : '否';
  if (typeof v === 'number') return hint.kind === 'id' || !Number.isFinite(v) ? String(v) : formatNumber(v, opts.lang, hint.scale);
  if (typeof v === 'string') {
    const at = parseInstant(v);
    if (at) return formatInstant(at, opts.timeZone);
    if (hint.kind === 'number' && typeof hint.scale === 'number' && /^-?\d+(\.\d+)?$/.test(v))
      return formatNumber(Number(v), opts.lang, hint.scale);
    return v;
  }
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object'))
    return v.map((x) => plainValue(x, {}, opts)).join(opts.lang === 'en' ? ', ' : '、');
  return JSON.stringify(v) ?? '';
}

/** One value as an escaped markdown cell, cut to `maxChars` (default 40). */
export function cell(v: unknown, hint: ColumnHint, opts: CellOptions): string {
  return escapeMarkdown(cutText(plainValue(v, hint, opts), opts.maxChars ?? 40));
}
