/** Shared shapes of the load benchmarks (gateway, webhook ingest). */

/** One load run's figures. */
export interface LoadResult {
  name: string;
  /** Completed requests / messages (a reply seen, or a 200). */
  messages: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

/** The `p`th percentile (nearest rank) of `xs`, NaN when empty. */
export function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** The median of `xs`, NaN when empty. */
export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
