/**
 * Role scope of the live skill set (docs/configuration.md;
 * R-LOAD-04): a role sees the built-in/shared skills its config list gives it, minus the
 * console's overrides, plus its own skills — never another role's; a role skill never shadows
 * a built-in one; overrides are stored in the database and seen by a second process.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCallSkill } from '../../src/orchestration/call-skill.ts';
import { catalogTools, publishCatalog } from '../../src/registry/catalog.ts';
import type { RuntimeContext } from '../../src/runtime/types.ts';
import { createSkillLifecycle } from '../../src/lifecycle/live.ts';
import { createLogger } from '../../src/log/logger.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { BUILTIN, openHarness, skillFiles, type Harness } from './live-helpers.ts';

async function writeSkill(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [n, c] of Object.entries(files)) await writeFile(join(dir, n), c);
}

describeEachEngine('role scope', (db) => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(db());
    await writeSkill(join(h.dataDir, 'role-skills', 'sales', 'sales_only'), skillFiles('sales_only', '1'));
    // A role skill named like a built-in: flagged, never served in its place.
    await writeSkill(join(h.dataDir, 'role-skills', 'sales', 'help'), skillFiles('help', 'fake'));
    const report = await h.lifecycle.reload('test');
    expect(report.added).toContain('sales_only');
  });
  afterAll(async () => {
    await h.close();
  });

  it('R-LOAD-04 role A sees its own skill (source role, ownerRole A); role B does not, whatever its list says', () => {
    expect(h.lifecycle.registry().get('sales_only')).toMatchObject({ source: 'role', ownerRole: 'sales', status: 'ok' });
    expect(h.lifecycle.skillsFor('sales')).toContain('sales_only');
    expect(h.lifecycle.skillsFor('ops')).not.toContain('sales_only');
    // An unknown role gets every shared skill but no role's own skill.
    expect(h.lifecycle.skillsFor('nobody')).not.toContain('sales_only');
    expect(h.lifecycle.skillsFor('nobody')).toContain('help');
  });

  it('the config list decides for built-in skills: ops has only help and datatable', () => {
    expect([...h.lifecycle.skillsFor('ops')].sort()).toEqual(['datatable', 'help']);
    expect(h.lifecycle.skillsFor('sales')).toEqual(expect.arrayContaining(['help', 'datatable', 'notify', 'sales_only']));
  });

  it('a role skill never replaces a built-in of the same name: the built-in serves, the clash is an issue', () => {
    expect(h.lifecycle.registry().get('help')).toMatchObject({ source: 'builtin' });
    const clash = h.lifecycle
      .registry()
      .issues()
      .find((i) => i.code === 'lifecycle.role_shadows');
    expect(clash).toMatchObject({ severity: 'error', skill: 'help', dir: join(h.dataDir, 'role-skills', 'sales', 'help') });
  });

  it('a console override disables a built-in for one role only, and can enable one the list omits', async () => {
    await h.lifecycle.setEnabled('ops', 'help', false);
    await h.lifecycle.setEnabled('ops', 'notify', true);
    expect([...h.lifecycle.skillsFor('ops')].sort()).toEqual(['datatable', 'notify']);
    expect(h.lifecycle.skillsFor('sales')).toContain('help');
    const tools = h.lifecycle
      .registry()
      .tools({ skills: h.lifecycle.skillsFor('ops') })
      .map((t) => t.function.name);
    expect(tools).not.toContain('help');
    // `help` lists what the role can do: it follows the published scope.
    publishCatalog(h.lifecycle.registry(), h.config, h.lifecycle.skillsFor);
    expect(catalogTools('ops')!.map((t) => t.function.name)).not.toContain('help');
    expect(catalogTools('sales')!.map((t) => t.function.name)).toContain('help');
  });

  it("roleState lists what the role may see with its enablement (never another role's own skills)", async () => {
    const ops = await h.lifecycle.roleState('ops');
    expect(ops.find((s) => s.skill === 'help')).toMatchObject({ enabled: false, source: 'builtin', status: 'ok' });
    expect(ops.find((s) => s.skill === 'send_message')).toMatchObject({ enabled: false });
    expect(ops.some((s) => s.skill === 'sales_only')).toBe(false);
    const sales = await h.lifecycle.roleState('sales');
    expect(sales.find((s) => s.skill === 'sales_only')).toMatchObject({ enabled: true, source: 'role', ownerRole: 'sales' });
  });

  it("call_skill applies the caller role's scope: ops may not reach sales' own skill, sales may", async () => {
    const callAs = (roleId: string) =>
      makeCallSkill(h.services(), {
        caller: 'caller',
        depth: 1,
        deadline: Date.now() + 60_000,
        parent: () => ({ role_id: roleId, session_id: 's', workspace_dir: '' }) as unknown as RuntimeContext,
        lang: 'en',
      });
    expect(await callAs('ops')('sales_only', {})).toMatchObject({ ok: false, error: 'role "ops" does not enable skill "sales_only"' });
    expect(JSON.stringify(await callAs('sales')('sales_only', {}))).not.toMatch(/does not enable/);
  });

  it('the overrides live in the database: a second process (replica, CLI) reads the same scope', async () => {
    const log = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
    const other = await createSkillLifecycle({
      db: db(),
      settings: { dataDir: h.dataDir, skillRoots: [{ dir: BUILTIN, source: 'builtin' }] },
      config: h.config,
      log,
      watch: false,
    });
    try {
      expect([...other.skillsFor('ops')].sort()).toEqual(['datatable', 'notify']);
      expect(other.skillsFor('sales')).toContain('sales_only');
    } finally {
      await other.close();
    }
  });
});
