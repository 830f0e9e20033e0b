/**
 * The failure budget of one turn (R-OUT-05..08, A-22).
 *
 * - `non_retriable: true` bans the skill for the rest of the turn at once (R-OUT-05);
 * - two consecutive failures of one skill ban it for the rest of the turn (R-OUT-06) —
 *   "consecutive" counts that skill's own calls: a success of the skill resets its count;
 * - four failures in the turn, across all tools, end the turn (R-OUT-07, A-22);
 * - the same (tool, arguments) three times is a loop: the third call is not run and the turn
 *   ends (R-OUT-08).
 * Bans and limits are per skill (a fanned-out `<skill>__<sub>` counts for `<skill>`).
 */

/** Why a call may not run, or why the turn must wrap up. */
export type BudgetStop = 'banned' | 'loop' | 'failures';

/** Limits (defaults: the spec's numbers). */
export interface BudgetLimits {
  consecutivePerSkill: number;
  perTurn: number;
  sameCall: number;
}

export const DEFAULT_LIMITS: BudgetLimits = { consecutivePerSkill: 2, perTurn: 4, sameCall: 3 };

/** Stable JSON: object keys sorted at every level, so `{a,b}` and `{b,a}` are one call. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The budget state of one turn (shared by the turn's conversation and its sub-agents). */
export class FailureBudget {
  private readonly limits: BudgetLimits;
  private readonly banned = new Map<string, 'non_retriable' | 'consecutive'>();
  private readonly consecutive = new Map<string, number>();
  private readonly seen = new Map<string, number>();
  /** Failures so far in the turn. */
  failures = 0;
  /** Set once the turn must end: the reason. */
  stopped: Exclude<BudgetStop, 'banned'> | null = null;
  /** Skill names of the failures, in order (for the summary). */
  readonly failedSkills: string[] = [];

  constructor(limits: Partial<BudgetLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /**
   * Ask before running `tool` (skill `skill`) with `args`. Counts the call for loop detection.
   * @returns null when the call may run; `banned` (skip it, tell the model; the turn goes on);
   *   `loop` (skip it; the turn ends).
   */
  admit(skill: string, tool: string, args: unknown): BudgetStop | null {
    if (this.banned.has(skill)) return 'banned';
    const key = `${tool}\u0000${canonicalJson(args)}`;
    const n = (this.seen.get(key) ?? 0) + 1;
    this.seen.set(key, n);
    if (n >= this.limits.sameCall) {
      this.stopped = 'loop';
      return 'loop';
    }
    return null;
  }

  /** Why `skill` is banned, or undefined. */
  banReason(skill: string): 'non_retriable' | 'consecutive' | undefined {
    return this.banned.get(skill);
  }

  /** Record a successful call: the skill's consecutive failures reset. */
  succeeded(skill: string): void {
    this.consecutive.set(skill, 0);
  }

  /**
   * Record a failed call. `nonRetriable` bans at once. Sets {@link stopped} to `failures`
   * when the turn's total reaches the limit.
   */
  failed(skill: string, nonRetriable: boolean): void {
    this.failures++;
    this.failedSkills.push(skill);
    const n = (this.consecutive.get(skill) ?? 0) + 1;
    this.consecutive.set(skill, n);
    if (nonRetriable) this.banned.set(skill, 'non_retriable');
    else if (n >= this.limits.consecutivePerSkill && !this.banned.has(skill)) this.banned.set(skill, 'consecutive');
    if (this.failures >= this.limits.perTurn && this.stopped === null) this.stopped = 'failures';
  }
}
