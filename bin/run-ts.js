#!/usr/bin/env node
// Runs one TypeScript file through tsx (used by `npm run bench`).
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: run-ts <file.ts>\n');
  process.exit(1);
}
await import(pathToFileURL(resolve(file)).href);
