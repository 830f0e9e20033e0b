/**
 * Preloaded into a bench's gateway child (`node --import`): the longest event-loop block of
 * the process, from `perf_hooks.monitorEventLoopDelay`. Each SIGUSR2 writes one stderr line
 * `loop-probe {"max_ms":…,"p99_ms":…}` covering the time since the previous SIGUSR2 (or the
 * start) and resets the histogram, so a bench brackets the window it measures with two
 * signals (test/bench/long-reply.bench.ts).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on('SIGUSR2', () => {
  const figures = { max_ms: histogram.max / 1e6, p99_ms: histogram.percentile(99) / 1e6 };
  histogram.reset();
  process.stderr.write(`loop-probe ${JSON.stringify(figures)}\n`);
});
