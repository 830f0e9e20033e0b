import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRequires, whichSync } from '../../src/registry/requires.ts';
import { cleanupTemp, loadFixture, tempDir } from './helpers.ts';

const always = (): boolean => true;

describe('checkRequires (R-LOAD-08, R-LOAD-09, A-07)', () => {
  it('R-LOAD-08: a missing requires.env returns the needs_config envelope (the skill must not run)', async () => {
    const skill = await loadFixture('requires_env');
    const r = checkRequires(skill, { env: {}, config: {}, which: always });
    expect(r).toEqual({
      success: false,
      error_type: 'config',
      needs_config: ['DEMO_API_KEY', 'DEMO_REGION'],
      user_message: '技能 requires_env 缺少配置：DEMO_API_KEY、DEMO_REGION。请管理员配置后重试。',
      error: expect.stringContaining('DEMO_API_KEY, DEMO_REGION'),
    });
  });

  it('A-07: env is satisfied by a role config value or by process env; blank values do not count', async () => {
    const skill = await loadFixture('requires_env');
    expect(checkRequires(skill, { env: { DEMO_REGION: 'eu' }, config: { DEMO_API_KEY: 'k' }, which: always })).toBeNull();
    const blank = checkRequires(skill, { env: { DEMO_REGION: 'eu', DEMO_API_KEY: '  ' }, config: { DEMO_API_KEY: '' }, which: always });
    expect(blank?.needs_config).toEqual(['DEMO_API_KEY']);
  });

  it('A-07: required:false entries never block; both requires.env shapes are read', async () => {
    const skill = await loadFixture('requires_env_objects');
    expect(skill.frontmatter.requires.env).toEqual([
      { name: 'DEMO_API_KEY', required: true },
      { name: 'DEMO_REGION', required: true },
      { name: 'DEMO_OPTIONAL', required: false },
    ]);
    const r = checkRequires(skill, { env: {}, config: {}, which: always });
    expect(r?.needs_config).toEqual(['DEMO_API_KEY', 'DEMO_REGION']);
  });

  it('A-07: a missing bin is also in needs_config', async () => {
    const skill = await loadFixture('requires_env_objects');
    const r = checkRequires(skill, { env: { DEMO_API_KEY: 'k', DEMO_REGION: 'r', PATH: '/nonexistent' }, config: {} });
    expect(r?.needs_config).toEqual(['definitely-not-a-real-binary-xyz']);
  });

  it('R-LOAD-09: exec_mode shell skills do not check bins on the host', async () => {
    const skill = await loadFixture('requires_exec_mode');
    expect(checkRequires(skill, { env: { PATH: '/nonexistent' }, config: {} })).toBeNull();
  });

  it('A-07: lang en gives an English user_message', async () => {
    const skill = await loadFixture('requires_env');
    const r = checkRequires(skill, { env: {}, config: { DEMO_REGION: 'x' }, which: always, lang: 'en' });
    expect(r?.user_message).toBe(
      'Skill requires_env is missing configuration: DEMO_API_KEY. Ask an administrator to configure it and try again.',
    );
  });

  it('R-LOAD-09: whichSync searches PATH for an executable file', async () => {
    const dir = await tempDir('skillgate-bin-');
    await writeFile(join(dir, 'mytool'), '#!/bin/sh\n');
    await writeFile(join(dir, 'notexec'), '');
    await chmod(join(dir, 'mytool'), 0o755);
    await chmod(join(dir, 'notexec'), 0o644);
    expect(whichSync('mytool', `/nonexistent:${dir}`)).toBe(true);
    expect(whichSync('notexec', dir)).toBe(false);
    expect(whichSync('absent', dir)).toBe(false);
    expect(whichSync(join(dir, 'mytool'), '')).toBe(true);
  });
});

afterAll(cleanupTemp);
