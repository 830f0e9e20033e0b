import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCached } from '../../src/registry/inspect/parse-cache.ts';
import { scanHandler } from '../../src/registry/inspect/index.ts';
import { declaredParamCount } from '../../src/executor/binder.ts';

describe('parse cache (src/registry/inspect/parse-cache.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-parse-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('computes a text once: a second call with the same kind and text returns the stored value without computing', () => {
    const text = `text ${randomBytes(8).toString('hex')}`;
    let calls = 0;
    const compute = () => (calls++, { n: 1, list: ['a'], nested: { ok: true } });
    expect(parseCached('test-kind', text, compute)).toEqual({ n: 1, list: ['a'], nested: { ok: true } });
    expect(parseCached('test-kind', text, compute)).toEqual({ n: 1, list: ['a'], nested: { ok: true } });
    expect(calls).toBe(1);
    // another text, or the same text for another purpose, is computed again
    expect(parseCached('test-kind', `${text}!`, () => 'other')).toBe('other');
    expect(parseCached('other-kind', text, () => 'second kind')).toBe('second kind');
  });

  it('a handler edited on disk is scanned again, never served from the cache of its old text', async () => {
    const file = join(dir, `handler_${randomBytes(4).toString('hex')}.ts`);
    writeFileSync(file, 'export async function execute(input: unknown) { return input; }\n');
    const first = await scanHandler(file);
    expect((await scanHandler(file)).inspection).toEqual(first.inspection);
    expect(first.inspection.entry?.name).toBe('execute');
    expect(first.inspection.entry?.params.map((p) => p.name)).toEqual(['input']);
    writeFileSync(file, 'export function run(a: unknown, ctx = {}) { return [a, ctx]; }\n');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const edited = await scanHandler(file);
    expect(edited.inspection.entry?.name).toBe('run');
    expect(edited.inspection.entry?.params.map((p) => [p.name, p.hasDefault])).toEqual([
      ['a', false],
      ['ctx', true],
    ]);
  });

  it('a cached parameter count keeps a rest parameter (Infinity) and a defaulted one', () => {
    const tag = randomBytes(4).toString('hex');
    // new function objects with the same source text: the per-function memo misses, the disk cache hits
    const rest = () => new Function(`return (...args_${tag}) => args_${tag}`)() as (...a: never[]) => unknown;
    const defaulted = () => new Function(`return function (input_${tag}, ctx = {}) { return ctx; }`)() as (...a: never[]) => unknown;
    expect(declaredParamCount(rest())).toBe(Infinity);
    expect(declaredParamCount(rest())).toBe(Infinity);
    expect(declaredParamCount(defaulted())).toBe(2);
    expect(declaredParamCount(defaulted())).toBe(2);
  });
});
