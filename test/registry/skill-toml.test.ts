import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from './helpers.ts';
import { readSkillToml } from '../../src/registry/skill-toml.ts';

async function withToml(text: string | null): Promise<string> {
  const dir = await tempDir('skillgate-toml-');
  if (text !== null) await writeFile(join(dir, 'skill.toml'), text);
  return dir;
}

describe('readSkillToml (R-FORM-10, R-PRE-05)', () => {
  it('R-FORM-10: no skill.toml → null and no issue', async () => {
    expect(await readSkillToml(await withToml(null))).toEqual({ toml: null, issues: [] });
  });

  it('R-FORM-10: [skill] and [exec] are read', async () => {
    const dir = await withToml(
      '[skill]\nname = "sh_report"\ndescription = "d"\nversion = "1.0.0"\ntimeout_sec = 30\n\n[exec]\ntype = "INLINE_SHELL"\ncommand = "echo hi"\n',
    );
    expect(await readSkillToml(dir)).toEqual({
      toml: {
        skill: { name: 'sh_report', description: 'd', version: '1.0.0', timeout_sec: 30 },
        exec: { type: 'INLINE_SHELL', command: 'echo hi' },
      },
      issues: [],
    });
  });

  it('[exec.primary] is accepted as [exec]', async () => {
    const dir = await withToml('[skill]\nname = "x"\n\n[exec.primary]\ntype = "NODE"\nconfig = "main.js"\n');
    expect((await readSkillToml(dir)).toml?.exec).toEqual({ type: 'NODE', config: 'main.js' });
  });

  it('R-PRE-05: a parse error is one error issue', async () => {
    const r = await readSkillToml(await withToml('[skill\nname = '));
    expect(r.toml).toBeNull();
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ severity: 'error', code: 'toml.parse' });
  });
});

afterAll(cleanupTemp);
