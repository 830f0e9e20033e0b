/**
 * A tiny benchmark harness: each case is timed against a baseline measured in the same run,
 * interleaved in rounds so machine noise hits both alike; results are ratios, not absolute
 * claims (DEVELOPERS: "performance is measured, not assumed").
 */

/** One comparison: `subject` against `baseline`, `iterations` calls each per round. */
export interface BenchCase {
  name: string;
  baselineName: string;
  iterations: number;
  rounds?: number;
  setup?: () => Promise<void>;
  baseline: () => Promise<unknown>;
  subject: () => Promise<unknown>;
  teardown?: () => Promise<void>;
  /** The ratio the project aims for (informational). */
  target?: number;
}

/** A measured comparison. */
export interface BenchResult {
  name: string;
  baselineName: string;
  calls: number;
  /** Median per-call time of the baseline over rounds, microseconds. */
  baselineUs: number;
  /** Median per-call time of the subject over rounds, microseconds. */
  subjectUs: number;
  /** subjectUs / baselineUs. */
  ratio: number;
  target?: number;
}

async function timeCalls(fn: () => Promise<unknown>, n: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / n;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Run one case: warm-up, then `rounds` alternating baseline/subject rounds. */
export async function runCase(c: BenchCase): Promise<BenchResult> {
  await c.setup?.();
  try {
    const rounds = c.rounds ?? 5;
    const warm = Math.max(1, Math.floor(c.iterations / 10));
    await timeCalls(c.baseline, warm);
    await timeCalls(c.subject, warm);
    const b: number[] = [];
    const s: number[] = [];
    for (let r = 0; r < rounds; r++) {
      b.push(await timeCalls(c.baseline, c.iterations));
      s.push(await timeCalls(c.subject, c.iterations));
    }
    const baselineUs = median(b);
    const subjectUs = median(s);
    return {
      name: c.name,
      baselineName: c.baselineName,
      calls: c.iterations * rounds,
      baselineUs,
      subjectUs,
      ratio: subjectUs / baselineUs,
      target: c.target,
    };
  } finally {
    await c.teardown?.();
  }
}

/** Print results as a table on stdout. */
export function printTable(results: BenchResult[]): void {
  const rows = results.map((r) => [
    r.name,
    r.baselineName,
    String(r.calls),
    r.baselineUs.toFixed(1),
    r.subjectUs.toFixed(1),
    r.ratio.toFixed(3),
    r.target === undefined ? '' : `≤ ${r.target}`,
  ]);
  const head = ['case', 'baseline', 'calls', 'baseline µs/call', 'subject µs/call', 'ratio', 'target'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of rows) console.log(line(row));
}
