/**
 * The soak's ledger (docs/reliability.md "What is counted"): every reply the harness expects,
 * keyed by chat and `<tag>:<phase>`, and every message the platforms received, matched to
 * those keys. From them: lost (an acknowledged inbound whose reply never came), duplicated (a
 * reply delivered more than once), out of order (per chat, a reply delivered after the reply
 * to a later message of that chat), and latency samples. Pure bookkeeping: times are given by
 * the caller (ms since the epoch), so tests feed it real sequences.
 */

/** One reply the harness waits for. */
export interface Expectation {
  /** `<channel>:<chat id>`. */
  chat: string;
  /** `<tag>:<phase>`, e.g. `t12-3:ok`, `t12-4:confirm-ask`. */
  key: string;
  /** Position among the chat's expectations (order of the inbound that asks for it). */
  ordinal: number;
  /** False for replies that come late by design (an async job's result). */
  ordered: boolean;
  /** When the inbound that asks for it was sent (first attempt). */
  sentAt: number;
  /** When the platform / socket acknowledged that inbound; null: never acknowledged. */
  ackedAt: number | null;
  /** Why it is not counted as an acknowledged inbound although it was sent (e.g. in flight at a crash). */
  unackedReason?: string;
  /** Delivery times, one per delivery seen (more than one is a duplicate). */
  received: number[];
}

/** A delivered message, as a driver parsed it. */
export interface Delivery {
  chat: string;
  /** `<tag>:<phase>` when the text names one, else null (an unexpected message). */
  key: string | null;
  at: number;
  /** The text, kept for the report's samples of unexpected messages. */
  text: string;
}

/** The counts the report shows. */
export interface LedgerCounts {
  expected: number;
  /** Expectations whose inbound was acknowledged. */
  acknowledged: number;
  received: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  /** Sent but never acknowledged (the platform would redeliver or the client resend), with reasons. */
  unacknowledged: number;
  unacknowledgedReasons: Record<string, number>;
  /** Deliveries that match no expectation (a tag never asked for, or no tag). */
  unexpected: number;
  /** Up to 5 examples of each of lost / duplicated / out-of-order / unexpected, for the report. */
  samples: string[];
}

/** Time windows (ms) in which a fault was being injected or recovered from. */
export interface Window {
  name: string;
  from: number;
  to: number;
}

type Waiter = { chat: string; key: string; resolve: (ok: boolean) => void; timer: NodeJS.Timeout };

/** Expectations and deliveries of one soak run. */
export class Ledger {
  readonly #byChat = new Map<string, Map<string, Expectation>>();
  readonly #deliveries: Delivery[] = [];
  readonly #outOfOrder: string[] = [];
  /** Highest ordinal of an ordered expectation delivered so far, per chat. */
  readonly #highest = new Map<string, { ordinal: number; key: string }>();
  readonly #waiters: Waiter[] = [];
  #ordinal = 0;

  /** Register the reply `key` expected in `chat` for an inbound sent at `sentAt`. Returns it (ackedAt null until {@link ack}). */
  expect(chat: string, key: string, sentAt: number, opts: { ordered?: boolean } = {}): Expectation {
    let m = this.#byChat.get(chat);
    if (!m) this.#byChat.set(chat, (m = new Map()));
    const existing = m.get(key);
    if (existing) return existing;
    const e: Expectation = { chat, key, ordinal: ++this.#ordinal, ordered: opts.ordered ?? true, sentAt, ackedAt: null, received: [] };
    m.set(key, e);
    return e;
  }

  /** Mark the inbound of `chat`/`key` acknowledged at `at` (the first acknowledgement counts). */
  ack(chat: string, key: string, at: number): void {
    const e = this.#byChat.get(chat)?.get(key);
    if (e && e.ackedAt === null) e.ackedAt = at;
  }

  /** Sent, but not counted as acknowledged, because of `reason` (kept only while not acknowledged). */
  unacked(chat: string, key: string, reason: string): void {
    const e = this.#byChat.get(chat)?.get(key);
    if (e && e.ackedAt === null) e.unackedReason = reason;
  }

  /** Record one delivered message. */
  deliver(d: Delivery): void {
    this.#deliveries.push(d);
    if (d.key === null) return;
    const e = this.#byChat.get(d.chat)?.get(d.key);
    if (!e) return;
    e.received.push(d.at);
    if (e.received.length === 1 && e.ordered) {
      const hi = this.#highest.get(d.chat);
      if (hi && hi.ordinal > e.ordinal) this.#outOfOrder.push(`${d.chat}: ${e.key} after ${hi.key}`);
      else this.#highest.set(d.chat, { ordinal: e.ordinal, key: e.key });
    }
    for (const w of [...this.#waiters]) {
      if (w.chat === d.chat && w.key === d.key) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        clearTimeout(w.timer);
        w.resolve(true);
      }
    }
  }

  /** Resolves true once `chat`/`key` has been delivered, false after `timeoutMs`. */
  waitFor(chat: string, key: string, timeoutMs: number): Promise<boolean> {
    if ((this.#byChat.get(chat)?.get(key)?.received.length ?? 0) > 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w: Waiter = {
        chat,
        key,
        resolve,
        timer: setTimeout(() => {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          resolve(false);
        }, timeoutMs),
      };
      this.#waiters.push(w);
    });
  }

