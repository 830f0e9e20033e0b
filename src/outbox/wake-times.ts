/**
 * The times the outbox's delivery loop was asked to wake at (pace ends, retries, account
 * pauses; src/outbox/outbox.ts): every one is kept, in order, and one wall-clock timer is
 * armed for the earliest, then for the next once it fired. Times are ms on the outbox clock.
 */
import type { OutboxClock } from './types.ts';

/** More pending times than this: the latest are left to the poll (one per chat is the usual count). */
const MAX_TIMES = 4096;

export class WakeTimes {
  /** Distinct times, ascending. */
  private readonly times: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Number.NaN;

  /** `wake` runs once per firing, for every time that has come. */
  constructor(
    private readonly clock: Pick<OutboxClock, 'now'>,
    private readonly wake: () => void,
  ) {}

  /** Ask for a wake-up at `at` (ms). */
  add(at: number): void {
    const t = this.times;
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (t[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    if (t[lo] === at) return;
    if (t.length >= MAX_TIMES) {
      if (lo >= t.length) return;
      t.pop();
    }
    t.splice(lo, 0, at);
    if (lo === 0) this.arm();
  }

  /** How many times are pending. */
  get size(): number {
    return this.times.length;
  }

  /** Forget every time and the timer (a stopping outbox). */
  clear(): void {
    this.times.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.NaN;
  }

  private arm(): void {
    const first = this.times[0];
    if (first === undefined || first === this.armedFor) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = first;
    // +1 ms: a timer may fire a little before the wall clock reaches its time.
    this.timer = setTimeout(() => this.fire(), Math.max(0, first - this.clock.now() + 1));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    // The time armed for has come (also under a clock that does not move), and every one before now.
    this.times.shift();
    while (this.times.length > 0 && this.times[0]! <= now) this.times.shift();
    this.armedFor = Number.NaN;
    this.arm();
    this.wake();
  }
}
