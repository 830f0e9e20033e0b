/**
 * jsonSafe (src/envelope/json-safe.ts) equals the JSON round trip it replaces, on any value.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSafe, jsonSafeOutcome } from '../../src/envelope/json-safe.ts';

const roundTrip = (v: unknown): unknown => {
  const text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  return text === undefined ? null : JSON.parse(text);
};

const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(Number.NaN),
  fc.constant(Number.POSITIVE_INFINITY),
  fc.constant(-0),
  fc.bigInt(),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
  fc.date({ noInvalidDate: true }),
  fc.string().map((s) => new String(s)),
  fc.double().map((n) => new Number(n)),
  fc.boolean().map((b) => new Boolean(b)),
  fc.constant(new Map([[1, 2]])),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    odd,
    fc.array(tie('v')),
    fc.dictionary(fc.string(), tie('v')),
    fc.sparseArray(tie('v')),
  ),
})).v;

describe('jsonSafe', () => {
  it('equals JSON.parse(JSON.stringify(value)) on any value', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(jsonSafe(v, (s) => s)).toStrictEqual(roundTrip(v));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a __proto__ key as an own property, as JSON.parse does', () => {
    const v = JSON.parse('{"__proto__":{"x":1},"a":2}') as Record<string, unknown>;
    const out = jsonSafe(v, (s) => s) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(out).toStrictEqual(JSON.parse(JSON.stringify(v)));
  });

  it('turns a reference to an ancestor into "[circular]" and keeps a shared non-ancestor', () => {
    const shared = { n: 1 };
    const root: Record<string, unknown> = { a: shared, b: shared };
    root.self = root;
    expect(jsonSafe(root, (s) => s)).toStrictEqual({ a: { n: 1 }, b: { n: 1 }, self: '[circular]' });
  });

  it('scrubs every string, keys aside, and a boxed BigInt fails the outcome', () => {
    const scrub = (s: string): string => s.split('sekret-value').join('[redacted]');
    expect(jsonSafe({ k: ['x sekret-value y', new String('sekret-value')] }, scrub)).toStrictEqual({ k: ['x [redacted] y', '[redacted]'] });
    const out = jsonSafeOutcome({ kind: 'returned', value: { n: Object(1n) } }, 'demo', scrub);
    expect(out.kind).toBe('failed');
  });
});
