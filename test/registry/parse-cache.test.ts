import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCached } from '../../src/registry/inspect/parse-cache.ts';
import { scanHandler } from '../../src/registry/inspect/index.ts';
import { declaredParamCount } from '../../src/executor/binder.ts';
import { splitSkillMd } from '../../src/registry/frontmatter.ts';

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

  it('a handler.py that parsed is served from the cache without starting python3; an edit, a syntax error or another PATH is inspected again', async () => {
    const file = join(dir, `handler_${randomBytes(4).toString('hex')}.py`);
    writeFileSync(file, 'async def execute(input_data, runtime_context):\n    return {"ok": True}\n');
    // a python3 on PATH that counts its starts, then runs the real one
    const bin = mkdtempSync(join(tmpdir(), 'sg-py-shim-'));
    const starts = join(bin, 'starts');
    const real = execFileSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'python3'), `#!/bin/sh\necho x >> "${starts}"\nexec "${real}" "$@"\n`, { mode: 0o755 });
    const count = (): number => (existsSync(starts) ? readFileSync(starts, 'utf8').split('\n').filter(Boolean).length : 0);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const first = await scanHandler(file);
      expect(first.inspection).toMatchObject({ language: 'python', parsed: true, entry: { name: 'execute' } });
      expect(first.inspection.unavailable).toBeUndefined();
      const started = count();
      expect(started).toBeGreaterThan(0);
      expect(await scanHandler(file)).toEqual(first);
      expect(count()).toBe(started); // served from the cache
      writeFileSync(file, 'def run(input_data):\n    return {}\n');
      expect((await scanHandler(file)).inspection.entry?.name).toBe('run'); // an edited file is inspected again
      // a syntax error is not kept: a later interpreter may read the same text
      writeFileSync(file, 'def broken(:\n');
      expect((await scanHandler(file)).inspection.parsed).toBe(false);
      expect((await scanHandler(file)).inspection.parsed).toBe(false);
    } finally {
      process.env.PATH = path;
    }
    // a PATH without python3 says so, also for a text an earlier scan parsed
    writeFileSync(file, 'def run(input_data):\n    return {}\n');
    process.env.PATH = dir;
    try {
      expect((await scanHandler(file)).inspection.unavailable).toMatch(/python3 not found/);
    } finally {
      process.env.PATH = path;
    }
  });

  it('a frontmatter block reads the same from the cache, and values JSON cannot carry are parsed each time', () => {
    const tag = randomBytes(4).toString('hex');
    const md = `---\nname: s_${tag}\ndescription: "说明"\ntags: [a, b]\nlimits: { n: 3, ok: true, none: null }\n---\nbody\n`;
    const first = splitSkillMd(md);
    expect(first).toEqual({
      hasFrontmatter: true,
      data: { name: `s_${tag}`, description: '说明', tags: ['a', 'b'], limits: { n: 3, ok: true, none: null } },
      body: 'body\n',
    });
    expect(splitSkillMd(md)).toEqual(first);
    const odd = `---\nname: o_${tag}\nbig: .inf\nnot_a_number: .nan\nzero: -0\n---\n`;
    for (let i = 0; i < 2; i++) {
      const data = splitSkillMd(odd).data!;
      expect(data.big).toBe(Infinity);
      expect(data.not_a_number).toBeNaN();
      expect(Object.is(data.zero, -0)).toBe(true);
    }
    const bad = `---\nname: [unclosed ${tag}\n---\n`;
    expect(splitSkillMd(bad).error).toMatch(/^invalid YAML in frontmatter/);
    expect(splitSkillMd(bad)).toEqual(splitSkillMd(bad));
  });
});
