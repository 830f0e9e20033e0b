import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { locateSkillMd } from '../../src/registry/locate.ts';
import { cleanupTemp, copyFixture, fixture, loadFixture } from './helpers.ts';

/** The `WHICH:` marker written in each candidate document of the fixtures. */
async function which(path: string | null): Promise<string | null> {
  if (!path) return null;
  const m = /WHICH: (\w+)/.exec(await readFile(path, 'utf8'));
  return m ? m[1]! : null;
}

describe('SKILL.md location order (R-LOAD-02, A-01, A-02)', () => {
  it('R-LOAD-02: with every candidate present, <dir>/SKILL.md wins', async () => {
    const s = await loadFixture('loc_all');
    expect(s.skillMdPath).toBe(join(fixture('loc_all'), 'SKILL.md'));
    expect(await which(s.skillMdPath)).toBe('default');
  });

  it('R-LOAD-02: removing candidates one by one, each next candidate wins in order', async () => {
    const dir = await copyFixture('loc_all');
    const order: [string, string][] = [
      ['SKILL.md', 'default'],
      ['upstream/SKILL.md', 'origin_upper'],
      ['upstream/skill.md', 'origin_lower'],
      ['optional-skills/loc_all/SKILL.md', 'optional_dir'],
      ['optional-skills/loc_all.md', 'optional_md'],
      ['docs/loc_all/SKILL.md', 'docs_dir'],
      ['docs/loc_all.md', 'docs_md'],
      ['README.md', 'readme'],
    ];
    const seen: string[] = [];
    for (const [file] of order) {
      const found = await locateSkillMd(dir, { originPath: 'upstream', names: ['loc_all'] });
      seen.push((await which(found.path))!);
      await rm(join(dir, file));
    }
    expect(seen).toEqual(order.map(([, w]) => w));
    expect((await locateSkillMd(dir, { originPath: 'upstream' })).path).toBeNull();
  });

  it('A-01: skill.toml [skill].skill_md wins over the default SKILL.md', async () => {
    const s = await loadFixture('loc_toml_skill_md');
    expect(s.skillMdPath).toBe(join(fixture('loc_toml_skill_md'), 'doc/MAIN.md'));
    expect(s.frontmatter.description).toBe('the document named by skill.toml skill_md');
  });

  it('A-01: skill_md in the default SKILL.md frontmatter is followed once, not twice', async () => {
    const s = await loadFixture('loc_fm_skill_md');
    expect(await which(s.skillMdPath)).toBe('fm_skill_md');
    expect(s.doc).toContain('WHICH: fm_skill_md');
  });

  it('A-01: a skill_md that does not exist falls back to the default SKILL.md with a warning', async () => {
    const dir = await copyFixture('loc_fm_skill_md');
    await rm(join(dir, 'alt.md'));
    const r = await locateSkillMd(dir);
    expect(await which(r.path)).toBe('default');
    expect(r.issues.map((i) => i.code)).toEqual(['locate.skill_md_missing']);
  });

  it('R-LOAD-02: origin_path/SKILL.md is found when it is the only candidate', async () => {
    const s = await loadFixture('loc_origin_upper');
    expect(await which(s.skillMdPath)).toBe('origin_upper');
  });

  it('R-LOAD-02: origin_path/skill.md is found when SKILL.md is absent', async () => {
    const s = await loadFixture('loc_origin_lower');
    expect(s.skillMdPath).toBe(join(fixture('loc_origin_lower'), 'upstream/skill.md'));
  });

  it('A-02: optional-skills/<name>/SKILL.md is found', async () => {
    const s = await loadFixture('loc_optional_dir');
    expect(await which(s.skillMdPath)).toBe('optional_dir');
  });

  it('A-02: optional-skills/<name>.md is found', async () => {
    const s = await loadFixture('loc_optional_md');
    expect(await which(s.skillMdPath)).toBe('optional_md');
  });

  it('A-02: optional-skills/<name> as a plain file is found', async () => {
    const s = await loadFixture('loc_optional_file');
    expect(s.skillMdPath).toBe(join(fixture('loc_optional_file'), 'optional-skills/loc_optional_file'));
    expect(s.frontmatter.description).toBe('optional-skills/<name> as a file');
  });

  it('A-02: docs/<name>.md is found', async () => {
    const s = await loadFixture('loc_docs_md');
    expect(await which(s.skillMdPath)).toBe('docs_md');
  });

  it('R-LOAD-02: README.md is the last fallback', async () => {
    const s = await loadFixture('loc_readme');
    expect(s.skillMdPath).toBe(join(fixture('loc_readme'), 'README.md'));
    expect(s.status).toBe('ok');
  });

  it('R-LOAD-02: a skill_md escaping the folder with .. is never read', async () => {
    const s = await loadFixture('loc_escape');
    expect(s.skillMdPath).toBe(join(fixture('loc_escape'), 'README.md'));
    expect(s.frontmatter.description).toBe('own README, used because skill_md escapes');
    expect(s.issues.map((i) => i.code)).toContain('locate.escape');
  });

  it('R-LOAD-02: absolute and .. origin_path values are refused', async () => {
    const dir = fixture('loc_readme');
    for (const originPath of ['/etc', '../loc_origin_upper/upstream']) {
      const r = await locateSkillMd(dir, { originPath });
      expect(r.path).toBe(join(dir, 'README.md'));
      expect(r.issues.map((i) => i.code)).toContain('locate.escape');
    }
  });
});

afterAll(cleanupTemp);
