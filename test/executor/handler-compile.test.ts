import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compiledHandler, loadsAsModule, looksSelfContained } from '../../src/executor/handler-compile.ts';
import { loadHandlerModule } from '../../src/executor/module-loader.ts';

/** A folder with `files` (name → text); `type: module` unless `moduleScope` is false. */
async function folder(files: Record<string, string>, moduleScope = true): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sg-compile-'));
  if (moduleScope) await writeFile(join(dir, 'package.json'), '{"type":"module"}\n');
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

type Execute = (input?: unknown) => Promise<Record<string, unknown>>;

describe('handlers compiled ahead (docs/performance.md "Start-up")', () => {
  it('a self-contained TypeScript handler is compiled once and runs as tsx would run it', async () => {
    const dir = await folder({
      'handler.ts': [
        "import { basename } from 'node:path';",
        "import type { Stats } from 'node:fs';",
        'enum Kind { A = 1 }',
        'const seen: Stats | undefined = undefined;',
        'export async function execute(input: { n: number }): Promise<Record<string, unknown>> {',
        '  return { n: input.n * 2, kind: Kind.A, base: basename("/a/b.txt"), seen: seen ?? null, name: execute.name };',
        '}',
      ].join('\n'),
    });
    const file = join(dir, 'handler.ts');
    const compiled = await compiledHandler(file);
    expect(compiled).toMatch(/\.mjs$/);
    expect(await compiledHandler(file)).toBe(compiled); // the second load reads the cache
    const mod = await loadHandlerModule(file);
    expect(await (mod.execute as Execute)({ n: 21 })).toEqual({ n: 42, kind: 1, base: 'b.txt', seen: null, name: 'execute' });
  });

  it('an edit is a module of its own, loaded fresh', async () => {
    const dir = await folder({ 'handler.ts': 'let calls = 0;\nexport const execute = async () => ({ v: 1, calls: ++calls });\n' });
    const file = join(dir, 'handler.ts');
    expect(await ((await loadHandlerModule(file)).execute as Execute)()).toEqual({ v: 1, calls: 1 });
    expect(await ((await loadHandlerModule(file)).execute as Execute)()).toEqual({ v: 1, calls: 2 });
    await writeFile(file, 'let calls = 0;\nexport const execute = async () => ({ v: 22, calls: ++calls });\n');
    expect(await ((await loadHandlerModule(file)).execute as Execute)()).toEqual({ v: 22, calls: 1 });
  });

  it('the source map names the TypeScript file, also for two handlers with the same text', async () => {
    const text = 'export async function execute(): Promise<never> {\n  throw new Error("boom");\n}\n';
    for (const dir of [await folder({ 'handler.ts': text }), await folder({ 'handler.ts': text })]) {
      const file = join(dir, 'handler.ts');
      const compiled = (await compiledHandler(file))!;
      const map = JSON.parse(
        Buffer.from(
          /sourceMappingURL=data:application\/json;base64,(\S+)/.exec(await readFile(compiled, 'utf8'))![1]!,
          'base64',
        ).toString(),
      ) as { sources: string[] };
      expect(map.sources.map((s) => resolve(dirname(compiled), s))).toEqual([file]);
      const err = await ((await loadHandlerModule(file)).execute as Execute)().catch((e: Error) => e);
      expect((err as Error).message).toBe('boom');
    }
  });

  it('handlers that depend on their location, a tsconfig or CommonJS load through tsx, unchanged', async () => {
    const relative = await folder({
      'handler.ts': "import { twice } from './lib.ts';\nexport async function execute() { return { v: twice(2) }; }\n",
      'lib.ts': 'export const twice = (n: number): number => n * 2;\n',
    });
    expect(await compiledHandler(join(relative, 'handler.ts'))).toBeUndefined();
    expect(await ((await loadHandlerModule(join(relative, 'handler.ts'))).execute as Execute)()).toEqual({ v: 4 });

    const commonjs = await folder({ 'handler.ts': 'export async function execute() { return { dir: typeof __dirname }; }\n' }, false);
    expect(loadsAsModule(join(commonjs, 'handler.ts'))).toBe(false);
    expect(await compiledHandler(join(commonjs, 'handler.ts'))).toBeUndefined();
    expect(await ((await loadHandlerModule(join(commonjs, 'handler.ts'))).execute as Execute)()).toEqual({ dir: 'string' });

    const broken = await folder({ 'handler.ts': 'export async function execute( {\n' });
    expect(await compiledHandler(join(broken, 'handler.ts'))).toBeUndefined();
    await expect(loadHandlerModule(join(broken, 'handler.ts'))).rejects.toThrow();
  });

  it('what the text shows decides: built-in imports only, no import(), import.meta, require, __dirname or class', () => {
    expect(looksSelfContained("import { readFile } from 'node:fs/promises';\nimport os from 'os';\nexport const x = 1;")).toBe(true);
    for (const text of [
      "import { z } from 'zod';",
      "export * from './other.ts';",
      "import './side-effect.js';",
      "const m = await import('node:fs');",
      'const here = import.meta.url;',
      "const r = require('node:fs');",
      'const d = __dirname;',
      'class A { x = 1 }',
    ]) {
      expect(looksSelfContained(text), text).toBe(false);
    }
    expect(loadsAsModule('/x/handler.mts')).toBe(true);
    expect(loadsAsModule('/x/handler.js')).toBe(false);
  });
});
