/**
 * In-process runner: handler.ts / handler.js / handler.mjs (R-FORM-05, R-FORM-06, R-FORM-09,
 * R-ENTRY-01..05, R-WALL-01, R-WALL-05, A-04, D-15).
 */
import { basename } from 'node:path';
import type { RawOutcome } from '../envelope/types.ts';
import type { Logger } from '../log/logger.ts';
import type { RuntimeContext } from '../runtime/types.ts';
import type { SkillRecord } from '../registry/types.ts';
import { bindArgs, findEntry } from './binder.ts';
import { runGuarded, type ExitWatch } from './exit-guard.ts';
import { loadHandlerModule } from './module-loader.ts';
import { startWall, stopMessage, type StopCause } from './wall.ts';

/** Options of {@link runInProcess}. */
export interface InProcessOptions {
  /** Wall clock of the call, seconds (R-WALL-01). */
  wallSec: number;
  /** Caller abort (user stop, parent wall). */
  abortSignal?: AbortSignal;
  /**
   * False for background runs: the handler's `abort_signal` is null (R-ASYNC-05, R-PCTX-08);
   * the wall still ends the run. Default true.
   */
  exposeAbortSignal?: boolean;
  log: Logger;
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/**
 * The context an entry receives: a shallow copy of `ctx` with `abort_signal` = the call's
 * signal (fires on timeout and on caller abort, R-WALL-05; null in background runs, R-ASYNC-05); a SYNC entry additionally gets
 * `db: null` and `db_factory: null` (R-FORM-09, R-ENTRY-05). `call_skill` is passed as given.
 */
export function entryContext(ctx: RuntimeContext, isAsync: boolean, signal: AbortSignal | null): RuntimeContext {
  const out: RuntimeContext = { ...ctx, abort_signal: signal };
  if (!isAsync) {
    out.db = null;
    out.db_factory = null;
  }
  return out;
}

function exitMessage(skill: string, code: unknown): string {
  return (
    `skill "${skill}": the handler called process.exit(${code ?? ''}); it looks like a command-line script. ` +
    'Export an async execute(input, ctx) function that returns an object, or declare the skill as a NODE subprocess in skill.toml'
  );
}

/** What ends the wait for an in-process call first. */
type First = { r: { loadError: string } | { noEntry: true } | { value: unknown } } | { e: unknown } | { cause: StopCause } | { exit: true };

/** How long a handler stopped by the user may take to return its partial result, ms. */
export const STOP_GRACE_MS = 1500;

/**
 * Load `skill.entryFile` (fresh when the file changed), resolve the entry from the module's
 * exports (R-ENTRY-01), bind it by declared parameters (D-15) and run it under the wall.
 *
 * @returns `returned` with the entry's (awaited) value; `failed` when the module does not
 *   load, has no entry, the entry throws (its message), calls `process.exit`, or the
 *   wall / a caller abort stops it (`error_type: 'transient'` on timeout). Never throws.
 *   After a caller abort (the user's stop) a handler that returns within
 *   {@link STOP_GRACE_MS} has its value `returned` (what it did so far); otherwise, and after
 *   a timeout, a handler still running is left to finish in the background (its signal is
 *   aborted) and its late result is only logged.
 */
export async function runInProcess(
  skill: SkillRecord,
  input: Record<string, unknown>,
  ctx: RuntimeContext,
  opts: InProcessOptions,
): Promise<RawOutcome> {
  const file = skill.entryFile;
  if (!file) return { kind: 'failed', error: `skill "${skill.name}" has no handler file`, error_type: 'config', non_retriable: true };
  // The first of: the handler's result, the wall (timeout or caller abort), a process.exit.
  let settle!: (first: First) => void;
  const firstOf = new Promise<First>((r) => (settle = r));
  const wall = startWall(opts.wallSec, [opts.abortSignal, ctx.abort_signal ?? undefined], (cause) => settle({ cause }));
  const watch: ExitWatch = { onExit: () => settle({ exit: true }) };

  const work = runGuarded(watch, async () => {
    let mod: Record<string, unknown>;
    try {
      mod = await loadHandlerModule(file);
    } catch (err) {
      return { loadError: errorText(err) } as const;
    }
    const entry = findEntry(mod);
    if (!entry) return { noEntry: true } as const;
    // An entry declaring fewer than two parameters is not given the context (D-15): no
    // context copy, and no signal made (src/executor/wall.ts makes it at its first read).
    const args =
      entry.declared >= 2
        ? bindArgs(entry.declared, input, entryContext(ctx, entry.isAsync, opts.exposeAbortSignal === false ? null : wall.signal))
        : bindArgs(entry.declared, input, undefined);
    opts.log.debug({ skill: skill.name, entry: entry.name, declared: entry.declared, async: entry.isAsync }, 'calling in-process entry');
    return { value: await entry.fn(...args) } as const;
  });
  // Also keeps a rejection after the call is over from becoming an unhandled rejection.
  work.then(
    (r) => settle({ r }),
    (e: unknown) => settle({ e }),
  );

  try {
    const first = await firstOf;
    if (watch.exited)
      return { kind: 'failed', error: exitMessage(skill.name, watch.exited.code), error_type: 'config', non_retriable: true };
    if ('cause' in first && first.cause.kind === 'aborted') {
      // A user's stop: a handler that honours abort_signal answers with what it
      // did so far; give it a short grace to do so before the call ends without it.
      const late = await Promise.race([
        work.then(
          (r) => r,
          () => undefined,
        ),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), STOP_GRACE_MS).unref()),
      ]);
      if (late && 'value' in late && !watch.exited) {
        watch.finished = true;
        return { kind: 'returned', value: late.value };
      }
    }
    if ('cause' in first) {
      watch.finished = true;
      work.then(
        () => opts.log.warn({ skill: skill.name }, 'in-process handler finished after its call was stopped; result discarded'),
        () => undefined,
      );
      const cause = first.cause;
      return {
        kind: 'failed',
        error: stopMessage(skill.name, cause),
        ...(cause.kind === 'timeout' ? { error_type: 'transient' as const } : {}),
        details: cause.kind === 'timeout' ? { timeout: true, wall_sec: cause.afterSec } : { aborted: true },
      };
    }
    if ('e' in first) return { kind: 'failed', error: `skill "${skill.name}" failed: ${errorText(first.e)}` };
    if ('exit' in first) return { kind: 'failed', error: exitMessage(skill.name, undefined), error_type: 'config', non_retriable: true };
    const r = first.r;
    if ('loadError' in r)
      return {
        kind: 'failed',
        error: `skill "${skill.name}": cannot load ${basename(file)}: ${r.loadError}`,
        error_type: 'config',
        non_retriable: true,
      };
    if ('noEntry' in r)
      return {
        kind: 'failed',
        error: `skill "${skill.name}": ${basename(file)} exports no entry function (execute, run, handler, main or handle)`,
        error_type: 'config',
        non_retriable: true,
      };
    return { kind: 'returned', value: r.value };
  } finally {
    wall.dispose();
  }
}
