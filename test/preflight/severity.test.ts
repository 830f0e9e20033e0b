import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/registry/preflight.ts';
import { fixture, graded, makeSkill, skillMd } from './support.ts';

describe('preflight: one routine, severity by mode', () => {
  it('R-PRE-06: the same bad skill — create mode blocks (errors), install mode only warns', async () => {
    const create = await preflight(fixture('sync_ab'), { mode: 'create' });
    const install = await preflight(fixture('sync_ab'), { mode: 'install' });
    expect(graded(create)).toEqual([
      ['error', 'handler.params'],
      ['error', 'handler.not_async'],
    ]);
    expect(graded(install)).toEqual([
      ['warning', 'handler.params'],
      ['warning', 'handler.not_async'],
    ]);
  });

  it('R-PRE-01: both modes report the same issue list (codes and messages), only severities differ', async () => {
    for (const name of ['toml_bad', 'bad_schema', 'cross_import', 'no_description', 'secret_params', 'py_ctx_default']) {
      const create = await preflight(fixture(name), { mode: 'create' });
      const install = await preflight(fixture(name), { mode: 'install' });
      expect(install.map((i) => [i.code, i.message])).toEqual(create.map((i) => [i.code, i.message]));
      expect(install.some((i) => i.severity === 'error')).toBe(false);
    }
  });

  it('R-PRE-06: "will default" notices, D-15 and R-LOAD-17 warnings and secret notices never block create mode', async () => {
    const dir = makeSkill('soft_only', {
      'SKILL.md': skillMd('soft_only') + 'y'.repeat(8100),
      'skill.toml': '[skill]\nname = "soft_only"\ndescription = "d"\n[exec]\ntype = "SHELL"\nconfig = "run.sh"\n',
      'run.sh': 'echo {}\n',
      'schema.json': '{"type": "object", "properties": {"api_key": {"type": "string"}}}',
    });
    const issues = await preflight(dir, { mode: 'create' });
    expect(graded(issues)).toEqual([
      ['warning', 'skill_md.too_long'],
      ['notice', 'version.default'],
      ['notice', 'secret.param'],
    ]);
  });

  it('R-PRE-06: a missing folder is an error in both modes', async () => {
    const missing = join(fixture('good_ts'), '..', 'does_not_exist');
    for (const mode of ['create', 'install'] as const) {
      const issues = await preflight(missing, { mode });
      expect(graded(issues)).toEqual([['error', 'dir.unreadable']]);
      expect(issues[0]!.message).toBe('the skill folder does not exist');
    }
    const file = join(fixture('good_ts'), 'handler.ts');
    expect(graded(await preflight(file, { mode: 'install' }))).toEqual([['error', 'dir.unreadable']]);
  });

  it('R-PRE-06: messages carry no "❌" prefix', async () => {
    const all = await Promise.all(
      ['toml_bad', 'bad_schema', 'sync_ab', 'no_frontmatter', 'no_entry'].map((n) => preflight(fixture(n), { mode: 'create' })),
    );
    for (const issue of all.flat()) expect(issue.message).not.toMatch(/❌/);
  });
});
