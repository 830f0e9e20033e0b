/**
 * A self-contained TypeScript handler compiled ahead with esbuild, so that loading it needs no
 * tsx (its loader hooks start a thread and cost about 0.35 s of wall time and as much CPU again
 * on that thread: docs/performance.md "Start-up").
 *
 * Only a handler whose meaning cannot depend on where its code lives nor on a tsconfig takes this
 * path: an ES module (`.mts`, or `.ts` in a `"type": "module"` package, as tsx would load it)
 * that imports Node's built-in modules only, with no `import()`, `import.meta`, `require`,
 * `__dirname`/`__filename` and no `class` (whose field semantics follow a tsconfig). Anything
 * else — and a file esbuild refuses, so the error stays tsx's — loads through tsx as before.
 *
 * The output is kept by content (path and bytes, esbuild's and Node's versions, the options here)
 * under `node_modules/.cache/skillgate/handlers/`, with a marker for a handler that is not
 * self-contained, so an unchanged handler costs one read and one hash per load. Where the cache
 * cannot be written (a read-only install) handlers load through tsx.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { createRequire, isBuiltin } from 'node:module';
import { basename, dirname, extname, join } from 'node:path';
import { diskCacheDir, writeCacheFile } from '../store/disk-cache.ts';

const CACHE_DIR = diskCacheDir('handlers');

/** Source text that makes a handler depend on its location, a tsconfig or a loader (see the file comment). */
const NOT_SELF_CONTAINED = /\bimport\s*\(|\bimport\.meta\b|\brequire\b|\b__dirname\b|\b__filename\b|\bclass\b/;

/** Every module specifier written in the source (`from '…'`, `import '…'`), comments and strings included. */
const SPECIFIERS = /(?:\bfrom|\bimport)\s*['"]([^'"\n]+)['"]/g;

/** The esbuild options (tsx's own for an ES module: docs/performance.md "Start-up"). */
const TARGET = `node${process.versions.node}`;

let salt: string | undefined;

function compilerSalt(): string {
  if (salt === undefined) {
    let esbuildVersion = '?';
    try {
      esbuildVersion = (createRequire(import.meta.url)('esbuild/package.json') as { version: string }).version;
    } catch {
      // no esbuild: every compile fails and falls back to tsx
    }
    salt = `${esbuildVersion}\0${TARGET}\0${NOT_SELF_CONTAINED.source}\0v1`;
  }
  return salt;
}

/** Whether Node (and so tsx) loads `file` as an ES module: `.mts`, or `.ts` under a `"type": "module"` package.json. */
export function loadsAsModule(file: string): boolean {
  const ext = extname(file);
  if (ext === '.mts') return true;
  if (ext !== '.ts') return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type?: unknown };
      return pkg.type === 'module';
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false; // unreadable or not JSON: leave it to tsx
    }
    if (dirname(dir) === dir) return false;
  }
}

/** Whether `source` is self-contained as far as its text shows (the compile checks what esbuild kept). */
export function looksSelfContained(source: string): boolean {
  if (NOT_SELF_CONTAINED.test(source)) return false;
  for (const m of source.matchAll(SPECIFIERS)) if (!isBuiltin(m[1]!)) return false;
  return true;
}

/** esbuild's output for `file`, or undefined when it keeps an import that is not built in or refuses the file. */
async function compile(file: string, outfile: string): Promise<string | undefined> {
  const { build } = await import('esbuild');
  let foreign = false;
  try {
    const out = await build({
      entryPoints: [file],
      outfile,
      write: false,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: TARGET,
      sourcemap: 'inline',
      sourcesContent: false,
      minifyWhitespace: true,
      keepNames: true,
      tsconfigRaw: {},
      logLevel: 'silent',
      plugins: [
        {
          name: 'builtins-only',
          setup(b) {
            b.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === 'entry-point') return undefined;
              if (!isBuiltin(args.path)) foreign = true;
              return { path: args.path, external: true };
            });
          },
        },
      ],
    });
    if (foreign || out.warnings.length > 0) return undefined;
    return out.outputFiles[0]?.text;
  } catch {
    return undefined; // tsx reports the error in its own words
  }
}

/**
 * The path of `file`'s compiled ES module when it is self-contained (see the file comment), else
 * undefined (load it through tsx). Never throws.
 */
export async function compiledHandler(file: string): Promise<string | undefined> {
  if (!loadsAsModule(file)) return undefined;
  let source: Buffer;
  try {
    source = await readFile(file);
  } catch {
    return undefined;
  }
  // The path too: the source map names the file (stack traces).
  const key = createHash('sha256').update(compilerSalt()).update('\0').update(file).update('\0').update(source).digest('hex');
  const out = join(CACHE_DIR, `${key}.mjs`);
  const marker = join(CACHE_DIR, `${key}.via-tsx`);
  if (await exists(out)) return out;
  if (await exists(marker)) return undefined;
  const code = looksSelfContained(source.toString('utf8')) ? await compile(file, out) : undefined;
  // Not writable (a read-only install): tsx, as before.
  if (!writeCacheFile(CACHE_DIR, basename(code === undefined ? marker : out), code ?? '')) return undefined;
  return code === undefined ? undefined : out;
}

const exists = (p: string): Promise<boolean> =>
  access(p).then(
    () => true,
    () => false,
  );
