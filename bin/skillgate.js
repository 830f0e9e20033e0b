#!/usr/bin/env node
// The `skillgate` command. Runs dist/ (compiled ahead by `npm ci` through `prepare`, or
// `npm run build`) while it matches the sources, else the TypeScript sources through tsx, so no
// build step is needed after `npm ci` and an edited source is never shadowed by an old build.
// SKILLGATE_FROM_SOURCE=1 always runs the sources (the test suite sets it). docs/performance.md
import { readFileSync, statSync } from 'node:fs';

const root = new URL('../', import.meta.url);

/** True when dist/build.json exists and no source file of the bundle changed since it was built. */
function distIsCurrent() {
  if (process.env.SKILLGATE_FROM_SOURCE === '1') return false;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(new URL('dist/build.json', root), 'utf8'));
  } catch {
    return false;
  }
  if (typeof stamp?.built_at !== 'number' || !Array.isArray(stamp.inputs)) return false;
  try {
    return stamp.inputs.every((f) => statSync(new URL(f, root)).mtimeMs < stamp.built_at);
  } catch {
    return false; // a source of the bundle was removed
  }
}

let cli;
if (distIsCurrent()) {
  cli = { guards: await import('../dist/process-guards.js'), main: await import('../dist/skillgate.js') };
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = { guards: await import('../src/cli/process-guards.ts'), main: await import('../src/cli/main.ts') };
}
cli.guards.installProcessGuards();
process.exitCode = await cli.main.main(process.argv);
