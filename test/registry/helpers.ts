/** Shared paths and loaders for the registry tests. */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSkill, type SkillRoot } from '../../src/registry/index.ts';
import type { SkillRecord } from '../../src/registry/types.ts';

/** Absolute path of test/fixtures/skills. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/skills/', import.meta.url));

/** The fixture root as a shared skill root. */
export const FIXTURE_ROOT: SkillRoot = { dir: FIXTURES, source: 'shared' };

/** Absolute path of one fixture folder. */
export function fixture(name: string): string {
  return join(FIXTURES, name);
}

/** Load one fixture folder as a skill of the fixture root. */
export function loadFixture(name: string): Promise<SkillRecord> {
  return loadSkill(fixture(name), FIXTURE_ROOT);
}

const temps: string[] = [];

/** A fresh temporary folder, removed by {@link cleanupTemp}. */
export async function tempDir(prefix = 'skillgate-reg-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Remove every folder made by {@link tempDir} / {@link copyFixture} (call in afterAll). */
export async function cleanupTemp(): Promise<void> {
  await Promise.all(temps.splice(0).map((d) => rm(d, { recursive: true, force: true })));
}

/** Copy a fixture folder into a fresh temporary root; returns the copied folder. */
export async function copyFixture(name: string): Promise<string> {
  const root = await tempDir();
  const dest = join(root, name);
  await cp(fixture(name), dest, { recursive: true });
  return dest;
}
