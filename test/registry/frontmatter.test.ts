import { describe, expect, it } from 'vitest';
import { readFrontmatter, splitSkillMd } from '../../src/registry/frontmatter.ts';

const SPEC_SAMPLE = `---
name: fetch_price
description: 一句话说清「什么时候该调它」，模型靠这句选工具
source: builtin            # builtin / shared / market
category: data             # 会以 [category] 前缀出现在工具描述里
trigger-type: explicit     # explicit 才会进模型的工具清单
cost-tier: low
tags: finance, price
async: false               # true = 长耗时技能，见 §8
force_raw_prompt: false    # true = 用用户原文覆盖 prompt 字段，见 §3.4
metadata:
  openclaw:
    primaryEnv: XXX_API_KEY      # 主凭证变量名
    requires:
      env:  [XXX_API_KEY]        # 也支持 [{name: X, required: true}]
      bins: [curl]               # 需要的命令行工具
---
Body text.
`;

function fm(yamlText: string, fallback = 'folder') {
  const parsed = splitSkillMd(`---\n${yamlText}\n---\n`);
  expect(parsed.error).toBeUndefined();
  return readFrontmatter(parsed.data!, fallback);
}

describe('splitSkillMd', () => {
  it('R-PRE-02: splits a leading --- block from the body', () => {
    const p = splitSkillMd('---\nname: a\ndescription: b\n---\n# Title\nbody\n');
    expect(p).toEqual({ hasFrontmatter: true, data: { name: 'a', description: 'b' }, body: '# Title\nbody\n' });
  });

  it('R-PRE-02: tolerates a BOM and CRLF line endings', () => {
    const p = splitSkillMd('\ufeff---\r\nname: a\r\ntags: x, y\r\n---\r\nbody\r\n');
    expect(p.hasFrontmatter).toBe(true);
    expect(p.data).toEqual({ name: 'a', tags: 'x, y' });
    expect(p.body).toBe('body\r\n');
  });

  it('R-PRE-02: no block at the very start → no frontmatter, whole text is the body', () => {
    expect(splitSkillMd('# Title\n---\nname: a\n---\n')).toEqual({
      hasFrontmatter: false,
      data: null,
      body: '# Title\n---\nname: a\n---\n',
    });
    expect(splitSkillMd('---\nname: a\n').hasFrontmatter).toBe(false);
  });

  it('R-PRE-02: invalid YAML sets error and no data', () => {
    const p = splitSkillMd('---\nname: a\ndescription: [unclosed\n---\nbody');
    expect(p.hasFrontmatter).toBe(true);
    expect(p.data).toBeNull();
    expect(p.error).toMatch(/invalid YAML/);
    expect(p.body).toBe('body');
  });

  it('R-PRE-02: a block that is not a mapping sets error', () => {
    const p = splitSkillMd('---\n- a\n- b\n---\n');
    expect(p.data).toBeNull();
    expect(p.error).toMatch(/not a mapping/);
  });

  it('R-PRE-02: an empty block is an empty mapping', () => {
    expect(splitSkillMd('---\n---\nbody')).toEqual({ hasFrontmatter: true, data: {}, body: 'body' });
  });
});

