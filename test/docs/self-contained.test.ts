/**
 * The repo speaks only of itself: comments, test names, fixture notes and docs point inside the
 * tree (`docs/…`, the rule ids of `docs/requirements.md`), never at tracker numbers or at files a reader of
 * a clone cannot open (planning notes, the raw specification files, fixtures kept outside).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src', 'adapters', 'skills', 'test', 'docs', 'README.md'];
const SELF = 'test/docs/self-contained.test.ts';
const TEXT = /\.(ts|js|mjs|cjs|md|json|sql|toml|py|sh|yaml|yml|html|txt)$/;

/** What a clone does not hold: one pattern per kind, so a failure says which kind it found. */
const OUTSIDE: [string, RegExp][] = [
  ['a tracker issue number', /\b[Ii]ssues? [0-9]/],
  ['a planning note outside the repo', /\b(?:CONTRACTS|DESIGN\.md|STYLE\.md)\b/],
  ['a path outside the repo', /\bshared\/(?:spec|fixtures)\b|\.\.\/shared\//],
  ['a raw specification file', /\b[Ss]pec 00[0-9]\b|(?<![\w.])00[0-9] ?§|\b00[0-9]_(?:[0-9a-f]{8}|\*)/],
];

function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--', ...SCANNED], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\0').filter((f) => f && f !== SELF && TEXT.test(f));
}

describe('the repo is self-contained', () => {
  it('names no issue numbers, outside notes, outside paths or raw spec files', () => {
    const found: string[] = [];
    for (const file of trackedFiles()) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, file), 'utf8');
      } catch {
        continue; // listed by git but removed in the work tree
      }
      text.split('\n').forEach((line, i) => {
        for (const [what, re] of OUTSIDE) if (re.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('recognises each kind of outside reference (the patterns are not vacuous)', () => {
    const samples = [
      'see issue 8 item 3',
      'CONTRACTS.md §6',
      'DESIGN.md "Storage"',
      'STYLE.md',
      'shared/spec/x.md',
      '../shared/a',
      'spec 000 §7.5',
      '003 §Entry',
      '`004_*.txt`',
    ];
    for (const s of samples) expect(OUTSIDE.some(([, re]) => re.test(s))).toBe(true);
    for (const s of ['docs/requirements.md', 'the clash is an issue, not a crash', '100 000 rows', 'the R-DT rules'])
      expect(OUTSIDE.some(([, re]) => re.test(s))).toBe(false);
  });
});
