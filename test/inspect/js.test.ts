import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listImports, scanJsSource } from '../../src/registry/inspect/js.ts';
import { inspectHandler } from '../../src/registry/inspect/index.ts';

const inspect = (source: string, file = '/skills/x/handler.ts') => scanJsSource(file, source).inspection;

describe('JS/TS handler inspection (TypeScript compiler API, nothing executed)', () => {
  it('R-PRE-04: finds `export async function execute(input_data, runtime_context)` with its parameters', () => {
    const ins = inspect('export async function execute(input_data: object, runtime_context: object) { return {}; }');
    expect(ins.parsed).toBe(true);
    expect(ins.language).toBe('ts');
    expect(ins.entry).toEqual({
      name: 'execute',
      isAsync: true,
      params: [
        { name: 'input_data', hasDefault: false, rest: false },
        { name: 'runtime_context', hasDefault: false, rest: false },
      ],
    });
  });

  it('R-ENTRY-01: a module exporting run and main has entry run; entries keep lookup order', () => {
    const ins = inspect('export function main() {}\nexport async function run(input) {}\n', '/s/handler.js');
    expect(ins.language).toBe('js');
    expect(ins.entries.map((e) => e.name)).toEqual(['run', 'main']);
    expect(ins.entry?.name).toBe('run');
    expect(ins.entry?.isAsync).toBe(true);
  });

  it('R-ENTRY-01: execute wins over every legacy name wherever it is declared', () => {
    const ins = inspect('export function handle() {}\nexport function handler() {}\nexport const execute = async (a, b) => a;');
    expect(ins.entries.map((e) => e.name)).toEqual(['execute', 'handler', 'handle']);
  });

  it('reads `export const execute = async (…) =>` and `export { fn as execute }` forms', () => {
    const arrow = inspect('export const execute = async (input_data, runtime_context = {}) => input_data;');
    expect(arrow.entry).toMatchObject({ name: 'execute', isAsync: true });
    expect(arrow.entry?.params[1]).toEqual({ name: 'runtime_context', hasDefault: true, rest: false });

    const renamed = inspect('async function go({ a }, ...rest) { return a; }\nexport { go as execute };');
    expect(renamed.entry?.name).toBe('execute');
    expect(renamed.entry?.params).toEqual([
      { name: '<pattern>', hasDefault: false, rest: false },
      { name: 'rest', hasDefault: false, rest: true },
    ]);

    const fnExpr = inspect('export const run = function (x) { return x; };');
    expect(fnExpr.entry).toMatchObject({ name: 'run', isAsync: false, params: [{ name: 'x' }] });
  });

  it('reads CommonJS exports in .cjs files', () => {
    const ins = inspect('module.exports = { async execute(input_data, runtime_context) {}, run: function (x) {} };', '/s/handler.cjs');
    expect(ins.entries.map((e) => [e.name, e.isAsync])).toEqual([
      ['execute', true],
      ['run', false],
    ]);
    const dotted = inspect('exports.handle = async (a) => a;', '/s/handler.cjs');
    expect(dotted.entry?.name).toBe('handle');
  });

  it('D-14: a module without an entry has entry null; non-exported and default-exported functions do not count', () => {
    const ins = inspect('function execute(a, b) {}\nexport default function run() {}\nexport const VERSION = 1;');
    expect(ins.parsed).toBe(true);
    expect(ins.entries).toEqual([]);
    expect(ins.entry).toBeNull();
  });

  it('ignores a TypeScript `this` parameter and keeps the implementation of overloads', () => {
    const ins = inspect(
      'export function execute(a: string): void;\nexport async function execute(this: unknown, input_data: unknown, runtime_context?: unknown) {}',
    );
    expect(ins.entry?.isAsync).toBe(true);
    expect(ins.entry?.params.map((p) => p.name)).toEqual(['input_data', 'runtime_context']);
  });

  it('R-PRE-04: a syntax error gives parsed:false with line:col', () => {
    const ins = inspect('export async function execute(a, b) {\n  return { ok: true ;\n}\n');
    expect(ins.parsed).toBe(false);
    expect(ins.parseError).toMatch(/^2:\d+ /);
    expect(ins.entry).toBeNull();
  });

  it('R-PRE-04: TypeScript syntax in a .js file is a parse error', () => {
    const ins = inspect('export async function execute(input_data: object, runtime_context) {}', '/s/handler.js');
    expect(ins.parsed).toBe(false);
    expect(ins.parseError).toMatch(/^1:\d+ Type annotations can only be used in TypeScript files/);
  });

  describe('A-04: isCli = reads process.argv AND runs itself as main', () => {
    it.each([
      [
        'import.meta.url vs argv',
        `import { pathToFileURL } from 'node:url';\nexport function main(a) {}\nif (import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));`,
      ],
      ['require.main === module', `exports.run = (x) => x;\nif (require.main === module) { console.log(process.argv); }`],
      ['reversed module === require.main', `const a = process.argv;\nif (module === require.main) {}`],
      ['top-level entry call with argv', `export async function main(args) {}\nmain(process.argv.slice(2)).catch(() => process.exit(1));`],
      ['import.meta.main', `if (import.meta.main) console.log(process.argv[2]);`],
    ])('%s ⇒ CLI', (_title, source) => {
      expect(inspect(source, '/s/handler.mjs').isCli).toBe(true);
    });

    it.each([
      [
        'argv read inside an in-process entry',
        `export async function execute(input_data, runtime_context) { return process.argv.length; }`,
      ],
      ['main guard without argv', `export async function main() {}\nif (require.main === module) main();`],
      ['entry called with argv only inside a function', `export async function run(x) {}\nfunction later() { run(process.argv); }`],
    ])('%s ⇒ not CLI', (_title, source) => {
      expect(inspect(source, '/s/handler.mjs').isCli).toBe(false);
    });
  });

  describe('R-LOAD-13 / A-43: schema constants are evaluated statically', () => {
    it('reads INPUT_SCHEMA (as const), OUTPUT_SCHEMA and CLI_COMMANDS as JSON', () => {
      const ins = inspect(`
        const OUTPUT_SCHEMA = { type: 'object', properties: { price: { type: 'number' } } };
        export const INPUT_SCHEMA = {
          type: 'object',
          properties: { symbol: { type: 'string', enum: ['BTC', "ETH", \`SOL\`] }, limit: { type: 'integer', default: -1, maximum: 1_000 } },
          required: ['symbol'],
          'additionalProperties': false,
          nothing: null,
        } as const;
        export const CLI_COMMANDS = { list: { type: 'object', properties: {} }, get: { type: 'object' } };
        export async function execute(input_data, runtime_context) {}
      `);
      expect(ins.schemaConstant).toEqual({
        type: 'object',
        properties: { symbol: { type: 'string', enum: ['BTC', 'ETH', 'SOL'] }, limit: { type: 'integer', default: -1, maximum: 1000 } },
        required: ['symbol'],
        additionalProperties: false,
        nothing: null,
      });
      expect(ins.outputSchemaConstant).toEqual({ type: 'object', properties: { price: { type: 'number' } } });
      expect(ins.cliCommandsConstant).toEqual({ list: { type: 'object', properties: {} }, get: { type: 'object' } });
    });

    it('prefers INPUT_SCHEMA over input_schema over SCHEMA; lower-case names work alone', () => {
      expect(inspect(`const SCHEMA = { a: 1 };\nconst input_schema = { b: 2 };`).schemaConstant).toEqual({ b: 2 });
      expect(inspect(`const SCHEMA = { a: 1 };\nconst INPUT_SCHEMA = { c: 3 };`).schemaConstant).toEqual({ c: 3 });
      expect(inspect(`export const output_schema = { o: true };`).outputSchemaConstant).toEqual({ o: true });
    });

    it('skips constants that are not pure literals (identifiers, calls, spreads, undefined)', () => {
      const ins = inspect(`
        const base = { type: 'string' };
        export const INPUT_SCHEMA = { type: 'object', properties: { a: base } };
        export const OUTPUT_SCHEMA = Object.freeze({ type: 'object' });
        export const CLI_COMMANDS = { ...{ a: {} } };
        export const SCHEMA = { x: undefined };
      `);
      expect(ins.schemaConstant).toBeUndefined();
      expect(ins.outputSchemaConstant).toBeUndefined();
      expect(ins.cliCommandsConstant).toBeUndefined();
    });

    it('does not let a "__proto__" key change the prototype', () => {
      const ins = inspect(`export const INPUT_SCHEMA = { "__proto__": { polluted: true }, type: 'object' };`);
      expect(Object.getPrototypeOf(ins.schemaConstant)).toBe(Object.prototype);
      expect(Object.keys(ins.schemaConstant ?? {})).toEqual(['__proto__', 'type']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  it('R-LOAD-15: listImports returns every static specifier in source order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-inspect-'));
    const file = join(dir, 'handler.ts');
    writeFileSync(
      file,
      [
        "import fs from 'node:fs';",
        "import type { X } from '../other_skill/types.ts';",
        "export { y } from './lib/y.ts';",
        "import z = require('zlib');",
        'export async function execute(input_data: unknown, runtime_context: unknown) {',
        "  const m = await import('../sibling/mod.js');",
        "  const r = require('./local.cjs');",
        '  return { m, r };',
        '}',
      ].join('\n'),
    );
    expect(await listImports(file)).toEqual([
      'node:fs',
      '../other_skill/types.ts',
      './lib/y.ts',
      'zlib',
      '../sibling/mod.js',
      './local.cjs',
    ]);
  });

  it('inspectHandler dispatches by extension and rejects unsupported ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-inspect-'));
    writeFileSync(join(dir, 'handler.mjs'), 'export async function execute(input_data, runtime_context) {}');
    writeFileSync(join(dir, 'handler.rb'), 'def execute; end');
    const ins = await inspectHandler(join(dir, 'handler.mjs'));
    expect(ins).toMatchObject({ language: 'js', parsed: true, entry: { name: 'execute', isAsync: true } });
    await expect(inspectHandler(join(dir, 'handler.rb'))).rejects.toThrow(/unsupported handler extension/);
  });
});
