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
  /** Fires on timeout or caller abort; hand it to the skill (R-WALL-05). Made at the first read. */
  readonly signal: AbortSignal;
  /** Set once the signal fired. */
  cause(): StopCause | null;
  /** Resolves with the cause when the signal fires (never rejects). Made at the first read. */
  readonly stopped: Promise<StopCause>;
  /** Clear the timer and detach from the caller signals; call when the run is over. */
  dispose(): void;
}

/**
 * One wall. The AbortController and the `stopped` promise are made only when someone reads
 * them (an AbortSignal costs microseconds to make on Node 20, and most in-process handlers
 * never look at theirs); a signal made after the wall fired is aborted at once with the same
 * reason, so a reader cannot tell the difference.
 */
class Wall implements CallWall {
  private controller: AbortController | undefined;
  private fired: StopCause | null = null;
  private reason: unknown;
  private stoppedPromise: Promise<StopCause> | undefined;
  private resolveStopped: ((c: StopCause) => void) | undefined;
  private readonly timer: NodeJS.Timeout;
  private detachers: Array<() => void> | undefined;

  constructor(
    sec: number,
    signals: ReadonlyArray<AbortSignal | null | undefined>,
    private readonly onStop: ((cause: StopCause) => void) | undefined,
  ) {
    const ms = wallMs(sec);
    this.timer = setTimeout(fireTimeout, ms, this, ms);
    this.timer.unref?.();
    for (const s of signals) {
      if (!s) continue;
      if (s.aborted) {
        this.fire({ kind: 'aborted', reason: s.reason });
        break;
      }
      const onAbort = (): void => this.fire({ kind: 'aborted', reason: s.reason });
      s.addEventListener('abort', onAbort, { once: true });
      (this.detachers ??= []).push(() => s.removeEventListener('abort', onAbort));
    }
  }

  fire(c: StopCause): void {
    if (this.fired) return;
    this.fired = c;
    this.reason = c.kind === 'timeout' ? new Error(`timed out after ${c.afterSec} s`) : c.reason;
    this.controller?.abort(this.reason);
    this.resolveStopped?.(c);
    this.onStop?.(c);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.fired) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get stopped(): Promise<StopCause> {
    if (!this.stoppedPromise) {
      const fired = this.fired;
      this.stoppedPromise = fired ? Promise.resolve(fired) : new Promise<StopCause>((r) => (this.resolveStopped = r));
    }
    return this.stoppedPromise;
  }

  cause(): StopCause | null {
    return this.fired;
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.detachers) for (const d of this.detachers) d();
  }
}

function fireTimeout(wall: Wall, ms: number): void {
  wall.fire({ kind: 'timeout', afterSec: Math.round(ms / 100) / 10 });
}

/**
 * Start a wall of `sec` seconds (see {@link wallMs}) linked to `signals` (undefined/null
 * entries ignored; an already-aborted signal fires at once). `onStop` is called once, with the
 * cause, when the wall fires (after the signal's abort listeners ran).
 */
export function startWall(
  sec: number,
  signals: ReadonlyArray<AbortSignal | null | undefined> = [],
  onStop?: (cause: StopCause) => void,
): CallWall {
  return new Wall(sec, signals, onStop);
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
