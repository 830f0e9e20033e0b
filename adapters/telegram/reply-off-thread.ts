/**
 * A long reply rendered and split away from the event loop (docs/operations-delivery.md "Long
 * replies"): a text of more than {@link OFF_THREAD_MIN} UTF-16 units goes to one worker thread
 * of the process (adapters/telegram/reply-worker.ts), started on first use and stopped after a minute
 * without work; a shorter one runs in place. The worker runs dist/ when the gateway does
 * (bin/dist-current.js), else the sources through tsx. When the worker cannot start or fails,
 * the job runs in place — the same pure step (adapters/telegram/reply-job.ts), so only the latency differs.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runReplyJob, type ReplyJob, type ReplyJobResult } from './reply-job.ts';

/** Texts up to this many UTF-16 units (two Telegram messages) render in place: a few ms. */
export const OFF_THREAD_MIN = 8192;

/** The worker stops after this long without a job. */
const IDLE_MS = 60_000;

type Answer = { id: number; result?: ReplyJobResult; error?: string };
type Waiter = (answer: ReplyJobResult | null) => void;

let worker: Worker | null = null;
/** The worker failed to start or crashed: every later job runs in place. */
let broken = false;
let seq = 0;
const waiting = new Map<number, Waiter>();
let idleTimer: NodeJS.Timeout | undefined;

/** The worker's bootstrap: dist/ when it is current, else tsx and the source entry. */
function bootstrap(): string {
  const at = (rel: string): string => new URL(rel, import.meta.url).href;
  let tsx = '';
  try {
    tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href;
  } catch {
    // no tsx (an installation without dev tools): only dist/ can run
  }
  const q = JSON.stringify;
  return [
    `import(${q(at('../../bin/dist-current.js'))}).then(({ distIsCurrent }) =>`,
    `  distIsCurrent() ? import(${q(at('../../dist/reply-worker.js'))})`,
    `    : import(${q(tsx)}).then((tsx) => { tsx.register(); return import(${q(at('./reply-worker.ts'))}); }));`,
  ].join('\n');
}

function settleAll(): void {
  for (const w of waiting.values()) w(null);
  waiting.clear();
}

function start(): Worker {
  const w = new Worker(bootstrap(), { eval: true });
  w.on('message', (a: Answer) => {
    const waiter = waiting.get(a.id);
    waiting.delete(a.id);
    if (waiting.size === 0) idle(w);
    waiter?.(a.result ?? null);
  });
  w.on('error', () => {
    broken = true;
    settleAll();
  });
  w.on('exit', () => {
    if (worker === w) worker = null;
    settleAll();
  });
  return w;
}

/** No job left: the worker no longer keeps the process alive and stops after {@link IDLE_MS}. */
function idle(w: Worker): void {
  w.unref();
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (worker === w && waiting.size === 0) {
      worker = null;
      void w.terminate();
    }
  }, IDLE_MS);
  idleTimer.unref();
}

/** A job's result and where it ran: `worker` (the render worker) or `here` (in place). */
export type OffThreadResult = ReplyJobResult & { ran: 'worker' | 'here' };

function here(job: ReplyJob): OffThreadResult {
  return { ...runReplyJob(job), ran: 'here' };
}

/**
 * Render and split `job` ({@link runReplyJob}); off the event loop when its text is long.
 * @throws RangeError as {@link runReplyJob} (a limit < 1).
 */
export async function runReplyJobOffThread(job: ReplyJob): Promise<OffThreadResult> {
  if (job.text.length <= OFF_THREAD_MIN || broken) return here(job);
  let w: Worker;
  try {
    w = worker ??= start();
  } catch {
    broken = true;
    return here(job);
  }
  clearTimeout(idleTimer);
  w.ref();
  const id = ++seq;
  const answer = await new Promise<ReplyJobResult | null>((resolve) => {
    waiting.set(id, resolve);
    w.postMessage({ id, job });
  });
  // No answer (the job failed there, or the worker is gone): the same step in place.
  return answer ? { ...answer, ran: 'worker' } : here(job);
}
