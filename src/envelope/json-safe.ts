/**
 * Make a skill's returned value JSON-safe and free of its secrets before anything else
 * reads it (README.md "The skillgate command": one JSON document; "secrets never shown to a model").
 */
import type { RawOutcome } from './types.ts';

/**
 * A JSON round trip of `value`: BigInt becomes a decimal string, functions/undefined/symbols
 * are dropped as JSON does, a repeated reference to an ancestor (a cycle) becomes
 * `"[circular]"`; every string has `scrub` applied (secret values → `[redacted]`).
 * @returns the safe copy, or a `failed` outcome when the value cannot be serialised at all.
 */
export function jsonSafeOutcome(outcome: RawOutcome, skill: string, scrub: (text: string) => string): RawOutcome {
  if (outcome.kind === 'failed') {
    return {
      ...outcome,
      error: scrub(outcome.error),
      ...(outcome.details ? { details: safe(outcome.details, scrub) as Record<string, unknown> } : {}),
    };
  }
  try {
    return { kind: 'returned', value: safe(outcome.value, scrub) };
  } catch (err) {
    return { kind: 'failed', error: `skill "${skill}" returned a value that is not JSON-serialisable: ${(err as Error).message}` };
  }
}

function safe(value: unknown, scrub: (text: string) => string): unknown {
  const stack: unknown[] = [];
  const text = JSON.stringify(value, function (this: unknown, _key, v: unknown) {
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'string') return scrub(v);
    if (typeof v === 'object' && v !== null) {
      while (stack.length > 0 && stack[stack.length - 1] !== this) stack.pop();
      if (stack.includes(v)) return '[circular]';
      stack.push(v);
    }
    return v;
  });
  return text === undefined ? null : JSON.parse(text);
}
