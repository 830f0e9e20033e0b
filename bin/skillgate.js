#!/usr/bin/env node
// The `skillgate` command. Runs the TypeScript sources through tsx, so no build step is
// needed after `npm ci` (CONTRACTS.md §1).
import { register } from 'tsx/esm/api';

register();
const { installProcessGuards } = await import('../src/cli/process-guards.ts');
installProcessGuards();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
