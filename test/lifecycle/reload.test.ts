/**
 * Hot reload of the live skill set (R-LOAD-01, R-LOAD-04): a skill edited on
 * disk is live without a restart, a broken edit keeps the last good version serving (and is
 * reported), a new folder appears, a removed one disappears. Bounded polls, no sleeps.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runSkill } from '../../src/wiring/skill-call.ts';
import type { ReloadReport } from '../../src/lifecycle/types.ts';
import type { Db } from '../../src/store/db.ts';
import { openEmbeddedDb } from '../../src/store/open.ts';
import { tempDataDir } from './helpers.ts';
import { defaultsFor, openHarness, skillFiles, type Harness } from './live-helpers.ts';
import { looseRequest } from '../helpers/request.ts';

const POLL = { timeout: 10_000, interval: 50 };

let db: Db;
let h: Harness;
let shared: string;
const reports: ReloadReport[] = [];

async function writeSkill(dir: string, files: Record<string, string>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [n, c] of Object.entries(files)) await writeFile(join(dir, n), c);
}

const run = async (skill: string, roleId = 'sales') =>
  runSkill(h.services(), looseRequest({ skill, input: {}, defaults: defaultsFor(roleId), line: 'chat' }));

beforeAll(async () => {
  db = await openEmbeddedDb();
  shared = await tempDataDir();
  await writeSkill(join(shared, 'hot'), skillFiles('hot', 'v1'));
  h = await openHarness(db, { reloadMs: 50, extraRoots: [shared] });
  h.lifecycle.onChange((r) => void reports.push(r));
});
afterAll(async () => {
  await h.close();
  await db.close();
});

it('R-LOAD-01 a skill edited on disk is live without a restart (registry and handler), listeners get the report', async () => {
  expect(await run('hot')).toMatchObject({ version: 'v1' });
  await writeSkill(
    join(shared, 'hot'),
    skillFiles('hot', 'v22', { 'SKILL.md': skillFiles('hot', '')['SKILL.md']!.replace('lifecycle test skill hot', 'edited description') }),
  );
  await expect.poll(() => h.lifecycle.registry().get('hot')?.frontmatter.description, POLL).toBe('edited description');
  expect(reports.some((r) => r.changed.includes('hot'))).toBe(true);
  expect(await run('hot')).toMatchObject({ version: 'v22' });
});

it('R-LOAD-04 a broken edit keeps the last good version serving and reports why (keptLastGood)', async () => {
  await writeFile(join(shared, 'hot', 'handler.ts'), 'export const not_an_entry = 1;\n');
  await expect.poll(() => reports.flatMap((r) => r.keptLastGood).find((k) => k.skill === 'hot'), POLL).toBeDefined();
  const kept = reports.flatMap((r) => r.keptLastGood).find((k) => k.skill === 'hot')!;
  expect(kept.dir).toBe(join(shared, 'hot'));
  expect(kept.issues.length).toBeGreaterThan(0);
  expect(h.lifecycle.registry().get('hot')).toMatchObject({ status: 'ok', frontmatter: { description: 'edited description' } });
  expect(
    h.lifecycle
      .registry()
      .issues()
      .some((i) => i.skill === 'hot' && i.severity === 'error'),
  ).toBe(true);
  // The handler module loaded before the broken edit keeps answering.
  expect(await run('hot')).toMatchObject({ version: 'v22' });
  // A fixed edit replaces it.
  await writeFile(join(shared, 'hot', 'handler.ts'), skillFiles('hot', 'v333')['handler.ts']!);
  await expect.poll(async () => (await run('hot')).version, POLL).toBe('v333');
  // The call loads the edited file at once; the registry's reload follows its debounce.
  await expect
    .poll(
      () =>
        h.lifecycle
          .registry()
          .issues()
          .some((i) => i.skill === 'hot' && i.severity === 'error'),
      POLL,
    )
    .toBe(false);
});

it('R-LOAD-04: a good handler never called before a broken edit still answers (syntax error, then a top-level throw)', async () => {
  await writeSkill(join(shared, 'cold'), skillFiles('cold', 'good1'));
  await expect.poll(() => h.lifecycle.registry().get('cold')?.status, POLL).toBe('ok');
  // Never called; now a syntax error is saved.
  await writeFile(join(shared, 'cold', 'handler.ts'), 'export async function execute( {\n  return { version: ;\n');
  await expect.poll(() => reports.flatMap((r) => r.keptLastGood).find((k) => k.skill === 'cold'), POLL).toBeDefined();
  expect(
    reports
      .flatMap((r) => r.keptLastGood)
      .find((k) => k.skill === 'cold')!
      .issues.map((i) => i.code),
  ).toContain('handler.parse');
  expect(h.lifecycle.keptIssues('cold').map((i) => i.code)).toContain('handler.parse');
  expect(await run('cold')).toMatchObject({ version: 'good1' });
  // A good edit, never called, then one that parses but throws while loading: the good one answers.
  await writeFile(join(shared, 'cold', 'handler.ts'), skillFiles('cold', 'good2')['handler.ts']!);
  await expect.poll(() => h.lifecycle.keptIssues('cold').length, POLL).toBe(0);
  const n = reports.length;
  await writeFile(join(shared, 'cold', 'handler.ts'), `throw new Error('boom at load');\n${skillFiles('cold', 'bad')['handler.ts']!}`);
  await expect
    .poll(
      () =>
        reports
          .slice(n)
          .flatMap((r) => r.keptLastGood)
          .find((k) => k.skill === 'cold'),
      POLL,
    )
    .toBeDefined();
  const issue = reports
    .slice(n)
    .flatMap((r) => r.keptLastGood)
    .find((k) => k.skill === 'cold')!.issues[0]!;
  expect(issue).toMatchObject({ code: 'handler.load_failed' });
  expect(issue.message).toContain('boom at load');
  expect(await run('cold')).toMatchObject({ version: 'good2' });
  expect(h.lifecycle.registry().get('cold')).toMatchObject({ status: 'ok' });
  // A top-level process.exit in a new version fails its import, not the gateway.
  const m = reports.length;
  await writeFile(
    join(shared, 'cold', 'handler.ts'),
    `if (Date.now() > 0) process.exit(3);\n${skillFiles('cold', 'exits')['handler.ts']!}`,
  );
  await expect
    .poll(
      () =>
        reports
          .slice(m)
          .flatMap((r) => r.keptLastGood)
          .find((k) => k.skill === 'cold'),
      POLL,
    )
    .toBeDefined();
  expect(
    reports
      .slice(m)
      .flatMap((r) => r.keptLastGood)
      .find((k) => k.skill === 'cold')!.issues[0]!.message,
  ).toContain('process.exit(3)');
  expect(await run('cold')).toMatchObject({ version: 'good2' });
});

it("a new role skill folder appears in that role's scope without a restart", async () => {
  await writeSkill(join(h.dataDir, 'role-skills', 'ops', 'fresh'), skillFiles('fresh', 'f1'));
  await expect.poll(() => h.lifecycle.skillsFor('ops').includes('fresh'), POLL).toBe(true);
  expect(h.lifecycle.skillsFor('sales')).not.toContain('fresh');
  expect(await run('fresh', 'ops')).toMatchObject({ version: 'f1' });
});

it('a removed skill folder disappears', async () => {
  await rm(join(shared, 'hot'), { recursive: true });
  await expect.poll(() => h.lifecycle.registry().get('hot'), POLL).toBeUndefined();
  expect(reports.some((r) => r.removed.includes('hot'))).toBe(true);
  expect(h.lifecycle.skillsFor('sales')).not.toContain('hot');
});

it('reload() without changes reports nothing and calls no listener', async () => {
  const before = reports.length;
  expect(await h.lifecycle.reload('test')).toEqual({ added: [], changed: [], removed: [], keptLastGood: [] });
  expect(reports.length).toBe(before);
});
