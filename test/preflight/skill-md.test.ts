import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/registry/preflight.ts';
import { checkName } from '../../src/registry/preflight/name.ts';
import { fixture, graded, makeSkill, skillMd } from './support.ts';

const create = { mode: 'create' } as const;

describe('preflight: SKILL.md and the skill name', () => {
  it('R-PRE-02: a clean TS skill (SKILL.md, handler.ts, schema.json) has no issue', async () => {
    expect(await preflight(fixture('good_ts'), create)).toEqual([]);
  });

  it('R-PRE-02: missing description ⇒ exactly one issue', async () => {
    const issues = await preflight(fixture('no_description'), create);
    expect(graded(issues)).toEqual([['error', 'frontmatter.description_missing']]);
    expect(issues[0]!.message).toMatch(/SKILL\.md frontmatter has no description/);
  });

  it('R-PRE-02: missing name and missing description are two separate issues', async () => {
    const dir = makeSkill('both_missing', { 'SKILL.md': '---\ncategory: data\n---\nBody\n' });
    expect(graded(await preflight(dir, create))).toEqual([
      ['error', 'frontmatter.name_missing'],
      ['error', 'frontmatter.description_missing'],
    ]);
  });

  it('R-PRE-02: SKILL.md without a leading --- block ⇒ frontmatter.missing', async () => {
    const issues = await preflight(fixture('no_frontmatter'), create);
    expect(graded(issues)).toEqual([['error', 'frontmatter.missing']]);
    expect(issues[0]!.message).toMatch(/does not start with a --- frontmatter block/);
  });

  it('R-PRE-02: unparsable YAML ⇒ frontmatter.invalid', async () => {
    const issues = await preflight(fixture('bad_yaml'), create);
    expect(graded(issues)).toEqual([['error', 'frontmatter.invalid']]);
    expect(issues[0]!.message).toMatch(/^SKILL\.md: invalid YAML/);
  });

  it('R-PRE-02: neither SKILL.md nor skill.toml ⇒ skill_md.missing; a README.md alone does not count', async () => {
    expect(graded(await preflight(fixture('no_skill_md'), create))).toEqual([['error', 'skill_md.missing']]);
    const readme = makeSkill('readme_only', { 'README.md': '# readme_only\n' });
    const issues = await preflight(readme, create);
    expect(graded(issues)).toEqual([['error', 'skill_md.missing']]);
    expect(issues[0]!.message).toMatch(/README\.md is only used as documentation/);
  });

  it('R-PRE-02: skill.toml alone satisfies the SKILL.md rule', async () => {
    const issues = await preflight(fixture('toml_ok'), create);
    expect(issues.map((i) => i.code)).not.toContain('skill_md.missing');
  });

  it('R-PRE-03 / R-LOAD-14: a name that differs from the folder ⇒ name.mismatch saying it registers under the name', async () => {
    const issues = await preflight(fixture('name_mismatch'), create);
    expect(graded(issues)).toEqual([['error', 'name.mismatch']]);
    expect(issues[0]!.message).toMatch(/register as "other_name"/);
  });

  it('R-PRE-03: "Foo" and "-foo" are rejected, "foo_bar-1" is accepted', () => {
    expect(checkName('Foo', 'Foo', 'SKILL.md').map((f) => f.code)).toEqual(['name.invalid']);
    expect(checkName('-foo', '-foo', 'SKILL.md').map((f) => f.code)).toEqual(['name.invalid']);
    expect(checkName('foo_bar-1', 'foo_bar-1', 'SKILL.md')).toEqual([]);
  });

  it('R-PRE-03: an invalid name that also differs from the folder gives two issues', async () => {
    const dir = makeSkill('my_skill', { 'SKILL.md': skillMd('My Skill') });
    expect(graded(await preflight(dir, create))).toEqual([
      ['error', 'name.invalid'],
      ['error', 'name.mismatch'],
    ]);
  });

  it('R-LOAD-17: SKILL.md over 8000 characters ⇒ a non-blocking warning, even in create mode', async () => {
    const long = makeSkill('long_doc', { 'SKILL.md': skillMd('long_doc') + 'x'.repeat(8001) });
    const issues = await preflight(long, create);
    expect(graded(issues)).toEqual([['warning', 'skill_md.too_long']]);
    expect(issues[0]!.message).toMatch(/references\//);
  });

  it('R-LOAD-17: counts characters, not bytes (8000 CJK characters are fine)', async () => {
    const head = skillMd('cjk_doc');
    const doc = makeSkill('cjk_doc', { 'SKILL.md': head + '技'.repeat(8000 - head.length) });
    expect(await preflight(doc, create)).toEqual([]);
  });
});
