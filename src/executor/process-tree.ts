/**
 * Process-tree control for every process-based runner (subprocess, Python bridge):
 * children are spawned detached, i.e. as leaders of their own process group, so one
 * `kill(-pgid)` reaches the child and every grandchild it started (R-SUB-06, R-WALL-01).
 */

/** Grace between SIGTERM and SIGKILL, milliseconds. */
export const KILL_GRACE_MS = 2000;

/** Process groups started by this gateway and not yet known to be gone. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Remember a detached child's process group so that it is killed if the gateway itself
 * exits (detached children are not killed by the parent's death). Returns a function that
 * forgets it again.
 */
export function trackGroup(pgid: number): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const g of liveGroups) signalGroup(g, 'SIGKILL');
    });
  }
  liveGroups.add(pgid);
  return () => liveGroups.delete(pgid);
}

/**
 * Send `signal` to the whole process group `pgid`.
 * @returns false when the group no longer exists (ESRCH) or cannot be signalled.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while any process of group `pgid` exists. */
export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => {
    const t = setTimeout(r, ms);
    t.unref?.();
  });
}

/**
 * Terminate the process tree led by `pgid`: SIGTERM to the group; when the leader has not
 * exited after `graceMs` (or other group members remain), SIGKILL to the group.
 *
 * @param exited settles when the leader process has exited (and its pipes closed).
 * @returns when the leader exited, or at the latest `graceMs` + 1 s after the SIGKILL.
 */
export async function terminateTree(pgid: number, exited: Promise<unknown>, graceMs: number = KILL_GRACE_MS): Promise<void> {
  const done = exited.then(
    () => true,
    () => true,
  );
  if (!signalGroup(pgid, 'SIGTERM')) {
    await Promise.race([done, delay(graceMs)]);
    return;
  }
  const leaderGone = await Promise.race([done, delay(graceMs).then(() => false)]);
  if (!leaderGone || groupAlive(pgid)) {
    // Grandchildren that ignore SIGTERM (or a leader that does) get SIGKILL.
    signalGroup(pgid, 'SIGKILL');
    if (!leaderGone) await Promise.race([done, delay(1000)]);
  }
}
