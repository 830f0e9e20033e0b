/**
 * The inbound fuzz test of the contract: at least 1000 mutated payloads per channel to
 * the webhook → no crash, no unhandled rejection, every response 2xx (ignored/accepted) or 4xx
 * (refused). Seeds are the golden inbound bodies and generated events; most mutants are signed
 * validly (so they reach the parser and the normalizer), some are not.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inboundBody, loadInboundCases } from './cases.ts';
import { nextSeq, type Bed } from './harness.ts';
import { prng } from './outbound-checks.ts';
import type { AdapterContractOptions } from './types.ts';

const WEIRD: unknown[] = [
  null,
  true,
  0,
  -1,
  1e308,
  2 ** 53 + 1,
  '',
  ' ',
  '😀',
  '\u0000',
  '\ud800',
  '<b>&amp;',
  'a'.repeat(5000),
  [],
  {},
  [null],
  { '': '' },
];

function pick<T>(rnd: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rnd() * xs.length)]!;
}

/** Every (parent, key) in a JSON value. */
function slots(v: unknown, out: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = []) {
  if (Array.isArray(v))
    v.forEach((x, i) => {
      out.push({ parent: v, key: i });
      slots(x, out);
    });
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) out.push({ parent: v as Record<string, unknown>, key: k }), slots(x, out);
  return out;
}

/** One structural or byte-level mutation of `seed` (deterministic given `rnd`). */
export function mutate(seed: Buffer, rnd: () => number): Buffer {
  const r = rnd();
  if (r < 0.15) {
    // byte level: flip, truncate, or splice
    const b = Buffer.from(seed);
    const k = Math.floor(rnd() * 3);
    if (k === 0 && b.length) {
      const at = Math.floor(rnd() * b.length);
      b[at] = b[at]! ^ (1 << Math.floor(rnd() * 8));
    } else if (k === 1) return b.subarray(0, Math.floor(rnd() * b.length));
    else return Buffer.concat([b, Buffer.from(pick(rnd, ['}', ']', ',', '\uFFFD', '\u0000', '"']))]);
    return b;
  }
  let v: unknown;
  try {
    v = JSON.parse(seed.toString('utf8'));
  } catch {
    return seed;
  }
  const n = 1 + Math.floor(rnd() * 3);
  for (let i = 0; i < n; i++) {
    const all = slots(v);
    if (all.length === 0) return Buffer.from(JSON.stringify(structuredClone(pick(rnd, WEIRD))));
    const s = pick(rnd, all);
    const op = rnd();
    const parent = s.parent as Record<string | number, unknown>;
    if (op < 0.35) parent[s.key] = structuredClone(pick(rnd, WEIRD));
    else if (op < 0.6) {
      if (Array.isArray(s.parent)) s.parent.splice(Number(s.key), 1);
      else delete parent[s.key];
    } else if (op < 0.75)
      parent[s.key] =
        typeof parent[s.key] === 'string'
          ? `${parent[s.key] as string}${pick(rnd, ['@', '/', '😀', ' ', '@x_bot'])}`
          : String(parent[s.key]);
    else if (op < 0.9) parent[s.key] = typeof parent[s.key] === 'number' ? -(parent[s.key] as number) : [parent[s.key]];
    else {
      const other = pick(rnd, all);
      parent[s.key] = JSON.parse(JSON.stringify((other.parent as Record<string | number, unknown>)[other.key] ?? null)) as unknown;
    }
  }
  return Buffer.from(JSON.stringify(v) ?? 'null', 'utf8');
}

/** Register the fuzz test. */
export function registerFuzz(opts: AdapterContractOptions, bed: () => Bed): void {
  const iterations = Math.max(1000, opts.fuzz?.iterations ?? 1000);
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => void rejections.push(reason);
  beforeAll(() => void process.on('unhandledRejection', onRejection));
  afterAll(() => void process.off('unhandledRejection', onRejection));

  it(`${iterations} mutated inbound payloads → only 2xx/4xx, no throw, no unhandled rejection`, async () => {
    const b = bed();
    const rnd = prng(opts.fuzz?.seed ?? 20261201);
    const seeds: Buffer[] = loadInboundCases(opts.casesDir)
      .filter((c) => c.expected.action !== 'reject' && c.sign !== false)
      .map((c) => inboundBody(c));
    for (let i = 0; i < 8; i++) {
      const m = opts.generators.message({
        seq: nextSeq(),
        text: `fuzz ${i} /cmd 😀`,
        chat: i % 2 ? 'group' : 'direct',
        sender: 'user',
        address: i % 4 < 2 ? 'mention' : 'none',
      });
      if (m) seeds.push(m);
    }
    seeds.push(opts.generators.buttonPress({ seq: nextSeq(), data: 'confirm:tok_fuzz', chatId: '1', actorId: '1' }));
    seeds.push(opts.generators.ignoredEvent(nextSeq()));
    const statuses = new Map<number, number>();
    const batch = 8;
    for (let i = 0; i < iterations; i += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, iterations - i) }, async () => {
          const body = mutate(pick(rnd, seeds), rnd);
          const signed = rnd() < 0.85;
          let status: number;
          try {
            status = (await b.deliver(body, { signed })).status;
          } catch (err) {
            throw new Error(`webhook threw on ${body.toString('utf8').slice(0, 300)}: ${(err as Error).message}`);
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status < 200 || status >= 500 || (status >= 300 && status < 400)) {
            throw new Error(`status ${status} for ${body.toString('utf8').slice(0, 300)}`);
          }
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(rejections).toEqual([]);
    const total = [...statuses.values()].reduce((a, c) => a + c, 0);
    expect(total).toBe(iterations);
    expect(statuses.get(401) ?? 0, 'some unsigned mutants were refused').toBeGreaterThan(0);
    expect(statuses.get(200) ?? 0, 'some mutants got through').toBeGreaterThan(0);
  });
}
