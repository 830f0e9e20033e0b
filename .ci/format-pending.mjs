#!/usr/bin/env node
// Files not yet in the Biome format (known debt, like the dependency baseline): listed in
// .ci/format-pending.json, which biome.json extends with the formatter switched off for them.
//   node .ci/format-pending.mjs          list again the files that are still unformatted (the list only shrinks
//                                         in practice: a new file is checked from the start)
//   node .ci/format-pending.mjs --all    format every file and empty the list (`npm run format:all`)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const LIST = '.ci/format-pending.json';
const bin = fileURLToPath(new URL('../node_modules/@biomejs/biome/bin/biome', import.meta.url));
const biome = (...args) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const save = (files) =>
  writeFileSync(
    LIST,
    `${JSON.stringify(files.length ? { overrides: [{ includes: files, formatter: { enabled: false } }] } : {}, null, 2)}\n`,
  );

save([]);
if (process.argv.includes('--all')) {
  const r = biome('format', '--write', '.');
  process.stdout.write(r.stdout + r.stderr);
  process.exit(r.status ?? 1);
}
const r = biome('format', '--reporter=github', '--max-diagnostics=none', '.');
const files = [
  ...new Set([...r.stdout.matchAll(/^::error title=format,file=([^,]+),/gm)].map((m) => relative(process.cwd(), m[1]))),
].sort();
save(files);
console.log(`${LIST}: ${files.length} files not yet formatted`);
