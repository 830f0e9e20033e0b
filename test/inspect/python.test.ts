import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectHandler, scanHandler } from '../../src/registry/inspect/index.ts';

const root = mkdtempSync(join(tmpdir(), 'sg-inspect-py-'));
/** Write `source` to handler.py in a fresh folder and return its path. */
function py(source: string): string {
  const file = join(mkdtempSync(join(root, 's')), 'handler.py');
  writeFileSync(file, source);
  return file;
}

describe('Python handler inspection (python3 + ast, nothing imported or executed)', () => {
  it('R-PRE-04 / D-15: async def execute(input_data, runtime_context=None) — async, ctx defaulted', async () => {
    const ins = await inspectHandler(py('async def execute(input_data, runtime_context=None):\n    return {}\n'));
    expect(ins).toMatchObject({ language: 'python', parsed: true, isCli: false });
    expect(ins.entry).toEqual({
      name: 'execute',
      isAsync: true,
      params: [
        { name: 'input_data', hasDefault: false, rest: false },
        { name: 'runtime_context', hasDefault: true, rest: false },
      ],
    });
  });

  it('lists *args, keyword-only parameters and **kwargs', async () => {
    const ins = await inspectHandler(py('def run(a, /, b=1, *args, c, d=2, **kw):\n    pass\n'));
    expect(ins.entry).toEqual({
      name: 'run',
      isAsync: false,
      params: [
        { name: 'a', hasDefault: false, rest: false },
        { name: 'b', hasDefault: true, rest: false },
        { name: 'args', hasDefault: false, rest: true },
        { name: 'c', hasDefault: false, rest: false },
        { name: 'd', hasDefault: true, rest: false },
        { name: 'kw', hasDefault: false, rest: true },
      ],
    });
  });

  it('R-ENTRY-01: entries in lookup order; a module with run and main has entry run; aliases count', async () => {
    const ins = await inspectHandler(py('def main():\n    pass\n\nasync def run(x):\n    pass\n\nhandle = main\n'));
    expect(ins.entries.map((e) => e.name)).toEqual(['run', 'main', 'handle']);
    expect(ins.entry?.name).toBe('run');
    expect(ins.entry?.isAsync).toBe(true);
  });

  it('D-14: no module-level entry ⇒ entry null (nested or class methods do not count)', async () => {
    const ins = await inspectHandler(
      py('class K:\n    async def execute(self, a, b):\n        pass\n\ndef outer():\n    def run():\n        pass\n'),
    );
    expect(ins.parsed).toBe(true);
    expect(ins.entry).toBeNull();
  });

  describe('R-ENTRY-07 / A-04: isCli = imports argparse AND has an if __name__ == "__main__" guard', () => {
    it.each([
      ['double quotes', 'import argparse\n\ndef main():\n    pass\n\nif __name__ == "__main__":\n    main()\n'],
      ['single quotes', "import argparse\n\nif __name__ == '__main__':\n    pass\n"],
      ['reversed comparison', 'from argparse import ArgumentParser\n\nif "__main__" == __name__:\n    ArgumentParser().parse_args()\n'],
      ['import argparse as ap', 'import argparse as ap\nif __name__ == "__main__":\n    ap.ArgumentParser()\n'],
    ])('%s ⇒ CLI', async (_t, source) => {
      expect((await inspectHandler(py(source))).isCli).toBe(true);
    });

    it.each([
      [
        '__main__ guard without argparse',
        'import sys\n\nasync def execute(input_data, runtime_context):\n    pass\n\nif __name__ == "__main__":\n    print(sys.argv)\n',
      ],
      [
        'argparse without __main__ guard',
        'import argparse\n\nasync def execute(input_data, runtime_context):\n    argparse.ArgumentParser()\n',
      ],
    ])('%s ⇒ not CLI', async (_t, source) => {
      expect((await inspectHandler(py(source))).isCli).toBe(false);
    });
  });

  it('R-LOAD-13 / A-43: literal constants via ast.literal_eval (tuples become arrays, non-literals skipped)', async () => {
    const ins = await inspectHandler(
      py(
        [
          'INPUT_SCHEMA = {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ("symbol",), "x": None, "y": True}',
          'output_schema: dict = {"type": "object"}',
          'CLI_COMMANDS = {"list": {"type": "object"}, "get": {}}',
          'SCHEMA = dict(a=1)',
          'async def execute(input_data, runtime_context):',
          '    pass',
        ].join('\n'),
      ),
    );
    expect(ins.schemaConstant).toEqual({
      type: 'object',
      properties: { symbol: { type: 'string' } },
      required: ['symbol'],
      x: null,
      y: true,
    });
    expect(ins.outputSchemaConstant).toEqual({ type: 'object' });
    expect(ins.cliCommandsConstant).toEqual({ list: { type: 'object' }, get: {} });
  });

  it('a non-literal INPUT_SCHEMA falls back to a lower-priority literal one', async () => {
    const ins = await inspectHandler(py('INPUT_SCHEMA = build()\nSCHEMA = {"type": "object"}\n'));
    expect(ins.schemaConstant).toEqual({ type: 'object' });
  });

  it('R-PRE-04: a syntax error gives parsed:false with line:col', async () => {
    const ins = await inspectHandler(py('async def execute(input_data, runtime_context):\n    return {\n\ndef x(:\n'));
    expect(ins.parsed).toBe(false);
    expect(ins.parseError).toMatch(/^\d+:\d+ \S/);
    expect(ins.entries).toEqual([]);
  });

  it('R-LOAD-15: reports imported module names, relative ones with their dots', async () => {
    const scan = await scanHandler(
      py('import os, json\nfrom ..other_skill.util import f\nfrom . import local\n\ndef execute():\n    import requests\n'),
    );
    expect(scan.imports).toEqual(expect.arrayContaining(['os', 'json', '..other_skill.util', '.', 'requests']));
    expect(scan.imports).toHaveLength(5);
  });

  it('python3 missing ⇒ parsed:true, no entries, unavailable "python3 not found"', async () => {
    const file = py('async def execute(input_data, runtime_context):\n    pass\n');
    const saved = process.env.PATH;
    process.env.PATH = mkdtempSync(join(tmpdir(), 'sg-empty-path-'));
    try {
      const ins = await inspectHandler(file);
      expect(ins).toMatchObject({ parsed: true, entries: [], entry: null, isCli: false });
      expect(ins.unavailable).toMatch(/^python3 not found: /);
    } finally {
      process.env.PATH = saved;
    }
  });
});
