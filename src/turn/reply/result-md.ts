/**
 * A compact, readable markdown rendering of a skill's result for the user when no model
 * words it (command planner; README.md "Start"): an array of flat records (≤ 20 rows) as a
 * table, anything else as fenced JSON truncated to ~3000 characters with a note. Platform
 * internals never shown: `artifacts`/`artifact_errors`, `local_path`, `error_type`, stack
 * traces, display fields, `for_user`, confirmation plumbing, `_`-prefixed keys.
 */
import { t, type Lang } from './text.ts';

/** Top-level envelope keys that are platform or model plumbing, never rendered as data. */
export const INTERNAL_KEYS: ReadonlySet<string> = new Set([
  'success', 'ok', 'error', 'error_type', 'non_retriable', 'need_param', 'redirect', 'action_note',
  'user_message', 'display_md', 'display_only', 'artifacts', 'artifact_errors', 'for_user',
  'confirm_token', 'expires_in_s', 'expires_at', 'need_confirm', 'message', 'summary', 'stack',
  'traceback', 'offloaded', 'local_path',
]);

/** Keys dropped at any depth. */
const DEEP_HIDDEN = new Set(['local_path', 'stack', 'traceback', 'stack_trace']);

/** Most rows rendered as a table. */
export const MAX_TABLE_ROWS = 20;
/** Longest JSON shown, in UTF-16 units, before truncation. */
export const MAX_JSON_CHARS = 3000;

/** `v` without hidden keys (recursively), cycles cut. */
export function scrub(v: unknown, seen = new WeakSet<object>()): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (seen.has(v)) return '[cycle]';
  seen.add(v);
  if (Array.isArray(v)) return v.map((x) => scrub(x, seen));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (DEEP_HIDDEN.has(k) || k.startsWith('_')) continue;
    out[k] = scrub(x, seen);
  }
  return out;
}

/** Escape text so markdown shows it literally (inline context; newlines become spaces). */
export function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

function isScalar(v: unknown): boolean {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

function isFlatRecords(v: unknown): v is Record<string, unknown>[] {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.length <= MAX_TABLE_ROWS &&
    v.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r) && Object.values(r).every(isScalar))
  );
}

function cell(v: unknown): string {
  return v === null || v === undefined ? '' : escapeMarkdown(String(v));
}

/** A markdown table of flat records (columns in first-seen order). */
export function recordsTable(rows: Record<string, unknown>[]): string {
  const cols: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  return [
    `| ${cols.map(escapeMarkdown).join(' | ')} |`,
    `| ${cols.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${cols.map((c) => cell(r[c])).join(' | ')} |`),
  ].join('\n');
}

/** Fenced JSON, truncated to {@link MAX_JSON_CHARS} with a note. */
export function fencedJson(v: unknown, lang: Lang): string {
  const json = JSON.stringify(v, null, 2) ?? 'null';
  const shown = json.length > MAX_JSON_CHARS ? `${json.slice(0, MAX_JSON_CHARS)}\n…` : json;
  const longest = Math.max(2, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const note = json.length > MAX_JSON_CHARS ? `\n\n${t(lang, 'truncated', { n: json.length })}` : '';
  return `${fence}json\n${shown}\n${fence}${note}`;
}

/**
 * The data part of an envelope rendered for the user: `data`/`result` when that is the
 * payload, else the envelope without internal keys. "" when nothing remains.
 */
export function renderResultMd(envelope: Record<string, unknown>, lang: Lang): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(envelope)) {
    if (!INTERNAL_KEYS.has(k) && !k.startsWith('_')) rest[k] = v;
  }
  const keys = Object.keys(rest);
  if (keys.length === 0) return '';
  const payload = scrub(keys.length === 1 && (keys[0] === 'data' || keys[0] === 'result') ? rest[keys[0]] : rest);
  if (payload === null || payload === undefined) return '';
  if (isScalar(payload)) return escapeMarkdown(String(payload));
  if (isFlatRecords(payload)) return recordsTable(payload);
  if (!Array.isArray(payload) && typeof payload === 'object') {
    // { rows: [...] } / { items: [...] } with only scalars beside: fields as lines + a table.
    const entries = Object.entries(payload as Record<string, unknown>);
    const tables = entries.filter(([, v]) => isFlatRecords(v));
    if (tables.length === 1 && entries.every(([, v]) => isScalar(v) || isFlatRecords(v))) {
      const lines = entries.filter(([, v]) => isScalar(v)).map(([k, v]) => `- ${escapeMarkdown(k)}: ${cell(v)}`);
      return [...(lines.length ? [lines.join('\n')] : []), recordsTable(tables[0]![1] as Record<string, unknown>[])].join('\n\n');
    }
    if (entries.length <= 12 && entries.every(([, v]) => isScalar(v))) {
      return entries.map(([k, v]) => `- ${escapeMarkdown(k)}: ${cell(v)}`).join('\n');
    }
  }
  return fencedJson(payload, lang);
}
