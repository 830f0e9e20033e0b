/**
 * Make a skill's returned value JSON-safe and free of its secrets before anything else
 * reads it (README.md "The skillgate command": one JSON document; "secrets never shown to a model").
 */
import type { RawOutcome } from './types.ts';

/**
 * A copy of `value` equal to its JSON round trip: BigInt becomes a decimal string, functions/
 * undefined/symbols are dropped as JSON does, a repeated reference to an ancestor (a cycle)
 * becomes `"[circular]"`; every string has `scrub` applied (secret values → `[redacted]`).
 * @returns the safe copy, or a `failed` outcome when the value cannot be serialised at all.
 */
export function jsonSafeOutcome(outcome: RawOutcome, skill: string, scrub: (text: string) => string): RawOutcome {
  if (outcome.kind === 'failed') {
    return {
      ...outcome,
      error: scrub(outcome.error),
      ...(outcome.details ? { details: jsonSafe(outcome.details, scrub) as Record<string, unknown> } : {}),
    };
  }
  try {
    return { kind: 'returned', value: jsonSafe(outcome.value, scrub) };
  } catch (err) {
    return { kind: 'failed', error: `skill "${skill}" returned a value that is not JSON-serialisable: ${(err as Error).message}` };
  }
}

const SKIP = Symbol('skip');

/**
 * `JSON.parse(JSON.stringify(value, replacer))` without the text in between: a walk that copies
 * objects and arrays and keeps strings by reference (a 1 M-character display_md is neither
 * serialised nor parsed; docs/operations-delivery.md "Long replies"). Same rules as the round
 * trip: `toJSON`, boxed primitives, non-finite numbers → null, holes and dropped array items →
 * null, own enumerable string keys in order.
 * @throws TypeError where `JSON.stringify` throws (a boxed BigInt), RangeError on a nesting too deep.
 */
export function jsonSafe(value: unknown, scrub: (text: string) => string): unknown {
  const out = copy('', value, [], scrub);
  return out === SKIP ? null : out;
}

function copy(key: string, input: unknown, ancestors: object[], scrub: (text: string) => string): unknown {
  let v = input;
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') v = toJSON.call(v, key);
  }
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return scrub(v);
  if (typeof v === 'number') return Number.isFinite(v) ? v + 0 : null;
  if (typeof v === 'boolean' || v === null) return v;
  if (typeof v !== 'object') return SKIP; // undefined, function, symbol
  if (v instanceof Number) return Number.isFinite(Number(v)) ? Number(v) + 0 : null;
  if (v instanceof String) return scrub(String(v));
  if (v instanceof Boolean) return v.valueOf();
  if (v instanceof BigInt) throw new TypeError('Do not know how to serialize a BigInt');
  if (ancestors.includes(v)) return '[circular]';
  ancestors.push(v);
  try {
    if (Array.isArray(v)) {
      const arr: unknown[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const item = copy(String(i), v[i], ancestors, scrub);
        arr[i] = item === SKIP ? null : item;
      }
      return arr;
    }
    const obj: Record<string, unknown> = {};
    const src = v as Record<string, unknown>;
    for (const k of Object.keys(src)) {
      const item = copy(k, src[k], ancestors, scrub);
      if (item === SKIP) continue;
      if (k === '__proto__') Object.defineProperty(obj, k, { value: item, enumerable: true, writable: true, configurable: true });
      else obj[k] = item;
    }
    return obj;
  } finally {
    ancestors.pop();
  }
}
