/**
 * File watching for hot reload: chokidar 4 on the skill roots, events
 * coalesced by a debounce of `SKILLGATE_SKILL_RELOAD_MS` (default 1000 ms) into one call of
 * `onChange`. Hidden entries (install temp folders), node_modules and __pycache__ are ignored;
 * the walk depth is bounded. Roots that do not exist yet are watched from their parent when
 * chokidar can; the data dir's `skills/` and `role-skills/` are created first by the lifecycle.
 */
import { basename } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../log/logger.ts';

/** Default debounce of the watcher, in milliseconds. */
export const DEFAULT_RELOAD_MS = 1000;

/**
 * The debounce in milliseconds from `SKILLGATE_SKILL_RELOAD_MS` (a positive integer, at most
 * 60000); `0` turns watching off (reload only on demand); anything else → the default.
 */
export function reloadMsFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env.SKILLGATE_SKILL_RELOAD_MS?.trim();
  if (!raw) return DEFAULT_RELOAD_MS;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 && n <= 60_000 ? n : DEFAULT_RELOAD_MS;
}

/** A running watcher. */
export interface SkillWatcher {
  close(): Promise<void>;
}

/** Deepest level watched below a root: `<role>/<skill>/references/<file>`. */
const DEPTH = 5;

/** Watch `dirs`; call `onChange` once per burst of events, `debounceMs` after the last one. */
export function watchSkillRoots(dirs: readonly string[], debounceMs: number, onChange: () => void, log: Logger): SkillWatcher {
  let timer: NodeJS.Timeout | undefined;
  const fire = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, debounceMs);
  };
  const watcher: FSWatcher = watch([...dirs], {
    ignoreInitial: true,
    depth: DEPTH,
    ignored: (p: string) => {
      const b = basename(p);
      return b.startsWith('.') || b === 'node_modules' || b === '__pycache__';
    },
  });
  watcher.on('all', fire);
  // Changes made while chokidar still scans the roots emit no event: reload once it is ready
  // (cheap when nothing changed — unchanged folders keep their records).
  watcher.on('ready', fire);
  watcher.on('error', (err: unknown) => log.warn({ err: (err as Error)?.message ?? String(err) }, 'skill watcher error'));
  return {
    async close() {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}
