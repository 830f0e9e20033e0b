import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverSkills } from '../../src/registry/index.ts';
import { FIXTURE_ROOT, cleanupTemp, fixture, tempDir } from './helpers.ts';

async function tempRoot(): Promise<string> {
  return tempDir('skillgate-root-');
}

async function docSkill(root: string, folder: string, frontmatter: string): Promise<void> {
  await mkdir(join(root, folder), { recursive: true });
  await writeFile(join(root, folder, 'SKILL.md'), `---\n${frontmatter}\n---\nbody\n`);
}

describe('discoverSkills (R-LOAD-01)', () => {
  it('R-LOAD-01: every fixture folder with a marker is a skill; broken ones are kept but flagged', async () => {
    const reg = await discoverSkills([FIXTURE_ROOT]);
    const names = reg.all().map((s) => s.name);
    for (const n of [
      'type_handler_ts',
      'type_skill_md',
      'type_knowledge',
      'loc_optional_md',
      'loc_docs_md',
      'renamed_skill',
      'handler_no_entry',
      'bad_frontmatter',
    ])
      expect(names, n).toContain(n);
    expect(reg.get('handler_no_entry')?.status).toBe('broken');
    expect(reg.issues()).toContainEqual(
      expect.objectContaining({ skill: 'handler_no_entry', code: 'handler.no_entry', dir: fixture('handler_no_entry') }),
    );
  });

  it('an earlier root wins a name clash; the clash is an issue, not a crash', async () => {
    const a = await tempRoot();
    const b = await tempRoot();
    await docSkill(a, 'dup', 'name: dup\ndescription: from the first root');
    await docSkill(b, 'dup', 'name: dup\ndescription: from the second root');
    await docSkill(b, 'only_b', 'name: only_b\ndescription: b only');
    const reg = await discoverSkills([
      { dir: a, source: 'builtin' },
      { dir: b, source: 'shared' },
    ]);
    expect(reg.get('dup')?.frontmatter.description).toBe('from the first root');
    expect(reg.get('dup')?.source).toBe('builtin');
    expect(reg.get('only_b')?.source).toBe('shared');
    expect(reg.all().map((s) => s.name)).toEqual(['dup', 'only_b']);
    expect(reg.issues()).toContainEqual(expect.objectContaining({ code: 'registry.name_clash', dir: join(b, 'dup'), skill: 'dup' }));
    expect(reg.tools().map((t) => t.function.description)).toEqual(['from the first root', 'b only']);
  });

  it('R-LOAD-14: two folders of one root registering the same frontmatter name → first folder wins', async () => {
    const root = await tempRoot();
    await docSkill(root, 'a_folder', 'name: same\ndescription: first');
    await docSkill(root, 'b_folder', 'name: same\ndescription: second');
    const reg = await discoverSkills([{ dir: root, source: 'shared' }]);
    expect(reg.all()).toHaveLength(1);
    expect(reg.get('same')?.dir).toBe(join(root, 'a_folder'));
    expect(reg.issues().map((i) => i.code)).toContain('registry.name_clash');
  });

  it('hidden folders, node_modules and folders without a marker are ignored', async () => {
    const root = await tempRoot();
    await docSkill(root, '.hidden', 'name: hidden\ndescription: x');
    await docSkill(root, 'node_modules', 'name: nm\ndescription: x');
    await mkdir(join(root, 'empty_folder', 'sub'), { recursive: true });
    await writeFile(join(root, 'stray.md'), 'not a folder');
    await docSkill(root, 'real', 'name: real\ndescription: x');
    const reg = await discoverSkills([{ dir: root, source: 'shared' }]);
    expect(reg.all().map((s) => s.name)).toEqual(['real']);
  });

  it('a folder with only a handler file or only skill.toml is a skill', async () => {
    const root = await tempRoot();
    await cp(fixture('type_handler_ts/handler.ts'), join(root, 'bare_handler', 'handler.ts'), { recursive: true });
    await mkdir(join(root, 'toml_only'));
    await writeFile(
      join(root, 'toml_only', 'skill.toml'),
      '[skill]\nname = "toml_only"\ndescription = "inline"\nversion = "1.0.0"\n[exec]\ntype = "INLINE_SHELL"\ncommand = "echo hi"\n',
    );
    const reg = await discoverSkills([{ dir: root, source: 'shared' }]);
    expect(reg.get('bare_handler')).toMatchObject({ skillType: 'handler', execType: 'IN_PROCESS', status: 'ok', skillMdPath: null });
    expect(reg.get('toml_only')).toMatchObject({
      skillType: 'handler',
      execType: 'INLINE_SHELL',
      status: 'ok',
      exec: { type: 'INLINE_SHELL', command: 'echo hi' },
    });
    expect(reg.get('toml_only')?.frontmatter.description).toBe('inline');
  });

  it('R-PRE-05: [exec] with a missing config file or an unknown type is broken', async () => {
    const root = await tempRoot();
    await mkdir(join(root, 'no_config'));
    await writeFile(join(root, 'no_config', 'skill.toml'), '[skill]\nname = "no_config"\n[exec]\ntype = "NODE"\nconfig = "main.js"\n');
    await mkdir(join(root, 'odd_type'));
    await writeFile(join(root, 'odd_type', 'skill.toml'), '[skill]\nname = "odd_type"\n[exec]\ntype = "COBOL"\nconfig = "x"\n');
    await mkdir(join(root, 'escape'));
    await writeFile(
      join(root, 'escape', 'skill.toml'),
      '[skill]\nname = "escape"\n[exec]\ntype = "SHELL"\nconfig = "../no_config/skill.toml"\n',
    );
    const reg = await discoverSkills([{ dir: root, source: 'shared' }]);
    expect(reg.get('no_config')?.status).toBe('broken');
    expect(reg.get('no_config')?.issues.map((i) => i.code)).toContain('exec.config_missing');
    expect(reg.get('odd_type')?.issues.map((i) => i.code)).toContain('exec.type_invalid');
    expect(reg.get('escape')?.issues.map((i) => i.code)).toContain('exec.config_escape');
    expect(reg.tools()).toEqual([]);
  });

  it('a root that does not exist is a warning and discovery goes on', async () => {
    const reg = await discoverSkills([{ dir: '/nonexistent/skillgate-root', source: 'shared' }, FIXTURE_ROOT]);
    expect(reg.get('type_skill_md')).toBeDefined();
    expect(reg.issues()).toContainEqual(expect.objectContaining({ code: 'registry.root_missing', severity: 'warning' }));
  });
});

afterAll(cleanupTemp);
