/**
 * The Python interpreter the gateway runs (handler inspection, the Python bridge, PYTHON CLI
 * skills). `python3` is looked up on PATH once per process and PATH value and replaced by the absolute path
 * of the interpreter it starts (`sys.executable`): version-manager shims (pyenv, asdf) cost
 * about a second per start, the real binary a few milliseconds. The same interpreter runs as
 * `python3` would.
 */
import { execFile } from 'node:child_process';
import { isAbsolute } from 'node:path';

/** Resolutions by PATH value (a changed PATH resolves again). */
const cache = new Map<string, Promise<string>>();

/**
 * Absolute path of the interpreter behind `python3`, or the bare name `python3` when it
 * cannot be resolved (the caller's spawn then reports ENOENT as usual). Never rejects.
 */
export function pythonExecutable(): Promise<string> {
  const key = process.env.PATH ?? '';
  let cached = cache.get(key);
  if (cached) return cached;
  cached = new Promise((resolve) => {
    execFile('python3', ['-c', 'import sys; print(sys.executable)'], { timeout: 15_000, encoding: 'utf8' }, (err, stdout) => {
      const path = typeof stdout === 'string' ? stdout.trim() : '';
      resolve(!err && path && isAbsolute(path) ? path : 'python3');
    });
  });
  cache.set(key, cached);
  return cached;
}
