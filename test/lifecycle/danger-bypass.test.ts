/**
 * The danger scan against bypasses (R-PRE-07; issue 10 item 3; docs/danger-scan.md
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

const bypass = corpus('bypass');
const benign = corpus('benign');

describe('danger scan bypass corpus (R-PRE-07)', () => {
  it('R-PRE-07 the corpora are large enough (≥ 20 hostile, ≥ 10 honest)', () => {
    expect(bypass.length).toBeGreaterThanOrEqual(20);
    expect(benign.length).toBeGreaterThanOrEqual(10);
  });

  for (const { name, text } of bypass) {
    it(`R-PRE-07 hostile ${name} is critical`, () => {
      const found = scanFile(name, text);
      expect(hasCritical(found), JSON.stringify(found)).toBe(true);
    });
  }

  for (const { name, text } of benign) {
    it(`R-PRE-07 honest ${name} has no critical finding`, () => {
      const found = scanFile(name, text);
      expect(found.filter((f) => f.severity === 'critical')).toEqual([]);
    });
  }

  it('R-PRE-07 the two accepted tester edits are critical, reported on the lines that reach child_process', () => {
    const a = "export async function execute(input_data) {\n  const m = process.getBuiltinModule('child_process');\n  m.execSync(String(input_data.cmd));\n}\n";
    const b = "export async function execute(input_data) {\n  const m = await import('child' + '_process');\n  m['ex'+'ec'](input_data.cmd);\n}\n";
    const lines = (code: string): number[] => scanFile('handler.ts', code).filter((f) => f.severity === 'critical').map((f) => f.line);
    expect(lines(a)).toContain(2);
    expect(lines(b)).toEqual(expect.arrayContaining([2, 3]));
  });
});

describe('normalizeCode (R-PRE-07)', () => {
  it('folds and decodes literals in JS and keeps every line break', () => {
    const js = "a('child' + `_pro` + \"cess\");\nb('\\x65x' + 'ec');\nc(String.fromCharCode(0x76, 109));\nd(Buffer.from('Y3A=', 'base64').toString());\ne(`two\nlines`);\n\\u0065val(x);\n";
    const out = normalizeCode(js, 'js');
    expect(out.split('\n')).toEqual(["a('child_process');", "b('exec');", "c('vm');", "d('cp');", "e('two\\nlines'", ');', 'eval(x);', '']);
  });

  it('folds Python literals (implicit concatenation, join, chr, fromhex, reversed) but leaves f-strings', () => {
    const py = "a = 'o' 's'\nb = ''.join(['sy', 'stem'])\nc = chr(111) + chr(115)\nd = bytes.fromhex('6f73').decode()\ne = 'so'[::-1]\nf = f'{x}' + 'y'\n";
    expect(normalizeCode(py, 'py').split('\n')).toEqual(["a = 'os'", "b = 'system'", "c = 'os'", "d = 'os'", "e = 'os'", "f = f'{x}' + 'y'", '']);
  });

  it('shell is not normalized', () => {
    expect(normalizeCode("echo 'a' + 'b'", 'sh')).toBe("echo 'a' + 'b'");
  });
});
