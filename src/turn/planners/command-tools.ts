/**
 * Tool lookup for the command planner (README.md "Start"): exact name first, then with `-` and
 * `_` treated alike and case ignored (Telegram commands cannot contain `-`, so
 * `/repair_ticket` finds `repair-ticket`); close matches for an unknown name.
 */
import type { ModelTool } from '../../registry/types.ts';

/** The comparison form of a typed or registered name. */
export function normalizeToolName(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}

/** The outcome of resolving a typed name. */
export type ToolLookup =
  | { kind: 'found'; tool: ModelTool }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'unknown'; suggestions: string[] };

/** Levenshtein distance (small strings only). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** Resolve `typed` against `tools`; unknown → up to 5 close names (edit distance ≤ 3 or substring). */
export function lookupTool(typed: string, tools: ModelTool[]): ToolLookup {
  const exact = tools.find((t) => t.function.name === typed);
  if (exact) return { kind: 'found', tool: exact };
  const norm = normalizeToolName(typed);
  const same = tools.filter((t) => normalizeToolName(t.function.name) === norm);
  if (same.length === 1) return { kind: 'found', tool: same[0]! };
  if (same.length > 1) return { kind: 'ambiguous', candidates: same.map((t) => t.function.name) };
  const scored = tools
    .map((t) => {
      const n = normalizeToolName(t.function.name);
      const d = n.includes(norm) || norm.includes(n) ? 0.5 : distance(n, norm);
      return { name: t.function.name, d };
    })
    .filter((x) => x.d <= Math.min(3, Math.max(1, Math.floor(norm.length / 2))))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return { kind: 'unknown', suggestions: scored.slice(0, 5).map((x) => x.name) };
}
