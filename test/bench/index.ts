/**
 * `npm run bench`: every benchmark as a ratio against a baseline measured in the same run.
 * Never asserted in tests (machines are noisy).
 */
import { datatableCases } from './datatable.bench.ts';
import { executorCases } from './executor.bench.ts';
import { printTable, runCase, type BenchResult } from './harness.ts';
import { storeCases } from './store.bench.ts';
import { runGatewayBench } from './gateway.bench.ts';

// BENCH_ONLY=gateway runs only the gateway load bench.
const only = process.env.BENCH_ONLY;
const results: BenchResult[] = [];
for (const c of only === 'gateway' ? [] : [...storeCases(), ...executorCases(), ...datatableCases()]) {
  process.stderr.write(`bench: ${c.name} …\n`);
  results.push(await runCase(c));
}
if (results.length > 0) printTable(results);

process.stderr.write('bench: gateway load …\n');
await runGatewayBench();
