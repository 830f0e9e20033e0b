/**
 * The wall clock and abort race shared by every runner (R-WALL-01, R-WALL-05, D-06, D-16).
 *
 * One {@link CallWall} per skill call: an AbortController whose signal fires when the wall
 * elapses or when any caller signal aborts. In-process handlers receive that signal as
 * `ctx.abort_signal`; process runners kill their process tree when it fires.
 */

/** Why a call's signal fired. */
export type StopCause =
  /** The wall clock elapsed. */
  | { kind: 'timeout'; afterSec: number }
  /** A caller signal aborted (user pressed stop, or a parent wall); `reason` as given. */
  | { kind: 'aborted'; reason: unknown };

/** Hard upper bound applied when a caller passes no usable wall (D-16: SKILL_WALL_HARDCAP default). */
export const FALLBACK_WALL_SEC = 1800;

/**
 * A usable wall in milliseconds: `sec` when it is a positive finite number, else
 * {@link FALLBACK_WALL_SEC} (D-16: no call runs without a wall). Capped at 2^31−1 ms (the
 * setTimeout limit, ~24.8 days).
 */
export function wallMs(sec: number): number {
  const s = Number.isFinite(sec) && sec > 0 ? sec : FALLBACK_WALL_SEC;
  return Math.min(Math.round(s * 1000), 2 ** 31 - 1);
}

/** The per-call wall: a signal that fires on timeout or on any linked caller abort. */
export interface CallWall {
  /** Fires on timeout or caller abort; hand it to the skill (R-WALL-05). */
  readonly signal: AbortSignal;
  /** Set once the signal fired. */
  cause(): StopCause | null;
  /** Resolves with the cause when the signal fires (never rejects). */
  readonly stopped: Promise<StopCause>;
  /** Clear the timer and detach from the caller signals; call when the run is over. */
  dispose(): void;
}

/**
 * Start a wall of `sec` seconds (see {@link wallMs}) linked to `signals` (undefined/null
 * entries ignored; an already-aborted signal fires at once).
 */
export function startWall(sec: number, signals: ReadonlyArray<AbortSignal | null | undefined> = []): CallWall {
  const controller = new AbortController();
  let cause: StopCause | null = null;
  let resolveStopped!: (c: StopCause) => void;
  const stopped = new Promise<StopCause>((r) => (resolveStopped = r));
  const fire = (c: StopCause): void => {
    if (cause) return;
    cause = c;
    controller.abort(c.kind === 'timeout' ? new Error(`timed out after ${c.afterSec} s`) : c.reason);
    resolveStopped(c);
  };
  const ms = wallMs(sec);
  const timer = setTimeout(() => fire({ kind: 'timeout', afterSec: Math.round(ms / 100) / 10 }), ms);
  timer.unref?.();
  const detach: Array<() => void> = [];
  for (const s of signals) {
    if (!s) continue;
    if (s.aborted) {
      fire({ kind: 'aborted', reason: s.reason });
      break;
    }
    const onAbort = (): void => fire({ kind: 'aborted', reason: s.reason });
    s.addEventListener('abort', onAbort, { once: true });
    detach.push(() => s.removeEventListener('abort', onAbort));
  }
  return {
    signal: controller.signal,
    cause: () => cause,
    stopped,
    dispose: () => {
      clearTimeout(timer);
      for (const d of detach) d();
    },
  };
}

/** A short English text of an abort reason ("" when none). */
export function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.name === 'AbortError' ? '' : reason.message;
  if (typeof reason === 'string') return reason;
  return '';
}

/**
 * The failure text of a stopped call naming the skill, e.g.
 * `skill "x" timed out after 60 s` or `skill "x" was stopped (user pressed stop)`.
 */
export function stopMessage(skill: string, cause: StopCause): string {
  if (cause.kind === 'timeout') return `skill "${skill}" timed out after ${cause.afterSec} s`;
  const why = reasonText(cause.reason);
  return `skill "${skill}" was stopped${why ? ` (${why})` : ''}`;
}
