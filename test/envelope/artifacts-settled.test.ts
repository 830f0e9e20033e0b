/**
 * Change detection of the workspace root without listing it again (src/envelope/artifacts/collect.ts
 * `snapshotWorkspace`, `settled`): whatever the stamp lets the collection skip, every file new
 * or changed in the root since the snapshot is still found (R-ART-09/10, A-13, D-21).
 */
import { mkdir, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectNewFiles, snapshotWorkspace } from '../../src/envelope/artifacts/index.ts';
import { SETTLE_FINE_MS, SETTLE_MS } from '../../src/envelope/artifacts/collect.ts';
import { removeDir, tempDir } from './helpers.ts';

let ws: string;
beforeEach(async () => {
  ws = realpathSync(await tempDir('sg-settle-'));
  await mkdir(path.join(ws, 'tmp'));
  await writeFile(path.join(ws, '.state'), 'x');
});
afterEach(async () => {
  await removeDir(ws);
});

/** A clock far enough ahead that the root looks left alone since its last change. */
const later = () => Date.now() + 10 * SETTLE_MS;
const names = async (before: Awaited<ReturnType<typeof snapshotWorkspace>>) => (await collectNewFiles(ws, before)).map((f) => f.filename);

describe('a settled root (sub-folders and dotfiles only) — A-13', () => {
  it('A-13: gets a stamp; with no change nothing is collected; a new root file is collected', async () => {
    const before = await snapshotWorkspace(ws, { now: later });
    expect(before.settled).toBeDefined();
    expect(await names(before)).toEqual([]);
    await writeFile(path.join(ws, 'report.csv'), 'a');
    expect(await names(before)).toEqual(['report.csv']);
  });

  it('R-ART-10: a file written into a sub-folder is not collected; one renamed from there into the root is', async () => {
    const before = await snapshotWorkspace(ws, { now: later });
    expect(before.settled).toBeDefined();
    await writeFile(path.join(ws, 'tmp', 'chart.png'), 'png');
    expect(await names(before)).toEqual([]);
    await rename(path.join(ws, 'tmp', 'chart.png'), path.join(ws, 'chart.png'));
    expect(await names(before)).toEqual(['chart.png']);
  });

  it('A-13: a second snapshot of the unchanged root is the same; after a root file appears it lists that file', async () => {
    const first = await snapshotWorkspace(ws, { now: later });
    const again = await snapshotWorkspace(ws, { now: later });
    expect(again).toEqual(first);
    await writeFile(path.join(ws, 'kept.csv'), 'a');
    const next = await snapshotWorkspace(ws, { now: later });
    expect(Object.keys(next.files)).toEqual(['kept.csv']);
    expect(next.settled).toBeUndefined();
    // kept.csv was there before this call: not new.
    expect(await names(next)).toEqual([]);
  });

  it('A-13: a root removed and made again holding a file is listed', async () => {
    const before = await snapshotWorkspace(ws, { now: later });
    await rm(ws, { recursive: true });
    await mkdir(ws);
    await writeFile(path.join(ws, 'fresh.txt'), 'x');
    expect(await names(before)).toEqual(['fresh.txt']);
  });
});

describe('roots that are never settled', () => {
  it('A-13: a root holding a file: that file overwritten in place (no change of the folder) is collected', async () => {
    await writeFile(path.join(ws, 'data.csv'), 'aaa');
    const before = await snapshotWorkspace(ws, { now: later });
    expect(before.settled).toBeUndefined();
    await writeFile(path.join(ws, 'data.csv'), 'bbb');
    await utimes(path.join(ws, 'data.csv'), new Date(), new Date(Date.now() + 5000));
    expect(await names(before)).toEqual(['data.csv']);
  });

  it('D-21: a root symlink to a sub-folder file: the target changed in place is collected', async () => {
    await writeFile(path.join(ws, 'tmp', 'out.png'), 'a');
    await symlink(path.join(ws, 'tmp', 'out.png'), path.join(ws, 'out.png'));
    const before = await snapshotWorkspace(ws, { now: later });
    expect(before.settled).toBeUndefined();
    await writeFile(path.join(ws, 'tmp', 'out.png'), 'longer');
    expect(await names(before)).toEqual(['out.png']);
  });

  it('D-21: a dangling root symlink whose target appears in a sub-folder is collected', async () => {
    await symlink(path.join(ws, 'tmp', 'late.png'), path.join(ws, 'late.png'));
    const before = await snapshotWorkspace(ws, { now: later });
    expect(before.settled).toBeUndefined();
    await writeFile(path.join(ws, 'tmp', 'late.png'), 'png');
    expect(await names(before)).toEqual(['late.png']);
  });

  it('A-13: a root changed just before the snapshot gets no stamp; a file created right after it is collected', async () => {
    // Coarse file-system timestamps may give the next change the same mtime/ctime. The clock
    // reads just after the folder's last change (of whole-second or of sub-second times).
    await writeFile(path.join(ws, '.just-now'), 'x');
    const changed = Number(statSync(ws, { bigint: true }).ctimeNs / 1_000_000n);
    const before = await snapshotWorkspace(ws, { now: () => changed + SETTLE_FINE_MS - 1 });
    expect(before.settled).toBeUndefined();
    expect((await snapshotWorkspace(ws, { now: () => changed + SETTLE_MS + 1 })).settled).toBeDefined();
    await writeFile(path.join(ws, 'right-after.txt'), 'x');
    expect(await names(before)).toEqual(['right-after.txt']);
  });

  it('A-13: a root whose times are whole seconds (a coarse file system) waits the longer window', async () => {
    const whole = new Date(Math.floor(Date.now() / 1000) * 1000);
    await utimes(ws, whole, whole);
    const changed = Number(statSync(ws, { bigint: true }).ctimeNs / 1_000_000n);
    expect((await snapshotWorkspace(ws, { now: () => changed + SETTLE_FINE_MS * 5 })).settled).toBeUndefined();
    expect((await snapshotWorkspace(ws, { now: () => changed + SETTLE_MS + 1 })).settled).toBeDefined();
  });

  it('A-13: a stamp taken by one snapshot is not reused by a later one once the root changed', async () => {
    await snapshotWorkspace(ws, { now: later });
    await writeFile(path.join(ws, 'between.txt'), 'x');
    const before = await snapshotWorkspace(ws, { now: later });
    expect(Object.keys(before.files)).toEqual(['between.txt']);
    await writeFile(path.join(ws, 'between.txt'), 'changed');
    await utimes(path.join(ws, 'between.txt'), new Date(), new Date(Date.now() + 5000));
    expect(await names(before)).toEqual(['between.txt']);
  });
});
