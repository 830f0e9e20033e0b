/**
 * `npm run bench`: every benchmark as a ratio against a baseline measured in the same run —
 * store, executor, datatable (needs TEST_DATABASE_URL), gateway load and webhook ingest (on
 * PGlite, and on BENCH_DATABASE_URL when set) — then `docs/performance.md` (test/bench/report.ts).
 * Never asserted in tests (machines are noisy).
 *
 * BENCH_ONLY=micro|skillcall|chunk|longreply|gateway|webhook|startup runs one group (longreply: a
 * 1 M-character reply through the Telegram fake, /healthz latency during its delivery) (skillcall: only the in-process
 * no-op through runSkill, µs per call) and leaves docs/performance.md alone unless
 * BENCH_WRITE_DOCS=1 (BENCH_DOCS_PATH writes elsewhere). BENCH_REPEAT=n repeats each load bench n times (median ratio).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { datatableCases } from './datatable.bench.ts';
import { executorCases, NOOP_CASE } from './executor.bench.ts';
import { printTable, runCase, type BenchResult } from './harness.ts';
import { storeCases } from './store.bench.ts';
import { runGatewayBench } from './gateway.bench.ts';
import { runWebhookBench } from './webhook.bench.ts';
import { printChunkTable, runChunkBench, type ChunkTiming } from './chunk.bench.ts';
import { renderReport, type LoadFigure } from './report.ts';
import { median, type LoadResult } from './load.ts';
import { runStartupBench, type StartupFigures } from './startup.bench.ts';
import { printLongReply, runLongReplyBench, type LongReplyFigures } from './long-reply.bench.ts';

const only = process.env.BENCH_ONLY?.trim() || undefined;
// A pg client given a query while it executes another (two flows on one client) fails the run.
const overlaps: string[] = [];
process.on('warning', (w) => {
  if (/already executing a query/.test(w.message)) overlaps.push(w.stack ?? w.message);
});
const repeat = Math.max(1, Number(process.env.BENCH_REPEAT ?? 1) || 1);
const startedAt = new Date();
const runs = (group: string): boolean => only === undefined || only === group;
const skipped: string[] = [];

const micro: BenchResult[] = [];
if (runs('micro')) {
  if (!process.env.TEST_DATABASE_URL?.trim()) {
    skipped.push('datatable import: skipped: set TEST_DATABASE_URL to a PostgreSQL server to run it');
    console.log('datatable: skipped: set TEST_DATABASE_URL');
  }
  for (const c of [...storeCases(), ...executorCases(), ...datatableCases()]) {
    process.stderr.write(`bench: ${c.name} …\n`);
    micro.push(await runCase(c));
  }
  if (micro.length > 0) printTable(micro);
}
// BENCH_ONLY=skillcall: just the in-process no-op through the whole skill-call pipeline.
if (only === 'skillcall') {
  const c = executorCases().find((x) => x.name === NOOP_CASE)!;
  process.stderr.write(`bench: ${c.name} …\n`);
  micro.push(await runCase(c));
}
const noop = micro.find((m) => m.name === NOOP_CASE);
if (noop)
  console.log(
    `\nskill call (wired once, in-process no-op): ${noop.subjectUs.toFixed(1)} µs per call (the handler alone: ${noop.baselineUs.toFixed(2)} µs; target ≤ 200 µs)`,
  );

const chunking: ChunkTiming[] = [];
if (runs('chunk')) {
  process.stderr.write('bench: chunking …\n');
  chunking.push(...runChunkBench());
  printChunkTable(chunking);
}

// A 1 M-character reply through a gateway child and the Telegram fake (test/bench/long-reply.bench.ts).
// On embedded PGlite, and on BENCH_DATABASE_URL when set.
const longReply: LongReplyFigures[] = [];
if (runs('longreply')) {
  for (const url of ['', process.env.BENCH_DATABASE_URL?.trim() ?? ''].filter((u, i) => i === 0 || u !== '')) {
    process.stderr.write(`bench: long reply (${url ? 'server' : 'embedded'}) …\n`);
    const figures = await runLongReplyBench(url);
    longReply.push(figures);
    printLongReply(figures);
  }
}

// Start-up and footprint: spawned `skillgate serve` / `skill run` (test/bench/startup.bench.ts).
let startup: StartupFigures | undefined;
if (runs('startup')) startup = await runStartupBench();

const engines: Array<string | undefined> = [undefined];
if (process.env.BENCH_DATABASE_URL?.trim()) engines.push(process.env.BENCH_DATABASE_URL.trim());
else skipped.push('load benches on a PostgreSQL server: skipped: set BENCH_DATABASE_URL to run them there too');

const load: LoadFigure[] = [];
for (const url of engines) {
  if (runs('gateway')) {
    const reps = [];
    for (let i = 0; i < repeat; i++) {
      process.stderr.write(`bench: gateway load (${url ? 'server' : 'embedded'}) …\n`);
      reps.push(await runGatewayBench(url ?? ''));
    }
    load.push(pick('gateway', reps, (r) => `${r.clients} web clients × ${r.seconds} s`));
  }
  if (runs('webhook')) {
    const reps = [];
    for (let i = 0; i < repeat; i++) {
      process.stderr.write(`bench: webhook ingest (${url ? 'server' : 'embedded'}) …\n`);
      reps.push(await runWebhookBench(url ?? ''));
    }
    load.push(pick('webhook ingest', reps, (r) => `${r.senders} senders × ${r.seconds} s`));
  }
}

/** The repeat whose ratio is the median, with every repeat's ratio. */
function pick<
  R extends {
    baseline: LoadResult;
    subject: LoadResult;
    engine: string;
    statementsPerMessage: number;
    commitsPerMessage?: number;
    insertBaseline?: LoadResult;
  },
>(bench: LoadFigure['bench'], reps: R[], shape: (r: R) => string): LoadFigure {
  const ratios = reps.map((r) => r.subject.perSecond / r.baseline.perSecond);
  const m = median(ratios);
  const mid = reps[ratios.indexOf(m)] ?? reps[Math.floor(reps.length / 2)]!;
  return {
    bench,
    engine: mid.engine,
    shape: shape(mid),
    baseline: mid.baseline,
    subject: mid.subject,
    statementsPerMessage: mid.statementsPerMessage,
    commitsPerMessage: mid.commitsPerMessage,
    insertBaseline: mid.insertBaseline,
    ratios,
  };
}

if (only === undefined || process.env.BENCH_WRITE_DOCS === '1') {
  const file = process.env.BENCH_DOCS_PATH?.trim() || fileURLToPath(new URL('../../docs/performance.md', import.meta.url));
  writeFileSync(
    file,
    renderReport({ startedAt, seconds: (Date.now() - startedAt.getTime()) / 1000, micro, load, skipped, chunking, startup, longReply }),
  );
  console.log(`\nwrote ${file}`);
}
if (overlaps.length > 0) {
  console.error(`\nbench: FAILED: a pg client was given a query while executing another (${overlaps.length}×):\n${overlaps[0]}`);
}
// pg-boss, pools and sockets of the gateways are closed; exit even if a timer lingers.
process.exit(overlaps.length > 0 ? 1 : 0);
