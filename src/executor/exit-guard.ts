/**
 * `process.exit` inside an in-process handler must not stop the gateway (A-04, R-ENTRY-07:
 * a handler that exits is CLI-shaped). While a handler call runs, `process.exit` is
 * intercepted: AsyncLocalStorage tells which call made it; that call is reported failed and
 * the handler's execution is interrupted by a {@link HandlerExitError} thrown from
 * `process.exit`. Outside handler calls `process.exit` behaves as before.
 *
 * If the error escapes the handler's own promise chain (process.exit called from a timer
 * callback or a promise nobody awaits), it would surface as an uncaught exception or
 * unhandled rejection. While handler calls are in flight, a listener swallows exactly
 * these errors; any other error is re-raised as Node would (when no other listener exists).
 * After a call is over (e.g. it timed out and the handler keeps running), a late
 * `process.exit` from it is ignored.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Thrown from the intercepted `process.exit` inside a handler call. */
export class HandlerExitError extends Error {
  constructor(readonly code: number | string | null | undefined) {
    super(`process.exit(${code ?? ''}) called inside a skill handler`);
    this.name = 'HandlerExitError';
  }
}

/** Per-call state observed by the guard. */
export interface ExitWatch {
  /** Set when the handler called `process.exit`. */
  exited?: { code: number | string | null | undefined };
  /** Called once, on the first `process.exit` of this call. */
  onExit?: () => void;
  /** Set by {@link runGuarded} when the call is over (timed out or settled). */
  finished?: boolean;
}

const storage = new AsyncLocalStorage<ExitWatch>();
let originalExit: typeof process.exit | undefined;
let inFlight = 0;
let listening = false;

function isOurs(err: unknown): boolean {
  return err instanceof HandlerExitError;
}

function onUncaught(err: unknown): void {
  if (isOurs(err)) return;
  rethrowIfAlone('uncaughtException', onUncaught, err);
}

function onRejection(reason: unknown): void {
  if (isOurs(reason)) return;
  rethrowIfAlone('unhandledRejection', onRejection, reason);
}

/** Re-raise as if our listener did not exist, unless someone else handles the event. */
function rethrowIfAlone(event: 'uncaughtException' | 'unhandledRejection', self: (e: unknown) => void, err: unknown): void {
  const others = (process.listeners(event as 'uncaughtException') as unknown[]).some((l) => l !== self);
  if (others) return;
  detach();
  process.nextTick(() => {
    throw err;
  });
}

function detach(): void {
  listening = false;
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onRejection);
}

function install(): void {
  if (originalExit) return;
  originalExit = process.exit;
  const guarded = function exit(code?: number | string | null): never {
    const watch = storage.getStore();
    if (!watch) return originalExit!.call(process, code as number | undefined);
    // A handler left running after its call ended (e.g. past its wall): ignore the exit,
    // do not throw where nobody listens any more.
    if (watch.finished) return undefined as never;
    if (!watch.exited) {
      watch.exited = { code };
      watch.onExit?.();
    }
    throw new HandlerExitError(code);
  };
  process.exit = guarded as typeof process.exit;
}

/**
 * Run `fn` with `process.exit` intercepted for everything it starts (synchronously or
 * asynchronously). `watch.exited` is set when it called `process.exit`.
 * @returns what `fn` returns (its rejection included).
 */
export async function runGuarded<T>(watch: ExitWatch, fn: () => Promise<T>): Promise<T> {
  install();
  inFlight++;
  if (!listening) {
    listening = true;
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onRejection);
  }
  try {
    return await storage.run(watch, fn);
  } finally {
    watch.finished = true;
    if (--inFlight === 0) {
      // Late escapes (a timer the handler left behind) may still arrive; keep swallowing
      // ours for a moment before detaching.
      setTimeout(() => {
        if (inFlight === 0 && listening) detach();
      }, 1000).unref();
    }
  }
}
