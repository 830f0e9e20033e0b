/**
 * A readable markdown rendering of a skill's result for the user when no model words it and
 * the skill gave no `display_md` (docs/results.md "How a result is shown"): rendered from the
 * result's shape by src/present/shape.ts. Platform internals never shown: `artifacts` /
 * `artifact_errors`, `local_path`, `error_type`, stack traces, display fields, `for_user`,
 * confirmation plumbing, `_`-prefixed keys, internal columns (schema, qualified, pageInfo…).
 */
import { ENVELOPE_CONTROL_KEYS } from '../../envelope/types.ts';
import { escapeMarkdown } from '../../present/cells.ts';
import { renderShape } from '../../present/shape.ts';
import type { Lang } from './text.ts';

export { escapeMarkdown };

/** Top-level envelope keys that are platform or model plumbing, never rendered as data. */
export const INTERNAL_KEYS: ReadonlySet<string> = new Set([
  ...ENVELOPE_CONTROL_KEYS,
  'for_user',
  'expires_in_s',
  'expires_at',
  'message',
  'summary',
  'stack',
  'traceback',
]);

/** Keys dropped at any depth. */
const DEEP_HIDDEN = new Set(['local_path', 'stack', 'traceback', 'stack_trace']);

/** `v` without hidden keys (recursively), cycles cut. */
export function scrub(v: unknown, seen = new WeakSet<object>()): unknown {
  if (v === null || typeof v !== 'object' || v instanceof Date) return v;
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
  return renderShape(payload, { lang });
}
