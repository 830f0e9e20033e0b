/**
 * The memory guard (docs/operations-delivery.md "Memory and event-loop guards"): samples the V8
 * heap every second; once the heap in use passes `pauseAt` of the heap limit the inbox takes no
 * new turns (events are still stored and acknowledged, so webhooks and polling keep working),
 * and once it falls below `resumeAt` the inbox takes them again. Running turns finish.
 */
import { getHeapStatistics } from 'node:v8';
import type { Logger } from '../log/logger.ts';

/** Heap in use and the heap limit, bytes. */
export interface HeapReading {
  used: number;
  limit: number;
}

/** The guard's thresholds, fractions of the heap limit. */
export interface PressureThresholds {
  pauseAt: number;
  resumeAt: number;
}

/** Defaults: pause at 85 % of the heap limit, resume below 75 %. */
export const PRESSURE_DEFAULTS: PressureThresholds = { pauseAt: 0.85, resumeAt: 0.75 };

/**
 * `SKILLGATE_MEMORY_PAUSE_AT` (fraction of the heap limit, default 0.85; 1 or more turns the
 * guard off) and `SKILLGATE_MEMORY_RESUME_AT` (default: pause − 0.10).
 * @throws Error naming the variable for a value that is not a fraction in (0, …)
 */
export function pressureFromEnv(env: NodeJS.ProcessEnv): PressureThresholds {
  const read = (name: string): number | undefined => {
    const raw = env[name]?.trim();
    if (!raw) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a fraction of the heap limit above 0, e.g. 0.85 (got "${raw}")`);
    return n;
  };
  const pauseAt = read('SKILLGATE_MEMORY_PAUSE_AT') ?? PRESSURE_DEFAULTS.pauseAt;
  const resumeAt = read('SKILLGATE_MEMORY_RESUME_AT') ?? Math.max(0, pauseAt - 0.1);
  if (resumeAt > pauseAt) throw new Error('SKILLGATE_MEMORY_RESUME_AT must not be above SKILLGATE_MEMORY_PAUSE_AT');
  return { pauseAt, resumeAt };
}

/** The V8 heap now. */
export function v8Heap(): HeapReading {
  const h = getHeapStatistics();
  return { used: h.used_heap_size, limit: h.heap_size_limit };
}

/** A running guard. */
export interface MemoryGuard {
  /** True while the inbox must not take new turns. */
  pressured(): boolean;
  /** The last reading. */
  last(): HeapReading;
  /** Take a reading now (the timer calls it every `sampleMs`). */
  sample(): void;
  stop(): void;
}

/** Start a guard. */
export function startMemoryGuard(o: {
  thresholds: PressureThresholds;
  log: Logger;
  heap?: () => HeapReading;
  sampleMs?: number;
}): MemoryGuard {
  const heap = o.heap ?? v8Heap;
  let reading = heap();
  let pressured = false;
  const sample = (): void => {
    reading = heap();
    const ratio = reading.limit > 0 ? reading.used / reading.limit : 0;
    if (!pressured && ratio >= o.thresholds.pauseAt) {
      pressured = true;
      o.log.warn(
        { heap_used: reading.used, heap_limit: reading.limit, pause_at: o.thresholds.pauseAt },
        'memory pressure: the inbox takes no new turns (events are still stored)',
      );
    } else if (pressured && ratio < o.thresholds.resumeAt) {
      pressured = false;
      o.log.info(
        { heap_used: reading.used, heap_limit: reading.limit, resume_at: o.thresholds.resumeAt },
        'memory pressure over: the inbox takes turns again',
      );
    }
  };
  sample();
  const timer = setInterval(sample, o.sampleMs ?? 1000);
  timer.unref();
  return { pressured: () => pressured, last: () => reading, sample, stop: () => clearInterval(timer) };
}