describe('readFrontmatter', () => {
  it('R-LOAD-03: the spec sample frontmatter is read into a typed record', () => {
    const p = splitSkillMd(SPEC_SAMPLE);
    const { frontmatter, issues } = readFrontmatter(p.data!, 'folder');
    expect(issues).toEqual([]);
    expect(frontmatter).toMatchObject({
      name: 'fetch_price',
      source: 'builtin',
      category: 'data',
      triggerType: 'explicit',
      costTier: 'low',
      tags: ['finance', 'price'],
      async: false,
      forceRawPrompt: false,
      primaryEnv: 'XXX_API_KEY',
      requires: { env: [{ name: 'XXX_API_KEY', required: true }], bins: ['curl'] },
    });
    expect(frontmatter.description).toContain('模型靠这句选工具');
  });

  it('R-LOAD-03: defaults — trigger type explicit, async/force_raw_prompt false, name from the fallback', () => {
    const { frontmatter } = fm('description: d');
    expect(frontmatter.name).toBe('folder');
    expect(frontmatter.triggerType).toBe('explicit');
    expect(frontmatter.async).toBe(false);
    expect(frontmatter.forceRawPrompt).toBe(false);
    expect(frontmatter.tags).toEqual([]);
    expect(frontmatter.requires).toEqual({ env: [], bins: [] });
    expect(frontmatter.source).toBeUndefined();
    expect(frontmatter.skillType).toBeUndefined();
  });

  it('R-LOAD-04: tags as a comma list and as a YAML list give the same array', () => {
    expect(fm('tags: finance, price').frontmatter.tags).toEqual(['finance', 'price']);
    expect(fm('tags: [finance, price]').frontmatter.tags).toEqual(['finance', 'price']);
    expect(fm('tags: "finance,, price ,"').frontmatter.tags).toEqual(['finance', 'price']);
  });

  it('R-LOAD-07: requires.env as names and as objects normalise to the same list', () => {
    const names = fm('metadata:\n  openclaw:\n    requires:\n      env: [A_KEY, B_KEY]').frontmatter.requires.env;
    const objects = fm('metadata:\n  openclaw:\n    requires:\n      env: [{name: A_KEY, required: true}, {name: B_KEY}]').frontmatter
      .requires.env;
    expect(names).toEqual([
      { name: 'A_KEY', required: true },
      { name: 'B_KEY', required: true },
    ]);
    expect(objects).toEqual(names);
  });

  it('A-07: requires.env {required: false} is kept as not required', () => {
    const env = fm('metadata:\n  openclaw:\n    requires:\n      env: [{name: OPT, required: false}, REQ]').frontmatter.requires.env;
    expect(env).toEqual([
      { name: 'OPT', required: false },
      { name: 'REQ', required: true },
    ]);
  });

  it('R-LOAD-07: a malformed requires.env entry is a warning, not a crash', () => {
    const { frontmatter, issues } = fm('metadata:\n  openclaw:\n    requires:\n      env: [{required: true}, OK]');
    expect(frontmatter.requires.env).toEqual([{ name: 'OK', required: true }]);
    expect(issues.map((i) => i.code)).toEqual(['frontmatter.requires_env_invalid']);
  });

  it('R-LOAD-03: trigger_type / cost_tier underscore spellings are accepted', () => {
    const { frontmatter } = fm('trigger_type: scheduled\ncost_tier: high');
    expect(frontmatter.triggerType).toBe('scheduled');
    expect(frontmatter.costTier).toBe('high');
  });

  it('R-LOAD-09/R-LOAD-02: exec_mode, skill_md, wall_sec and timeout_sec are read (seconds as numbers)', () => {
    const { frontmatter } = fm('exec_mode: shell\nskill_md: docs/MAIN.md\nwall_sec: 900\ntimeout_sec: "45"');
    expect(frontmatter.execMode).toBe('shell');
    expect(frontmatter.skillMd).toBe('docs/MAIN.md');
    expect(frontmatter.wallSec).toBe(900);
    expect(frontmatter.timeoutSec).toBe(45);
  });

  it('A-03: cli_commands is read as {sub: schema}; a list of names gives empty schemas', () => {
    expect(fm('cli_commands:\n  start: {type: object}\n  stop: {type: object}').frontmatter.cliCommands).toEqual({
      start: { type: 'object' },
      stop: { type: 'object' },
    });
    expect(fm('cli_commands: [a, b]').frontmatter.cliCommands).toEqual({
      a: { type: 'object', properties: {} },
      b: { type: 'object', properties: {} },
    });
  });

  it('R-FORM-01: skill_type is read; an unknown value is a warning and ignored', () => {
    expect(fm('skill_type: knowledge').frontmatter.skillType).toBe('knowledge');
    const bad = fm('skill_type: magic');
    expect(bad.frontmatter.skillType).toBeUndefined();
    expect(bad.issues.map((i) => i.code)).toEqual(['frontmatter.skill_type_invalid']);
  });

  it('R-LOAD-04: an unknown source is a warning and ignored', () => {
    const r = fm('source: somewhere');
    expect(r.frontmatter.source).toBeUndefined();
    expect(r.issues.map((i) => i.code)).toEqual(['frontmatter.source_invalid']);
  });

  it('R-LOAD-03: async and force_raw_prompt true are read', () => {
    const { frontmatter } = fm('async: true\nforce_raw_prompt: true');
    expect(frontmatter.async).toBe(true);
    expect(frontmatter.forceRawPrompt).toBe(true);
  });
});
