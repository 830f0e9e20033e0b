/**
 * The embedded data dir lock (README.md#the-skillgate-command, src/store/datadir.ts): one process
 * at a time; a lock left by a process that no longer runs on this host (crash, `kill -9`) is taken
 * over at once instead of refusing the restart until the lock goes stale.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { acquireDataDir, DataDirBusyError } from '../../src/store/datadir.ts';

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.on('exit', r));
  return child.pid!;
}

/** A lock dir as proper-lockfile leaves it (fresh mtime) with the given owner record. */
function leftLock(dir: string, owner: Record<string, unknown>): void {
  mkdirSync(join(dir, 'skillgate.lock'), { recursive: true });
  writeFileSync(join(dir, 'skillgate.lock.owner'), JSON.stringify(owner));
}

it('a second acquire in the same data dir is refused while the first holds it; release lets it in', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-lock-'));
  const first = await acquireDataDir(dir);
  expect(JSON.parse(readFileSync(join(dir, 'skillgate.lock.owner'), 'utf8'))).toEqual({ pid: process.pid, host: hostname() });
  await expect(acquireDataDir(dir)).rejects.toBeInstanceOf(DataDirBusyError);
  await first.release();
  expect(existsSync(join(dir, 'skillgate.lock.owner'))).toBe(false);
  const second = await acquireDataDir(dir);
  await second.release();
});

it('a fresh lock whose holder (this host) no longer runs is taken over at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-lock-'));
  leftLock(dir, { pid: await deadPid(), host: hostname() });
  const lock = await acquireDataDir(dir);
  expect(JSON.parse(readFileSync(join(dir, 'skillgate.lock.owner'), 'utf8')).pid).toBe(process.pid);
  await lock.release();
});

it('a fresh lock of a live process, of another host, or without an owner record is respected', async () => {
  for (const owner of [{ pid: process.ppid, host: hostname() }, { pid: await deadPid(), host: `${hostname()}-other` }, {}]) {
    const dir = mkdtempSync(join(tmpdir(), 'sg-lock-'));
    leftLock(dir, owner);
    await expect(acquireDataDir(dir)).rejects.toBeInstanceOf(DataDirBusyError);
  }
});
