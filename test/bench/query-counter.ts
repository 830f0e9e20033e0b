/**
 * A query counter for benchmarks: wraps `pg.Client.prototype.query` (every statement of both
 * engines goes through it — PGlite is reached through node-postgres, library-facts §5), so a
 * bench can say how many statements one message costs and which ones. Never used outside
 * test/bench.
 */
import pg from 'pg';

/** Counts by statement kind since the last {@link QueryCounter.reset}. */
export interface QueryCounter {
  /** Start counting from zero. */
  reset(): void;
  /** Total statements since reset. */
  total(): number;
  /** Statements per kind (the statement's first words, parameters elided), most frequent first. */
  breakdown(): Array<[kind: string, count: number]>;
  /** Milliseconds from each statement's call to its result, summed per kind. */
  timings(): Map<string, number>;
  /**
   * Transactions committed since reset, as the clients' statements say: an autocommit statement
   * or a COMMIT is one; `writing` counts those that changed data (each is a WAL flush).
   */
  commits(): { total: number; writing: number };
  /** Restore the original `query`. */
  uninstall(): void;
}

/** A short label of a statement: its first keywords and the first schema-qualified table. */
export function statementKind(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const head = flat.split(' ').slice(0, 2).join(' ').toUpperCase();
  const table = /skillgate\.([a-z_]+)/i.exec(flat)?.[1] ?? /public\.([a-z_]+)/i.exec(flat)?.[1] ?? '';
  // a function named only for a bare SELECT of one (pg_notify, pg_advisory_xact_lock…)
  const fn = /^SELECT pg_/i.test(flat) ? (/\b(pg_[a-z_]+)\(/i.exec(flat)?.[1] ?? '') : '';
  return [head, table, fn].filter(Boolean).join(' ');
}

/**
 * What a statement does to the session's transaction: opens / ends one, or runs in it (a
 * `write` changes data, a `read` does not; `other` = savepoints and the like, never a commit).
 */
export function transactionRole(text: string): 'begin' | 'commit' | 'rollback' | 'write' | 'read' | 'other' {
  const t = text.trimStart().toUpperCase();
  if (/^(BEGIN|START TRANSACTION)\b/.test(t)) return 'begin';
  if (/^(COMMIT|END)\b/.test(t)) return 'commit';
  if (/^ROLLBACK\b(?!\s+TO)/.test(t)) return 'rollback';
  if (/^(SAVEPOINT|RELEASE|ROLLBACK|SET|RESET|LISTEN|UNLISTEN)\b/.test(t)) return 'other';
  if (/^(INSERT|UPDATE|DELETE|MERGE|COPY|CREATE|ALTER|DROP|TRUNCATE)\b/.test(t)) return 'write';
  if (/^WITH\b/.test(t) && /\b(INSERT\s+INTO|UPDATE\s+\S+\s+(AS\s+\S+\s+)?SET|DELETE\s+FROM)\b/.test(t)) return 'write';
  return 'read';
}

/** Install the counter (process-wide; call `uninstall` when done). */
export function installQueryCounter(): QueryCounter {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let counts = new Map<string, number>();
  let ms = new Map<string, number>();
  let n = 0;
  let commits = { total: 0, writing: 0 };
  /** Per client: inside BEGIN … COMMIT, and whether that transaction wrote. */
  const tx = new WeakMap<object, { open: boolean; wrote: boolean }>();
  /** Classification per statement text (the texts repeat: the counter stays cheap). */
  const seen = new Map<string, { role: ReturnType<typeof transactionRole>; kind: string }>();
  const classify = (text: string): { role: ReturnType<typeof transactionRole>; kind: string } => {
    let c = seen.get(text);
    if (!c) {
      c = { role: transactionRole(text), kind: statementKind(text) };
      if (seen.size < 10_000) seen.set(text, c);
    }
    return c;
  };
  proto.query = function counted(this: unknown, ...args: unknown[]): unknown {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
    if (typeof text === 'string') {
      n++;
      const st = tx.get(this as object) ?? { open: false, wrote: false };
      tx.set(this as object, st);
      const { role: kind, kind: k } = classify(text);
      if (kind === 'begin') Object.assign(st, { open: true, wrote: false });
      else if (kind === 'commit') {
        commits.total++;
        if (st.wrote) commits.writing++;
        Object.assign(st, { open: false, wrote: false });
      } else if (kind === 'rollback') Object.assign(st, { open: false, wrote: false });
      else if (st.open) st.wrote ||= kind === 'write';
      else if (kind !== 'other') {
        commits.total++;
        if (kind === 'write') commits.writing++;
      }
      counts.set(k, (counts.get(k) ?? 0) + 1);
      const t0 = performance.now();
      const add = (): void => void ms.set(k, (ms.get(k) ?? 0) + performance.now() - t0);
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        // pg.Pool calls query(text, values, callback)
        args[args.length - 1] = (...r: unknown[]): unknown => {
          add();
          return (last as (...a: unknown[]) => unknown)(...r);
        };
        return original.apply(this, args);
      }
      const out = original.apply(this, args);
      if (out instanceof Promise) out.then(add, add);
      return out;
    }
    return original.apply(this, args);
  };
  return {
    reset() {
      counts = new Map();
      ms = new Map();
      n = 0;
      commits = { total: 0, writing: 0 };
    },
    commits: () => ({ ...commits }),
    timings: () => ms,
    total: () => n,
    breakdown: () => [...counts.entries()].sort((a, b) => b[1] - a[1]),
    uninstall() {
      proto.query = original;
    },
  };
}

/** Print `counter`'s figures per message (`messages` handled while it counted). */
export function printQueryBreakdown(label: string, counter: QueryCounter, messages: number): void {
  if (messages <= 0) return;
  console.log(`${label}: ${(counter.total() / messages).toFixed(2)} statements per message`);
  const ms = counter.timings();
  for (const [kind, count] of counter.breakdown()) {
    const per = count / messages;
    const each = (ms.get(kind) ?? 0) / count;
    if (per >= 0.01) console.log(`  ${per.toFixed(2).padStart(6)}  ${each.toFixed(2).padStart(7)} ms each  ${kind}`);
  }
}
