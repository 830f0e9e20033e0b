import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/registry/preflight.ts';
import { crossSkillImports } from '../../src/registry/preflight/imports.ts';
import { fixture, graded, makeSkill, skillMd } from './support.ts';

const create = { mode: 'create' } as const;

describe('preflight: the handler file (static, never executed)', () => {
  it('R-PRE-04: sync execute(a, b) yields two issues (parameter names, not async) — TypeScript', async () => {
    const issues = await preflight(fixture('sync_ab'), create);
    expect(graded(issues)).toEqual([
      ['error', 'handler.params'],
      ['error', 'handler.not_async'],
    ]);
    expect(issues[0]!.message).toMatch(/takes \(a, b\).*input_data and runtime_context/);
  });

  it('R-PRE-04: sync execute(a, b) yields two issues (parameter names, not async) — Python', async () => {
    const issues = await preflight(fixture('sync_ab_py'), create);
    expect(graded(issues)).toEqual([
      ['error', 'handler.params'],
      ['error', 'handler.not_async'],
    ]);
    expect(issues[1]!.message).toMatch(/async def execute\(input_data, runtime_context\)/);
  });

  it('R-PRE-04: a clean Python skill with async def execute(input_data, runtime_context) has no issue', async () => {
    expect(await preflight(fixture('good_py'), create)).toEqual([]);
  });

  it('R-PRE-04: parameters in the wrong order are reported', async () => {
    const dir = makeSkill('swapped', {
      'SKILL.md': skillMd('swapped'),
      'handler.ts': 'export async function execute(runtime_context: object, input_data: object) { return {}; }\n',
    });
    expect(graded(await preflight(dir, create))).toEqual([['error', 'handler.params']]);
  });

  it('R-PRE-04: a handler that does not parse ⇒ handler.parse with line:col, no further handler checks', async () => {
    const issues = await preflight(fixture('parse_error'), create);
    expect(graded(issues)).toEqual([['error', 'handler.parse']]);
    expect(issues[0]!.message).toMatch(/^handler\.ts does not parse: 2:\d+ /);
  });

  it('R-PRE-04 / R-ENTRY-01: only a legacy entry (run) ⇒ "has no execute"', async () => {
    const issues = await preflight(fixture('legacy_run'), create);
    expect(graded(issues)).toEqual([['error', 'handler.no_execute']]);
    expect(issues[0]!.message).toMatch(/has no execute \(only the legacy entry run/);
  });

  it('D-14: a handler without any entry ⇒ error: broken, not loaded, not downgraded to a document skill', async () => {
    const issues = await preflight(fixture('no_entry'), create);
    expect(graded(issues)).toEqual([['error', 'handler.no_entry']]);
    expect(issues[0]!.message).toMatch(/broken and will not be loaded \(it is not downgraded to a document skill\)/);
    // Install mode does not hide it either (a warning, still reported).
    expect(graded(await preflight(fixture('no_entry'), { mode: 'install' }))).toEqual([['warning', 'handler.no_entry']]);
  });

  it('D-15: a default on runtime_context ⇒ a non-blocking warning (Python and TypeScript)', async () => {
    for (const name of ['py_ctx_default', 'ts_ctx_default']) {
      const issues = await preflight(fixture(name), create);
      expect(graded(issues)).toEqual([['warning', 'handler.ctx_default']]);
      expect(issues[0]!.message).toMatch(/still passes runtime_context/);
    }
  });

  it('R-ENTRY-09: argparse + __main__ next to execute ⇒ issue saying it changes the exec form', async () => {
    const issues = await preflight(fixture('py_cli_entry'), create);
    expect(graded(issues)).toEqual([['error', 'handler.cli_markers']]);
    expect(issues[0]!.message).toMatch(/run it as a command-line subprocess/);
  });

  it('R-ENTRY-09 (A-04): argv + run-as-main next to execute in a JS handler is reported the same way', async () => {
    const dir = makeSkill('js_cli_entry', {
      'SKILL.md': skillMd('js_cli_entry'),
      'handler.mjs':
        "import { pathToFileURL } from 'node:url';\nexport async function execute(input_data, runtime_context) { return {}; }\n" +
        'if (import.meta.url === pathToFileURL(process.argv[1]).href) console.log(await execute(JSON.parse(process.argv[2]), {}));\n',
    });
    expect(graded(await preflight(dir, create))).toEqual([['error', 'handler.cli_markers']]);
  });

  it('A-04: a Python CLI script (argparse + __main__, def main()) is a CLI skill ⇒ notice only', async () => {
    const issues = await preflight(fixture('py_cli'), create);
    expect(graded(issues)).toEqual([['notice', 'handler.cli']]);
  });

  it('R-LOAD-15: a relative import that leaves the skill folder ⇒ issue (TypeScript)', async () => {
    const issues = await preflight(fixture('cross_import'), create);
    expect(graded(issues)).toEqual([['error', 'handler.cross_skill_import']]);
    expect(issues[0]!.message).toMatch(/"\.\.\/good_ts\/handler\.ts".*call_skill/);
  });

  it('R-LOAD-15: Python `from ..sibling import` and `import <sibling skill>` ⇒ one issue each', async () => {
    const issues = await preflight(fixture('cross_import_py'), create);
    expect(issues.map((i) => i.message.match(/imports "([^"]+)"/)?.[1])).toEqual(['good_py.helpers', '..good_ts']);
  });

  it('R-LOAD-15: imports inside the folder, packages and code outside the skills root (the gateway src/) are fine; a sibling skill is not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-imports-'));
    const skill = join(dir, 'me');
    expect(await crossSkillImports(join(skill, 'handler.ts'), skill, 'ts', ['./lib/a.ts', 'node:fs', 'zod', './x/../y.js'])).toEqual([]);
    // only a sibling SKILL folder counts: a plain folder, the gateway's src/ or an absolute path elsewhere do not
    mkdirSync(join(dir, 'other'), { recursive: true });
    writeFileSync(join(dir, 'other', 'SKILL.md'), '---\nname: other\ndescription: x\n---\n');
    mkdirSync(join(dir, 'lib'), { recursive: true });
    expect(
      await crossSkillImports(join(skill, 'handler.ts'), skill, 'ts', [
        '../me/a.ts',
        '../other/a.ts',
        '../lib/a.ts',
        '../../src/datatable/index.ts',
        '/etc/passwd',
        `file://${join(dir, 'other', 'x.js')}`,
      ]),
    ).toEqual(['../other/a.ts', `file://${join(dir, 'other', 'x.js')}`]);
    expect(await crossSkillImports(join(skill, 'handler.py'), skill, 'python', ['.', '.util', 'os', '..', '..x'])).toEqual(['..', '..x']);
  });

  it('several handler files ⇒ issue naming the one that is used', async () => {
    const dir = makeSkill('two_handlers', {
      'SKILL.md': skillMd('two_handlers'),
      'handler.ts': 'export async function execute(input_data: object, runtime_context: object) { return {}; }\n',
      'handler.py': 'async def execute(input_data, runtime_context):\n    return {}\n',
    });
    const issues = await preflight(dir, create);
    expect(graded(issues)).toEqual([['error', 'handler.several']]);
    expect(issues[0]!.message).toMatch(/only handler\.ts is used/);
  });

  it('python3 missing ⇒ a non-blocking warning that handler.py could not be checked', async () => {
    const saved = process.env.PATH;
    process.env.PATH = mkdtempSync(join(tmpdir(), 'sg-empty-path-'));
    try {
      const issues = await preflight(fixture('sync_ab_py'), create);
      expect(graded(issues)).toEqual([['warning', 'handler.inspect_unavailable']]);
      expect(issues[0]!.message).toMatch(/handler\.py could not be checked \(python3 not found/);
    } finally {
      process.env.PATH = saved;
    }
  });
});
