import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { CliIO } from '../../src/cli/io.ts';
import type { ModelTool } from '../../src/registry/types.ts';
import { FIXTURES } from './helpers.ts';

function capture(): { io: CliIO; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) }, out: () => out, err: () => err };
}

describe('skillgate skill list', () => {
  let saved: { dirs?: string; config?: string };
  beforeEach(() => {
    saved = { dirs: process.env.SKILLGATE_SKILL_DIRS, config: process.env.SKILLGATE_CONFIG };
    process.env.SKILLGATE_SKILL_DIRS = `:${FIXTURES}:`;
    delete process.env.SKILLGATE_CONFIG;
  });
  afterEach(() => {
    if (saved.dirs === undefined) delete process.env.SKILLGATE_SKILL_DIRS;
    else process.env.SKILLGATE_SKILL_DIRS = saved.dirs;
    if (saved.config === undefined) delete process.env.SKILLGATE_CONFIG;
    else process.env.SKILLGATE_CONFIG = saved.config;
  });

  it('--role lists only the skills that role enables in skillgate.config.yaml; an unknown role is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-roles-'));
    const file = join(dir, 'skillgate.config.yaml');
    writeFileSync(file, 'roles:\n  - id: ops\n    skills: [category_prefix, subcmd_two]\n');
    process.env.SKILLGATE_CONFIG = file;
    const c = capture();
    expect(await main(['node', 'skillgate', 'skill', 'list', '--role', 'ops', '--json'], c.io)).toBe(0);
    const names = (JSON.parse(c.out()) as ModelTool[]).map((t) => t.function.name).sort();
    expect(names).toEqual(['category_prefix', 'subcmd_two__start', 'subcmd_two__stop']);
    const all = capture();
    expect(await main(['node', 'skillgate', 'skill', 'list', '--json'], all.io)).toBe(0);
    expect((JSON.parse(all.out()) as ModelTool[]).length).toBeGreaterThan(names.length);
    const bad = capture();
    expect(await main(['node', 'skillgate', 'skill', 'list', '--role', 'nobody'], bad.io)).toBe(1);
    expect(bad.err()).toMatch(/unknown role "nobody"/);
    expect(bad.out()).toBe('');
  });

  it('--json prints exactly one JSON document, the OpenAI tools array', async () => {
    const c = capture();
    const code = await main(['node', 'skillgate', 'skill', 'list', '--json'], c.io);
    expect(code).toBe(0);
    const tools = JSON.parse(c.out()) as ModelTool[];
    expect(Array.isArray(tools)).toBe(true);
    const names = tools.map((t) => t.function.name);
    expect(names).toContain('category_prefix');
    expect(names).toContain('subcmd_two__start');
    expect(names).not.toContain('type_knowledge');
    expect(names).not.toContain('handler_no_entry');
    expect(tools.find((t) => t.function.name === 'category_prefix')).toEqual({
      type: 'function',
      function: {
        name: 'category_prefix',
        description: '[data] Fetch the latest price of a symbol',
        parameters: { type: 'object', properties: {} },
      },
    });
    // Broken skills are reported on stderr, never on stdout (README.md#the-skillgate-command).
    expect(c.err()).toMatch(/handler_no_entry: error:/);
  });

  it('without --json a table of name and description', async () => {
    const c = capture();
    expect(await main(['node', 'skillgate', 'skill', 'list', '--role', 'default'], c.io)).toBe(0);
    const lines = c.out().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+DESCRIPTION$/);
    expect(lines.find((l) => l.startsWith('category_prefix '))).toMatch(/^category_prefix\s+\[data\] Fetch the latest price of a symbol$/);
    expect(() => JSON.parse(c.out())).toThrow(); // a table, not a JSON document
  });
});
