/**
 * Loading a handler module (handler.ts / .js / .mjs) at run time (docs/skill-authoring.md: TypeScript
 * through tsx, no build step). A self-contained TypeScript handler is compiled ahead with esbuild
 * instead and imported as JavaScript, without tsx (`./handler-compile.ts`).
 *
 * One tsx namespace is registered once per process (ESM + CommonJS hooks, as `tsImport`
 * does, but without registering a new loader per call). Each load of the entry file uses a
 * URL query made of the file's mtime and size, so an edited handler is loaded fresh on the
 * next call while repeated calls of an unchanged file cost one `stat` and a map lookup.
 * Modules the handler itself imports are cached by Node as usual (an edit there is seen
 * after a restart). Old versions stay in Node's module map (ESM cannot be unloaded); that
 * costs memory per edit, not per call.
 */
import { statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { compiledHandler } from './handler-compile.ts';

type ScopedImport = (specifier: string, parent: string) => Promise<unknown>;

const NAMESPACE = 'skillgate-handlers';
let scopedImport: Promise<ScopedImport> | undefined;

/** tsx, loaded and registered at the first handler import (not by every start: docs/performance.md). */
function importer(): Promise<ScopedImport> {
  scopedImport ??= Promise.all([import('tsx/cjs/api'), import('tsx/esm/api')]).then(([cjs, esm]) => {
    cjs.register({ namespace: NAMESPACE });
    return esm.register({ namespace: NAMESPACE }).import as ScopedImport;
  });
  scopedImport.catch(() => (scopedImport = undefined));
  return scopedImport;
}

/** Loaded module namespaces by `path?v=<mtime>-<size>`; failed loads are not kept. */
const cache = new Map<string, Promise<Record<string, unknown>>>();

/** Entry file → the `mtime-size` version to keep serving (a broken edit kept the last good one). */
const pins = new Map<string, string>();

/**
 * Keep serving version `version` (`<mtimeMs>-<size>` at its load) of handler `file` while the
 * file on disk holds a broken edit (skill lifecycle,: "a broken edit keeps the last
 * good version running"); `undefined` removes the pin. A pin only helps when that version was
 * loaded in this process before (its module is still cached) — the live skill set makes sure of
 * that with {@link preloadHandlerModule}; otherwise the file is loaded as is.
 */
export function pinHandlerVersion(file: string, version: string | undefined): void {
  if (version === undefined) pins.delete(file);
  else pins.set(file, version);
}

/** How long a reload waits for one handler's preload import, ms. */
export const PRELOAD_TIMEOUT_MS = 10_000;

/**
 * Import handler `file` now, so that the version on disk stays servable after a later broken
 * edit (the live skill set calls it on each good (re)load of a non-built-in in-process handler,
 * then pins the returned version while an edit is broken —, R-LOAD-04).
 * @param timeoutMs how long to wait for the import (default {@link PRELOAD_TIMEOUT_MS}).
 * @returns the `<mtimeMs>-<size>` version that was imported and is cached, or undefined when
 *   the import took longer than `timeoutMs` (it goes on in the background) or the file changed
 *   while it was being imported (which content was compiled is then unknown: the entry is
 *   dropped, the next reload sees the change).
 * @throws when the file cannot be read, does not compile, or throws while evaluating.
 */
export async function preloadHandlerModule(file: string, timeoutMs = PRELOAD_TIMEOUT_MS): Promise<string | undefined> {
  const version = fileVersion(file);
  const key = `${file}?v=${version}`;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), timeoutMs)));
  try {
    // A module whose top-level await never settles must not hold the reload queue.
    if ((await Promise.race([loadVersion(file, version), late])) === 'late') return undefined;
  } finally {
    clearTimeout(timer);
  }
  let now: string | undefined;
  try {
    now = fileVersion(file);
  } catch {
    now = undefined;
  }
  if (now === version) return version;
  cache.delete(key);
  return undefined;
}

/** `<mtimeMs>-<size>` of `file`: one stat on the calling thread (cheaper than a thread-pool round trip). @throws when it cannot be stat-ed. */
function fileVersion(file: string): string {
  const st = statSync(file);
  return `${Math.trunc(st.mtimeMs)}-${st.size}`;
}

async function importVersion(file: string, version: string): Promise<Record<string, unknown>> {
  const compiled = await compiledHandler(file);
  if (compiled) {
    process.setSourceMapsEnabled(true); // stack traces name the .ts file and line, as under tsx
    // The same `?v=` as below: each version of the handler is a module of its own.
    return (await import(`${pathToFileURL(compiled).href}?v=${version}`)) as Record<string, unknown>;
  }
  const load = await importer();
  return (await load(`${pathToFileURL(file).href}?v=${version}`, import.meta.url)) as Record<string, unknown>;
}

function loadVersion(file: string, version: string): Promise<Record<string, unknown>> {
  const key = `${file}?v=${version}`;
  let loading = cache.get(key);
  if (!loading) {
    loading = importVersion(file, version);
    cache.set(key, loading);
    loading.catch(() => cache.delete(key));
  }
  return loading;
}

/**
 * Load the module at the absolute path `file` (any of .ts .mts .cts .js .mjs .cjs).
 * @returns the module namespace object (for CommonJS modules, their exports as named keys
 *   and `default`).
 * @throws when the file cannot be read, does not compile, or throws while evaluating.
 */
export function loadHandlerModule(file: string): Promise<Record<string, unknown>> {
  const pinned = pins.get(file);
  const pinnedModule = pinned === undefined ? undefined : cache.get(`${file}?v=${pinned}`);
  if (pinnedModule) return pinnedModule;
  try {
    return loadVersion(file, fileVersion(file));
  } catch (err) {
    return Promise.reject(err);
  }
}