  /** Acknowledged expectations not delivered yet. */
  outstanding(): Expectation[] {
    return this.expectations().filter((e) => e.ackedAt !== null && e.received.length === 0);
  }

  /** Every expectation, in ordinal order. */
  expectations(): Expectation[] {
    return [...this.#byChat.values()].flatMap((m) => [...m.values()]).sort((a, b) => a.ordinal - b.ordinal);
  }

  /** The counts of the report. */
  counts(): LedgerCounts {
    const all = this.expectations();
    const samples: string[] = [];
    const per = new Map<string, number>();
    const sample = (s: string): void => {
      const kind = s.slice(0, s.indexOf(':'));
      if ((per.get(kind) ?? 0) >= 5) return;
      per.set(kind, (per.get(kind) ?? 0) + 1);
      samples.push(s);
    };
    let lost = 0;
    let duplicated = 0;
    let unacknowledged = 0;
    const reasons: Record<string, number> = {};
    for (const e of all) {
      if (e.received.length > 1) {
        duplicated += e.received.length - 1;
        sample(`duplicated: ${e.chat} ${e.key} ×${e.received.length}`);
      }
      if (e.ackedAt === null) {
        if (e.received.length === 0) {
          unacknowledged++;
          const r = e.unackedReason ?? 'no acknowledgement';
          reasons[r] = (reasons[r] ?? 0) + 1;
        }
        continue;
      }
      if (e.received.length === 0) {
        lost++;
        sample(`lost: ${e.chat} ${e.key}`);
      }
    }
    for (const o of this.#outOfOrder) sample(`out of order: ${o}`);
    const unexpected = this.#deliveries.filter((d) => d.key === null || !this.#byChat.get(d.chat)?.has(d.key));
    for (const u of unexpected) sample(`unexpected: ${u.chat} ${JSON.stringify(u.text.slice(0, 160))}`);
    return {
      expected: all.length,
      acknowledged: all.filter((e) => e.ackedAt !== null).length,
      received: all.filter((e) => e.received.length > 0).length,
      lost,
      duplicated,
      outOfOrder: this.#outOfOrder.length,
      unacknowledged,
      unacknowledgedReasons: reasons,
      unexpected: unexpected.length,
      samples,
    };
  }

  /**
   * Latencies (ms, acknowledgement → first delivery) of the ordered replies whose span touches
   * none of `faults`; an async result is measured from its job's start and left out.
   */
  latencies(faults: readonly Window[]): number[] {
    const out: number[] = [];
    for (const e of this.expectations()) {
      if (!e.ordered || e.ackedAt === null || e.received.length === 0) continue;
      const from = e.sentAt;
      const to = e.received[0]!;
      if (faults.some((w) => from <= w.to && to >= w.from)) continue;
      out.push(to - e.ackedAt);
    }
    return out;
  }
}

/** The `p`-th percentile (0–100, nearest rank) of `xs`; NaN when empty. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
