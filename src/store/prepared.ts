/**
 * Named prepared statements for the texts a process runs again and again (the inbox INSERT,
 * the reply's outbox statement, the delivery mark …). The second time a text is run it gets a
 * name; from then on each connection parses and plans it once instead of on every execution
 * (PostgreSQL's Parse step is most of the cost of a short statement, and on the embedded
 * engine it runs on the gateway's own thread). See docs/performance.md.
 *
 * Texts seen once (datatable SQL with literals, DDL) are never named; a named statement that
 * the server refuses after a schema change (`cached plan must not change result type`) is run
 * once more unnamed and not named again.
 */

/** Longest text that is named (longer ones are rare and run unnamed). */
const MAX_TEXT = 16_384;
/** Most names per process; past this texts run unnamed. */
const MAX_NAMES = 400;
/** Texts counted before naming; the count is reset when full. */
const MAX_SEEN = 5_000;

const names = new Map<string, string>();
const seen = new Set<string>();
const refused = new Set<string>();
let next = 0;

/**
 * The statement name for `text`, or undefined when it should run unnamed (its first run,
 * DDL or transaction control, too long, or refused before).
 */
export function statementName(text: string): string | undefined {
  const named = names.get(text);
  if (named !== undefined) return named;
  if (text.length > MAX_TEXT || names.size >= MAX_NAMES || refused.has(text) || !namable(text)) return undefined;
  if (!seen.has(text)) {
    if (seen.size >= MAX_SEEN) seen.clear();
    seen.add(text);
    return undefined;
  }
  seen.delete(text);
  const name = `sg_${(++next).toString(36)}`;
  names.set(text, name);
  return name;
}

/** Run `text` unnamed from now on (the server refused its named form). */
export function forgetStatement(text: string): void {
  names.delete(text);
  refused.add(text);
}

/** True for an error that a fresh, unnamed Parse of the same text would not hit. */
export function isStalePlan(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // 0A000: cached plan must not change result type; 26000: prepared statement does not exist.
  return code === '0A000' || code === '26000';
}

/** Only statements that read or write rows: not DDL, SET, LISTEN, transaction control. */
function namable(text: string): boolean {
  const head = text.trimStart().slice(0, 8).toUpperCase();
  return (
    head.startsWith('SELECT') ||
    head.startsWith('INSERT') ||
    head.startsWith('UPDATE') ||
    head.startsWith('DELETE') ||
    head.startsWith('WITH')
  );
}
