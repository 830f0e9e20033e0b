/**
 * A skill created with createRoleSkill is an ordinary role skill: discovery over the role's
 * folder registers it (source `role`, status ok) and runSkill runs it — and an edit shows up
 * after the next discovery (R-PRE-08; R-LOAD-01).
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { resolveWalls } from '../../src/config/walls.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { roleSkillRoot } from '../../src/lifecycle/role-paths.ts';
import { createRoleSkill, editRoleSkill } from '../../src/lifecycle/skill-edit.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { fixtureFiles, tempDataDir } from './helpers.ts';
import { looseRequest } from '../helpers/request.ts';
import type { LineDefaults } from '../../src/executor/request.ts';

const BUILTIN = fileURLToPath(new URL('../../skills/', import.meta.url));
const ROLE = 'sales';

const DEFAULTS: LineDefaults = {
  role_id: ROLE,
  org_id: 'demo',
  session_id: 'lifecycle-run',
  channel: 'web',
  chat_mode: true,
  allow_sql: true,
  team_role: 'member',
  is_admin: false,
};

describeEachEngine('a created role skill is discovered and runs', (db) => {
  let dataDir: string;
  const services = async (): Promise<SkillServices> => ({
    db: db(),
    registry: await discoverSkills([{ dir: BUILTIN, source: 'builtin' }, roleSkillRoot(dataDir, ROLE)]),
    settings: { dataDir, walls: resolveWalls({}), fetchAllow: [], llm: undefined },
    secretKey: randomBytes(32),
    log: createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }), level: 'debug' }),
  });

  beforeAll(async () => {
    await migrate(db());
    dataDir = await tempDataDir();
  });

  it('R-PRE-08 / R-LOAD-01: createRoleSkill → discoverSkills (source role, status ok, in the tool list) → runSkill returns the handler result', async () => {
    const created = await createRoleSkill({ dataDir, roleId: ROLE, name: 'greet', files: await fixtureFiles('greet') });
    expect(created.ok, JSON.stringify(created.refusal)).toBe(true);
    const s = await services();
    const rec = s.registry.get('greet');
    expect(rec).toMatchObject({ source: 'role', status: 'ok', execType: 'IN_PROCESS', version: '1.0.0' });
    expect(s.registry.tools().map((t) => t.function.name)).toContain('greet');
    const env = await runSkill(s, looseRequest({ skill: 'greet', input: { name: '小王' }, defaults: DEFAULTS, line: 'chat' }));
    expect(env).toMatchObject({ greeting: '你好，小王', role: ROLE });
  });

  it('an accepted edit is what the next discovery runs; a refused one leaves the old handler serving', async () => {
    const greet = await fixtureFiles('greet');
    const edited = greet['handler.ts']!.replace('你好，', 'Hello, ');
    expect((await editRoleSkill({ dataDir, roleId: ROLE, name: 'greet', files: { 'handler.ts': edited } })).ok).toBe(true);
    // the in-process loader keys modules by the file's mtime and size, so the edited handler is loaded fresh
    let env = await runSkill(await services(), looseRequest({ skill: 'greet', input: { name: 'Wang' }, defaults: DEFAULTS, line: 'chat' }));
    expect(env).toMatchObject({ greeting: 'Hello, Wang' });

    const evil = (await fixtureFiles('exec_cmd'))['handler.ts']!;
    expect((await editRoleSkill({ dataDir, roleId: ROLE, name: 'greet', files: { 'handler.ts': evil } })).refusal?.code).toBe(
      'danger.critical',
    );
    env = await runSkill(await services(), looseRequest({ skill: 'greet', input: { name: 'Wang' }, defaults: DEFAULTS, line: 'chat' }));
    expect(env).toMatchObject({ greeting: 'Hello, Wang' });
  });
});
