#!/usr/bin/env node
// `npm run build` (also run by `npm ci` through `prepare`): the `skillgate` command compiled
// ahead into dist/ — one esbuild bundle of src/ and adapters/ (node_modules stay external,
// channel SDKs stay in lazily loaded chunks), so a start skips tsx's per-module transpile and
// loader hooks (docs/performance.md "Start-up"). bin/skillgate.js uses dist/ only while every
// source file that went into it is unchanged (dist/build.json), else it runs the sources
// through tsx. A failed build is reported and leaves no dist/: `npm ci` still succeeds.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * Every chunk sits directly in dist/, one level below the repository root like each source
 * file's folder is not: `import.meta.url` in a source file becomes the URL of that source file
 * (relative to the chunk), so `new URL('./migrations/', import.meta.url)` and friends keep
 * pointing at the files next to the source (migrations, web pages, Python helpers, skills/).
 */
const sourceMetaUrl = {
  name: 'source-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (args.path.includes('/node_modules/') || !text.includes('import.meta.url')) return undefined;
      const rel = `../${relative(root, args.path).split('\\').join('/')}`;
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/**
 * `typescript` (its parser inspects skill handlers) is a 9 MB CommonJS file: imported from ESM,
 * Node scans it for named exports before running it. The sources only use its default export,
 * so the bundle gets it through `require`, on first use.
 */
const lazyTypescript = {
  name: 'lazy-typescript',
  setup(build) {
    build.onResolve({ filter: /^typescript$/ }, () => ({ path: 'typescript', namespace: 'lazy-typescript' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-typescript' }, () => ({
      contents: [
        "import { createRequire } from 'node:module';",
        'let ts;',
        "const load = () => (ts ??= createRequire(import.meta.url)('typescript'));",
        'export default new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });',
      ].join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
  },
};

async function main() {
  const started = Date.now();
  const { build } = await import('esbuild');
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: {
      skillgate: 'src/cli/main.ts',
      'process-guards': 'src/cli/process-guards.ts',
      // the render worker of long replies (adapters/telegram/reply-off-thread.ts)
      'reply-worker': 'adapters/telegram/reply-worker.ts',
    },
    outdir: dist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
    plugins: [sourceMetaUrl, lazyTypescript],
  });
  // Files of the clone (not node_modules, not the plugins' virtual modules such as `lazy-typescript:`).
  const inputs = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/') && !f.includes(':'));
  // The stamp bin/skillgate.js checks: when the build started and every source file in the bundle.
  writeFileSync(`${dist}build.json`, JSON.stringify({ built_at: started, inputs }) + '\n');
  process.stderr.write(`skillgate: built dist/ from ${inputs.length} sources in ${Date.now() - started} ms\n`);
}

main().catch((err) => {
  rmSync(dist, { recursive: true, force: true });
  process.stderr.write(`skillgate: build of dist/ failed, the sources will run through tsx: ${err?.message ?? err}\n`);
});
