#!/usr/bin/env node
// Runs one TypeScript file through tsx (used by `npm run bench` and `npm run soak`).
// `--bundled`: the file and the sources it imports are first bundled by esbuild as
// `npm run build` bundles the product (no per-closure name keeping, node_modules external), so
// a bench measures the code as `skillgate serve` runs it; tsx stays registered for the .ts
// files loaded at run time (skill handlers). docs/performance.md "How to reproduce".
import { register } from 'tsx/esm/api';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { basename, resolve } from 'node:path';

register();
const args = process.argv.slice(2);
const bundled = args[0] === '--bundled';
const file = bundled ? args[1] : args[0];
if (!file) {
  process.stderr.write('usage: run-ts [--bundled] <file.ts>\n');
  process.exit(1);
}
if (!bundled) {
  await import(pathToFileURL(resolve(file)).href);
} else {
  const { build } = await import('esbuild');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const out = resolve(root, 'node_modules/.cache/skillgate/run-ts', `${basename(file).replace(/\.ts$/, '')}.mjs`);
  mkdirSync(resolve(out, '..'), { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: [resolve(file)],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [
      {
        // `import.meta.url` of a source file stays that file's URL (folders next to it: skills, migrations).
        name: 'source-import-meta-url',
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, async (a) => {
            const text = await readFile(a.path, 'utf8');
            if (a.path.includes('/node_modules/') || !text.includes('import.meta.url')) return undefined;
            return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(a.path).href)), loader: 'ts' };
          });
        },
      },
    ],
  });
  await import(pathToFileURL(out).href);
}
