/**
 * The chain runner (R-CHAIN-01..15, R-CHAIN-35..39, R-CHAIN-45, R-CHAIN-48).
 *
 * Layers from the reference graph run one after another; the steps of a layer run in
 * parallel, at most `maxConcurrent` at once. Each step's params are resolved against the
 * lookup surface and the outputs so far, then the step executor runs the skill (in the
 * product: the normal skill pipeline with `chat_mode = false`, see skill.ts). A failed step
 * follows its `on_fail`. The chain wall cuts everything; each step has its own wall as well.
 * The runner never throws: every problem ends in the return object.
 *
 * There are no pause, wait, branch or loop step types (R-CHAIN-01): a step is a skill call
 * (R-CHAIN-08); keys a step does not define are ignored here and refused at save.
 */
import type { ChainDocument, OnFail } from './document.ts';
import { planLayers, placeSteps, type PlacedStep } from './layers.ts';
import { resolveParams } from './references.ts';

/** The runner's return object (docs/chains.md). */
export interface ChainResult {
  /** Outputs by alias; skipped steps absent, continued steps hold their default_value. */
  steps: Record<string, unknown>;
  /** Output of the last step (document order) that produced a result; null when none. */
  last: unknown;
  /** Aliases of failed steps, in the order they failed. */
  failed: string[];
  /** True only when no step failed and the chain was not aborted. */
  ok: boolean;
  /** "" when ok; else what went wrong (the abort cause, the wall, the failed steps). */
  error: string;
  duration_ms: number;
}

/** One step call handed to the executor. */
export interface StepCall {
  alias: string;
  /** 0-based document position. */
  index: number;
  skill: string;
  /** Resolved params. */
  params: Record<string, unknown>;
  /** Fires when the chain aborts, the chain wall or the step wall passes. */
  signal: AbortSignal;
  /** Seconds this step may take: min(step wall, what is left of the chain wall). */
  wallSec: number;
}

/** Runs one step's skill and returns its (normalised) output object. May throw. */
export type StepExecutor = (call: StepCall) => Promise<Record<string, unknown>>;

/** Options of {@link runChain}. */
export interface RunChainOptions {
  /** lookup_ctx: flattened run context plus filtered chain inputs (see lookupContext). */
  lookup: Record<string, unknown>;
  execute: StepExecutor;
  /** MAX_CONCURRENT_CHAIN_STEPS (default 3). */
  maxConcurrent?: number;
  /** CHAIN_WALL_SEC, seconds (may be fractional). */
  chainWallSec: number;
  /** CHAIN_STEP_WALL_SEC, seconds; default = chain wall. */
  stepWallSec?: number;
  /**
   * A skill's own wall, seconds, when it declares one (R-CHAIN-05, D-06): it replaces
   * `stepWallSec` for that step; the chain wall still cuts it. Undefined → `stepWallSec`.
   */
  stepWallFor?: (skill: string) => number | undefined;
  /** The caller's stop. */
  abortSignal?: AbortSignal;
  /** Clock for duration_ms (epoch ms). */
  now?: () => number;
  lang?: 'zh-CN' | 'en';
}

/** True when a step output is a failure: explicit `success:false` or `ok:false` (R-CHAIN-45). */
export function isStepFailure(output: unknown): boolean {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return false;
  const o = output as Record<string, unknown>;
  return o.success === false || o.ok === false;
}

/**
 * The stored value of a failed `continue` step (R-CHAIN-14): a string is parsed as JSON
 * first; anything that is not an object or array is wrapped as `{success:false, error, value}`.
 */
export function continueValue(defaultValue: unknown, error: string): unknown {
  let v = defaultValue;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      /* keep the string */
    }
  }
  if (typeof v === 'object' && v !== null) return v;
  return { success: false, error, value: v ?? null };
}

function errorOf(output: unknown): string {
  if (typeof output === 'object' && output !== null) {
    const o = output as Record<string, unknown>;
    for (const k of ['error', 'user_message', 'message']) if (typeof o[k] === 'string' && o[k]) return o[k] as string;
  }
  return 'the step failed';
}

class WallError extends Error {}

/** Run `fn` until it settles or `signal` fires (then reject with the signal's reason). */
function untilAborted<T>(fn: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    fn.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}

/**
 * Run a chain document.
 * @returns the return object; never throws.
 */
