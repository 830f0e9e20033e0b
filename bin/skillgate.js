#!/usr/bin/env node
// The `skillgate` command. Runs dist/ (compiled ahead by `npm ci` through `prepare`, or
// `npm run build`) while it matches the sources, else the TypeScript sources through tsx, so no
// build step is needed after `npm ci` and an edited source is never shadowed by an old build
// (docs/performance.md "Start-up").
import { distIsCurrent } from './dist-current.js';

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
