/**
 * metadata.openclaw.primaryEnv names the skill's main credential variable
 * (R-LOAD-10): parsed into the skill record, listed by `declaredParams` first, and exposed in the
 * operators' console — the skill detail's `primary_env` and the parameters section, where it is
 * listed before anything is stored, marked primary, and stored encrypted even when its name
 * matches none of the secret substrings.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { withCall } from '../../src/wiring/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { declaredParams, secretParamNames } from '../../src/registry/credentials.ts';
import { discoverSkills, type Registry } from '../../src/registry/discover.ts';
import { readFrontmatter } from '../../src/registry/frontmatter.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { startConsoleRig, type ConsoleRig } from '../console/rig.ts';
import { cleanupTemp, tempDir } from './helpers.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/skills/', import.meta.url));

describe('primaryEnv in the skill record (R-LOAD-10)', () => {
  let registry: Registry;
  beforeAll(async () => {
    registry = await discoverSkills([{ dir: FIXTURES, source: 'shared' }]);
  });

  it('R-LOAD-10: parsed from metadata.openclaw in both YAML and inline-JSON frontmatter', () => {
    expect(registry.get('requires_env')?.frontmatter.primaryEnv).toBe('DEMO_API_KEY');
    expect(registry.get('openclaw_style')?.frontmatter.primaryEnv).toBe('WEATHER_API_KEY');
    expect(readFrontmatter({ name: 'x', description: 'd' }, 'x').frontmatter.primaryEnv).toBeUndefined();
  });

  it('R-LOAD-10: declaredParams lists the primary credential first, then requires.env, each once; it is always secret', () => {
    const rec = registry.get('requires_env')!;
    expect(declaredParams(rec)).toEqual([
      { key: 'DEMO_API_KEY', secret: true, primary: true, required: true },
      { key: 'DEMO_REGION', secret: false, primary: false, required: true },
    ]);
    // A primary credential whose name matches no secret substring is still secret.
    const plain = {
      frontmatter: readFrontmatter(
        {
          name: 'p',
          description: 'd',
          metadata: { openclaw: { primaryEnv: 'SERVICE_PASS', requires: { env: [{ name: 'HOSTNAME', required: false }] } } },
        },
        'p',
      ).frontmatter,
      secretParams: [],
    };
    expect(declaredParams(plain)).toEqual([
      { key: 'SERVICE_PASS', secret: true, primary: true, required: false },
      { key: 'HOSTNAME', secret: false, primary: false, required: false },
    ]);
    expect(secretParamNames(plain)).toEqual(['SERVICE_PASS']);
  });
});

describeEachEngine('primaryEnv in the operators console (R-LOAD-10)', (db) => {
  let rig: ConsoleRig;
  beforeAll(async () => {
    const root = await tempDir();
    mkdirSync(join(root, 'plain_primary'));
    writeFileSync(
      join(root, 'plain_primary', 'SKILL.md'),
      '---\nname: plain_primary\ndescription: Uses a service password\nmetadata:\n  openclaw:\n    primaryEnv: SERVICE_PASS\n    requires:\n      env: [SERVICE_PASS, SERVICE_HOST]\n---\nBody\n',
    );
    const registry = await discoverSkills([
      { dir: FIXTURES, source: 'shared' },
      { dir: root, source: 'shared' },
    ]);
    const log = createLogger({ level: 'silent' });
    const services = {
      db: db(),
      registry,
      settings: { dataDir: '/nonexistent', walls: {} as never, fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log,
    } as unknown as SkillServices;
    rig = await startConsoleRig(db(), { deps: { services: withCall(services) } });
  });
  afterAll(async () => {
    await rig?.close();
    await cleanupTemp();
  });

  it('R-LOAD-10: the skill detail carries primary_env', async () => {
    const r = await rig.call('skills/roles/default/skills/requires_env');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ skill: 'requires_env', primary_env: 'DEMO_API_KEY' });
    expect((await rig.call('skills/roles/default/skills/openclaw_style')).json.primary_env).toBe('WEATHER_API_KEY');
  });

  it('R-LOAD-10: the parameters section lists the primary credential first, unset, before anything is stored', async () => {
    const r = await rig.call('secrets/default/requires_env');
    expect(r.status).toBe(200);
    expect(r.json.primary_env).toBe('DEMO_API_KEY');
    expect(r.json.params).toEqual([
      { key: 'DEMO_API_KEY', secret: true, set: false, primary: true, required: true },
      { key: 'DEMO_REGION', secret: false, set: false, required: true },
    ]);
  });

  it('R-LOAD-10: the primary credential is stored encrypted even when its name looks harmless', async () => {
    const put = await rig.call('secrets/default/plain_primary/SERVICE_PASS', { method: 'PUT', body: { value: 'hunter2-very-secret' } });
    expect(put.json).toEqual({ ok: true, key: 'SERVICE_PASS', secret: true });
    const host = await rig.call('secrets/default/plain_primary/SERVICE_HOST', { method: 'PUT', body: { value: 'db.internal' } });
    expect(host.json).toEqual({ ok: true, key: 'SERVICE_HOST', secret: false });
    const list = await rig.call('secrets/default/plain_primary');
    expect(JSON.stringify(list.json)).not.toContain('hunter2');
    expect(list.json.params[0]).toMatchObject({ key: 'SERVICE_PASS', primary: true, secret: true, set: true });
    expect(list.json.params[0]).not.toHaveProperty('value');
    expect(list.json.params[1]).toMatchObject({ key: 'SERVICE_HOST', secret: false, set: true, value: 'db.internal' });
    const { rows } = await db().query<{ encrypted: boolean; value: string }>(
      `SELECT encrypted, value FROM skillgate.skill_config WHERE role_id = 'default' AND skill = 'plain_primary' AND key = 'SERVICE_PASS'`,
    );
    expect(rows[0]!.encrypted).toBe(true);
    expect(rows[0]!.value).not.toContain('hunter2');
  });
});
