import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/registry/preflight.ts';
import { fixture, graded, makeSkill, skillMd } from './support.ts';

const create = { mode: 'create' } as const;

describe('preflight: skill.toml', () => {
  it('R-PRE-05 / R-FORM-10: a complete SHELL skill without version ⇒ only the "will default" notice', async () => {
    const issues = await preflight(fixture('toml_ok'), create);
    expect(graded(issues)).toEqual([['notice', 'version.default']]);
    expect(issues[0]!.message).toBe('skill.toml has no [skill].version; will default to 0.0.0');
  });

  it('R-PRE-05: missing name, description, exec type and a config file that does not exist ⇒ one issue each', async () => {
    const issues = await preflight(fixture('toml_bad'), create);
    expect(graded(issues)).toEqual([
      ['error', 'toml.name_missing'],
      ['error', 'toml.description_missing'],
      ['error', 'exec.type_missing'],
      ['error', 'exec.config_not_found'],
    ]);
    expect(issues[3]!.message).toMatch(/"missing\.sh" does not exist/);
  });

  it('R-PRE-05: INLINE_SHELL needs command instead of config', async () => {
    expect(graded(await preflight(fixture('toml_inline'), create))).toEqual([['error', 'exec.command_missing']]);
    const ok = makeSkill('inline_ok', {
      'skill.toml':
        '[skill]\nname = "inline_ok"\ndescription = "d"\nversion = "1.0.0"\n[exec]\ntype = "INLINE_SHELL"\ncommand = "echo {}"\n',
    });
    expect(await preflight(ok, create)).toEqual([]);
  });

  it('R-PRE-05: an unknown exec type, a missing config and a config outside the folder are reported', async () => {
    const unknown = makeSkill('t_unknown', {
      'skill.toml': '[skill]\nname = "t_unknown"\ndescription = "d"\nversion = "1"\n[exec]\ntype = "PERL"\nconfig = "x.pl"\n',
      'x.pl': '',
    });
    expect(graded(await preflight(unknown, create))).toEqual([['error', 'exec.type_invalid']]);
    const noConfig = makeSkill('t_noconfig', {
      'skill.toml': '[skill]\nname = "t_noconfig"\ndescription = "d"\nversion = "1"\n[exec]\ntype = "NODE"\n',
    });
    expect(graded(await preflight(noConfig, create))).toEqual([['error', 'exec.config_missing']]);
    const escaping = makeSkill('t_escape', {
      'skill.toml': '[skill]\nname = "t_escape"\ndescription = "d"\nversion = "1"\n[exec]\ntype = "SHELL"\nconfig = "../run.sh"\n',
    });
    expect(graded(await preflight(escaping, create))).toEqual([['error', 'exec.config_escape']]);
  });

  it('R-PRE-05: [exec.primary] is read as [exec]; the type is case-insensitive', async () => {
    const dir = makeSkill('t_primary', {
      'skill.toml': '[skill]\nname = "t_primary"\ndescription = "d"\nversion = "1"\n[exec.primary]\ntype = "shell"\nconfig = "run.sh"\n',
      'run.sh': 'echo {}\n',
    });
    expect(await preflight(dir, create)).toEqual([]);
  });

  it('R-FORM-08: BROWSER / MCP are recognised but can never run ⇒ exec.unsupported', async () => {
    const dir = makeSkill('t_mcp', { 'skill.toml': '[skill]\nname = "t_mcp"\ndescription = "d"\nversion = "1"\n[exec]\ntype = "MCP"\n' });
    expect(graded(await preflight(dir, create))).toEqual([['error', 'exec.unsupported']]);
  });

  it('R-PRE-03: [skill].name must equal the folder name too', async () => {
    const dir = makeSkill('t_name', {
      'skill.toml': '[skill]\nname = "other"\ndescription = "d"\nversion = "1"\n[exec]\ntype = "SHELL"\nconfig = "run.sh"\n',
      'run.sh': '',
    });
    const issues = await preflight(dir, create);
    expect(graded(issues)).toEqual([['error', 'name.mismatch']]);
    expect(issues[0]!.message).toMatch(/skill\.toml \[skill\]\.name/);
  });

  it('R-PRE-05: a skill.toml that does not parse is one error', async () => {
    const dir = makeSkill('t_parse', { 'skill.toml': '[skill\nname = 1\n', 'SKILL.md': skillMd('t_parse') });
    expect(graded(await preflight(dir, create))).toEqual([['error', 'toml.parse']]);
  });

  it('R-FORM-10: a version in the SKILL.md frontmatter means nothing "will default"', async () => {
    const dir = makeSkill('t_fmversion', {
      'SKILL.md': skillMd('t_fmversion', 'version: 2.1.0\n'),
      'skill.toml': '[skill]\nname = "t_fmversion"\ndescription = "d"\n[exec]\ntype = "SHELL"\nconfig = "run.sh"\n',
      'run.sh': '',
    });
    expect(await preflight(dir, create)).toEqual([]);
  });

  it('a handler file next to skill.toml [exec] is not used ⇒ notice only', async () => {
    const dir = makeSkill('t_unused', {
      'skill.toml': '[skill]\nname = "t_unused"\ndescription = "d"\nversion = "1"\n[exec]\ntype = "SHELL"\nconfig = "run.sh"\n',
      'run.sh': '',
      'handler.ts': 'export const nothing = 1;\n',
    });
    expect(graded(await preflight(dir, create))).toEqual([['notice', 'handler.unused']]);
  });

  it('R-ENTRY-07: a PYTHON [exec].config .py is checked like a handler', async () => {
    const dir = makeSkill('t_pyconfig', {
      'skill.toml': '[skill]\nname = "t_pyconfig"\ndescription = "d"\nversion = "1"\n[exec]\ntype = "PYTHON"\nconfig = "main.py"\n',
      'main.py': 'def execute(input_data, runtime_context):\n    return {}\n',
    });
    expect(graded(await preflight(dir, create))).toEqual([['error', 'handler.not_async']]);
  });
});
