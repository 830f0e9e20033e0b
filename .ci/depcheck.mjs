#!/usr/bin/env node
// `npm run depcheck`: dependency-cruiser with the rules of .dependency-cruiser.cjs, today's
// violations (.dependency-cruiser-known-violations.json) reported as known debt, new ones failing.
// depcruise's own --ignore-known does not soften folder-scope violations (its
// soften-known-violations step only walks modules), so folder cycles are matched against the
// baseline here, the same way depcruise matches cycles (same rule, same members).
// Exit code: 0 = no new violation, 1 = new violations (listed), 2 = depcruise failed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const BASELINE = '.dependency-cruiser-known-violations.json';
const bin = fileURLToPath(new URL('../node_modules/dependency-cruiser/bin/dependency-cruise.mjs', import.meta.url));
const run = spawnSync(
  process.execPath,
  [bin, 'src', 'adapters', '--config', '.dependency-cruiser.cjs', '--ignore-known', BASELINE, '--output-type', 'json'],
  {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  },
);
let result;
try {
  result = JSON.parse(run.stdout);
} catch {
  process.stderr.write(run.stderr || 'depcheck: depcruise printed no result\n');
  process.exit(2);
}
const known = JSON.parse(readFileSync(BASELINE, 'utf8'));
const names = (cycle) => (cycle ?? []).map((c) => c.name);
const same = (a, b) =>
  a.rule.name === b.rule.name &&
  (a.cycle && b.cycle
    ? a.cycle.length === b.cycle.length && names(a.cycle).every((n) => names(b.cycle).includes(n))
    : a.from === b.from && a.to === b.to);

const fresh = result.summary.violations.filter((v) => v.rule.severity !== 'ignore' && !known.some((k) => same(k, v)));
const show = (v) => (v.cycle ? [v.from, ...names(v.cycle)].join(' → ') : `${v.from} → ${v.to}`);
for (const v of fresh) console.log(`  ${v.rule.severity} ${v.rule.name}: ${show(v)}`);
const byRule = {};
for (const k of known) byRule[k.rule.name] = (byRule[k.rule.name] ?? 0) + 1;
const s = result.summary;
console.log(
  `depcheck: ${s.totalCruised} modules, ${s.totalDependenciesCruised} dependencies; ` +
    `${fresh.length} new violations, ${known.length} known (${Object.entries(byRule)
      .map(([r, n]) => `${r} ${n}`)
      .join(', ')})`,
);
process.exit(fresh.length > 0 ? 1 : 0);
