/**
 * The danger scan against bypasses (R-PRE-07; docs/danger-scan.md
 * "Normalization" and "Indirect capabilities"): every hostile handler of
 * test/fixtures/danger/bypass is critical, every honest one of test/fixtures/danger/benign is not,
 * and the normalizer keeps line numbers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasCritical, scanFile } from '../../src/lifecycle/danger-scan.ts';
import { normalizeCode } from '../../src/lifecycle/normalize-code.ts';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'danger');
const corpus = (dir: string): { name: string; text: string }[] =>
  readdirSync(join(ROOT, dir))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(ROOT, dir, name), 'utf8') }));

/** `x.skill.toml` fixtures are scanned as `x/skill.toml` (the INLINE_SHELL command). */
const asFile = (name: string): string => name.replace(/\.skill\.toml$/, '/skill.toml');
const bypass = corpus('bypass');
const benign = corpus('benign');

describe('danger scan bypass corpus (R-PRE-07)', () => {
  it('R-PRE-07 the corpora are large enough (≥ 20 hostile, ≥ 10 honest)', () => {
    expect(bypass.length).toBeGreaterThanOrEqual(20);
    expect(benign.length).toBeGreaterThanOrEqual(10);
  });

  for (const { name, text } of bypass) {
    it(`R-PRE-07 hostile ${name} is critical`, () => {
      const found = scanFile(asFile(name), text);
      expect(hasCritical(found), JSON.stringify(found)).toBe(true);
    });
  }

  for (const { name, text } of benign) {
    it(`R-PRE-07 honest ${name} has no critical finding`, () => {
      const found = scanFile(asFile(name), text);
      expect(found.filter((f) => f.severity === 'critical')).toEqual([]);
    });
  }

  it('R-PRE-07 the two accepted tester edits are critical, reported on the lines that reach child_process', () => {
    const a =
      "export async function execute(input_data) {\n  const m = process.getBuiltinModule('child_process');\n  m.execSync(String(input_data.cmd));\n}\n";
    const b =
      "export async function execute(input_data) {\n  const m = await import('child' + '_process');\n  m['ex'+'ec'](input_data.cmd);\n}\n";
    const lines = (code: string): number[] =>
      scanFile('handler.ts', code)
        .filter((f) => f.severity === 'critical')
        .map((f) => f.line);
    expect(lines(a)).toContain(2);
    expect(lines(b)).toEqual(expect.arrayContaining([2, 3]));
  });
});

describe('danger scan: the second tester round (R-PRE-07)', () => {
  const critical = (file: string, code: string): string[] =>
    scanFile(file, code)
      .filter((f) => f.severity === 'critical')
      .map((f) => `${f.line}:${f.rule}`);

  it('R-PRE-07 a shell spawned with literal inline code, and shell: true, are critical on their lines', () => {
    const js =
      "import {execFileSync, spawn} from 'node:child_process';\nexecFileSync('git', ['status']);\nexecFileSync('sh',['-c','id > /tmp/x']);\nspawn('ls', ['-l'], { shell: true });\nspawn('ls', ['-l'], { shell: false });\n";
    expect(critical('handler.ts', js)).toEqual(['3:code.indirect_capability', '4:code.indirect_capability']);
    const py = "import subprocess\nsubprocess.run(['ls', '-l'])\nsubprocess.run(['bash', '-lc', 'id'])\n";
    expect(critical('handler.py', py)).toEqual(['3:code.indirect_capability']);
  });

  it('R-PRE-07 skill.toml INLINE_SHELL reading another process environment is critical on the command line', () => {
    const toml = '[exec]\ntype = "INLINE_SHELL"\ncommand = "cat /proc/$PPID/environ"\n';
    expect(critical('skill.toml', toml)).toEqual(['3:secrets.credential_file']);
  });

  it('R-PRE-07 climbing out of the workspace into role-skills is critical; a plain workspace join is not', () => {
    const bad = "import { join } from 'node:path';\nconst p = join(runtime_context.workspace_dir, '../..');\n";
    expect(critical('handler.ts', bad)).toEqual(['2:fs.write_system']);
    expect(
      critical('handler.ts', "import { join } from 'node:path';\nconst p = join(runtime_context.workspace_dir, 'out', 'a..b.txt');\n"),
    ).toEqual([]);
  });
});

describe('normalizeCode (R-PRE-07)', () => {
  it('folds and decodes literals in JS and keeps every line break', () => {
    const js =
      "a('child' + `_pro` + \"cess\");\nb('\\x65x' + 'ec');\nc(String.fromCharCode(0x76, 109));\nd(Buffer.from('Y3A=', 'base64').toString());\ne(`two\nlines`);\n\\u0065val(x);\n";
    const out = normalizeCode(js, 'js');
    expect(out.split('\n')).toEqual(["a('child_process');", "b('exec');", "c('vm');", "d('cp');", "e('two\\nlines'", ');', 'eval(x);', '']);
  });

  it('folds Python literals (implicit concatenation, join, chr, fromhex, reversed) but leaves f-strings', () => {
    const py =
      "a = 'o' 's'\nb = ''.join(['sy', 'stem'])\nc = chr(111) + chr(115)\nd = bytes.fromhex('6f73').decode()\ne = 'so'[::-1]\nf = f'{x}' + 'y'\n";
    expect(normalizeCode(py, 'py').split('\n')).toEqual([
      "a = 'os'",
      "b = 'system'",
      "c = 'os'",
      "d = 'os'",
      "e = 'os'",
      "f = f'{x}' + 'y'",
      '',
    ]);
  });

  it('shell is not normalized', () => {
    expect(normalizeCode("echo 'a' + 'b'", 'sh')).toBe("echo 'a' + 'b'");
  });
});
