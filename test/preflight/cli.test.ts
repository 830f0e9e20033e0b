import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { fixture } from './support.ts';

/** Run `skillgate <args>` in process, capturing stdout and stderr. */
async function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) };
  const code = await main(['node', 'skillgate', ...args], io);
  return { code, stdout, stderr };
}

describe('skillgate skill check', () => {
  it('R-PRE-04 / R-PRE-06: a bad skill ⇒ exit 1 and one "<dir>: error: <message>" line per problem', async () => {
    const dir = fixture('sync_ab');
    const r = await run('skill', 'check', dir);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${escapeRe(dir)}: error: execute in handler\\.ts takes \\(a, b\\)`));
    expect(lines[1]).toMatch(new RegExp(`^${escapeRe(dir)}: error: execute in handler\\.ts is not async`));
  });

  it('a good skill ⇒ exit 0 and "<dir>: ok"', async () => {
    const dir = fixture('good_ts');
    const r = await run('skill', 'check', dir);
    expect(r).toEqual({ code: 0, stdout: `${dir}: ok\n`, stderr: '' });
  });

  it('R-PRE-06: --mode install turns the same problems into warnings and exits 0', async () => {
    const dir = fixture('sync_ab');
    const r = await run('skill', 'check', '--mode', 'install', dir);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.slice(dir.length + 2).split(':')[0]),
    ).toEqual(['warning', 'warning']);
  });

  it('several folders: each printed under the path as typed (relative too); only notices ⇒ exit 0', async () => {
    const good = relative(process.cwd(), fixture('good_py'));
    expect(good.startsWith('/')).toBe(false);
    const toml = fixture('toml_ok');
    const r = await run('skill', 'check', good, toml);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${good}: ok\n${toml}: notice: skill.toml has no [skill].version; will default to 0.0.0\n`);
  });

  it('a bad --mode value ⇒ message on stderr, exit 1, nothing on stdout', async () => {
    const r = await run('skill', 'check', '--mode', 'strict', fixture('good_ts'));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--mode must be create or install/);
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
