/** Shared pieces of the lifecycle tests: fixture files as a create/edit request, temp data dirs. */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of test/fixtures/lifecycle. */
export const LIFECYCLE_FIXTURES = fileURLToPath(new URL('../fixtures/lifecycle/', import.meta.url));

/** Every file of fixture folder `name` as relative path → content (one level). */
export async function fixtureFiles(name: string): Promise<Record<string, string>> {
  const dir = join(LIFECYCLE_FIXTURES, name);
  const out: Record<string, string> = {};
  for (const f of (await readdir(dir)).sort()) out[f] = await readFile(join(dir, f), 'utf8');
  return out;
}

/** A fresh, empty data dir. */
export function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'sg-lifecycle-'));
}

/** Relative paths of every entry under `dir` (sorted, `/`-separated, folders end with `/`). */
export async function tree(dir: string, base = ''): Promise<string[]> {
  const out: string[] = [];
  for (const ent of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const rel = base + ent.name;
    if (ent.isDirectory()) out.push(rel + '/', ...(await tree(join(dir, ent.name), rel + '/')));
    else out.push(rel);
  }
  return out;
}
