/**
 * `npm run bench`: every benchmark as a ratio against a baseline measured in the same run.
 * Never asserted in tests (machines are noisy).
 */
import { datatableCases } from './datatable.bench.ts';
import { executorCases } from './executor.bench.ts';
import { printTable, runCase, type BenchResult } from './harness.ts';
import { storeCases } from './store.bench.ts';

const results: BenchResult[] = [];
for (const c of [...storeCases(), ...executorCases(), ...datatableCases()]) {
  process.stderr.write(`bench: ${c.name} …\n`);
  results.push(await runCase(c));
}
printTable(results);