export async function runChain(doc: Pick<ChainDocument, 'steps'>, opts: RunChainOptions): Promise<ChainResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const en = opts.lang === 'en';
  const maxConcurrent = Math.max(1, opts.maxConcurrent ?? 3);
  const chainWallMs = opts.chainWallSec * 1000;
  const stepWallSec = opts.stepWallSec ?? opts.chainWallSec;
  const deadline = Date.now() + chainWallMs;

  const chain = new AbortController();
  const wallTimer = setTimeout(
    () =>
      chain.abort(
        new WallError(
          en
            ? `the chain wall clock (${opts.chainWallSec} s, CHAIN_WALL_SEC) ran out`
            : `整条链超过墙钟 ${opts.chainWallSec} 秒（CHAIN_WALL_SEC），已终止`,
        ),
      ),
    chainWallMs,
  );
  const onOuterAbort = () => chain.abort(new Error(en ? 'the chain was stopped' : '链已被停止'));
  opts.abortSignal?.addEventListener('abort', onOuterAbort, { once: true });
  if (opts.abortSignal?.aborted) onOuterAbort();

  const steps: Record<string, unknown> = {};
  const failed: string[] = [];
  const errors: string[] = [];
  let abortError = '';
  const placed = placeSteps(doc.steps ?? []);
  const plan = planLayers(placed);

  const runStep = async (p: PlacedStep, layerSignal: AbortSignal): Promise<void> => {
    const skill = typeof p.step.skill_name === 'string' ? p.step.skill_name.trim() : '';
    const onFail: OnFail = p.step.on_fail ?? 'abort';
    let output: unknown;
    let failure: string | null = null;
    if (!skill) {
      failure = en ? `step "${p.alias}" has no skill_name` : `步骤「${p.alias}」没有指定 skill_name`;
    } else {
      const params = resolveParams(p.step.params, {
        lookup: opts.lookup,
        steps,
        prevAlias: p.index > 0 ? placed[p.index - 1]!.alias : undefined,
      });
      const remainingSec = (deadline - Date.now()) / 1000;
      // Effective step wall (D-06): the skill's own wall, else the step wall; never past the
      // chain wall.
      const ownWallSec = opts.stepWallFor?.(skill) ?? stepWallSec;
      const wallSec = Math.max(0.001, Math.min(ownWallSec, remainingSec));
      const stepCtl = new AbortController();
      // When the chain wall is the nearer limit, the chain's own timer ends the step (and the
      // chain, R-CHAIN-05); the step timer only enforces a shorter step wall.
      const stepTimer =
        ownWallSec < remainingSec
          ? setTimeout(
              () =>
                stepCtl.abort(
                  new WallError(
                    en ? `step "${p.alias}" ran past its wall clock (${ownWallSec} s)` : `步骤「${p.alias}」超过单步墙钟 ${ownWallSec} 秒`,
                  ),
                ),
              ownWallSec * 1000,
            )
          : undefined;
      const signal = AbortSignal.any([layerSignal, stepCtl.signal]);
      try {
        output = await untilAborted(opts.execute({ alias: p.alias, index: p.index, skill, params, signal, wallSec }), signal);
        if (isStepFailure(output)) failure = errorOf(output);
      } catch (err) {
        // A chain-level abort is not this step's failure: the chain already ends.
        if (chain.signal.aborted || layerSignal.aborted) return;
        failure = err instanceof Error ? err.message : String(err);
      } finally {
        clearTimeout(stepTimer);
      }
    }
    if (chain.signal.aborted) return;
    if (failure === null) {
      steps[p.alias] = output;
      return;
    }
    failed.push(p.alias);
    const msg = en ? `step "${p.alias}" (${skill || '—'}) failed: ${failure}` : `步骤「${p.alias}」（${skill || '—'}）失败：${failure}`;
    errors.push(msg);
    if (onFail === 'continue') steps[p.alias] = continueValue(p.step.default_value, failure);
    else if (onFail === 'abort') {
      abortError = msg;
      chain.abort(new Error(msg));
    }
  };

  try {
    for (const layer of plan.layers) {
      if (chain.signal.aborted) break;
      const queue = [...layer];
      const worker = async (): Promise<void> => {
        for (let p = queue.shift(); p && !chain.signal.aborted; p = queue.shift()) await runStep(p, chain.signal);
      };
      const workers = Array.from({ length: Math.min(maxConcurrent, layer.length) }, () => worker());
      // An abort ends the layer at once; siblings got the signal (R-CHAIN-11).
      await untilAborted(Promise.all(workers), chain.signal).catch(() => undefined);
    }
  } finally {
    clearTimeout(wallTimer);
    opts.abortSignal?.removeEventListener('abort', onOuterAbort);
  }

  let error = '';
  if (chain.signal.aborted) {
    const reason = chain.signal.reason as Error | undefined;
    error = abortError || reason?.message || 'aborted';
  } else if (errors.length > 0) {
    error = errors.join('; ');
  }
  const lastAlias = [...placed].reverse().find((p) => Object.hasOwn(steps, p.alias))?.alias;
  return {
    steps,
    last: lastAlias !== undefined ? steps[lastAlias] : null,
    failed,
    ok: failed.length === 0 && !chain.signal.aborted,
    error,
    duration_ms: Math.max(0, Math.round(now() - started)),
  };
}
