/**
 * Static handler inspection: find entry functions, CLI markers
 * and schema constants in a handler file without executing it. JS/TS is parsed in process
 * with the TypeScript compiler API; Python through the bundled `inspect_handler.py`.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { HandlerInspection } from './types.ts';
import { scanJsSource } from './js.ts';
import { parseCached } from './parse-cache.ts';
import { scanPython } from './python.ts';

export type { HandlerInspection, EntryInfo, ParamInfo, EntryName } from './types.ts';
export { ENTRY_NAMES } from './types.ts';
export { listImports } from './js.ts';

/** Extensions inspected as JavaScript / TypeScript. */
const JS_EXTENSIONS = new Set(['.ts', '.mts', '.js', '.mjs', '.cjs']);

/** Inspection plus the module specifiers the handler imports (for R-LOAD-15). */
export interface HandlerScan {
  inspection: HandlerInspection;
  /**
   * JS/TS: specifiers as written (`../other/x.js`, `node:fs`). Python: module names with
   * relative imports keeping their leading dots (`..other_skill.util`). Empty when the
   * inspection was unavailable.
   */
  imports: string[];
}

/**
 * Inspect a handler file without executing it, dispatching on the extension:
 * `.ts .mts .js .mjs .cjs` → TypeScript compiler API, `.py` → `python3 inspect_handler.py`.
 *
 * @returns entries in R-ENTRY-01 order (`entry` = the first, null when none — D-14), the
 *   CLI-shape flag, statically evaluable schema constants (R-LOAD-13, A-43).
 *   A syntax error is `parsed: false` + `parseError` ("line:col message"); a missing python3
 *   is `unavailable` (R-PRE-04 then reports a warning).
 * @throws when the extension is not supported, or a JS/TS file cannot be read.
 */
export async function inspectHandler(file: string): Promise<HandlerInspection> {
  return (await scanHandler(file)).inspection;
}

/**
 * Like {@link inspectHandler}, also returning the handler's imports from the same parse
 * (one python3 run for a Python file). Same errors.
 */
export async function scanHandler(file: string): Promise<HandlerScan> {
  const ext = extname(file).toLowerCase();
  if (ext === '.py') return scanPython(file);
  if (JS_EXTENSIONS.has(ext)) {
    const text = await readFile(file, 'utf8');
    // The scan names the file, so the path is part of the key (parse-cache.ts).
    return parseCached(`handler-scan\0${file}`, text, () => scanJsSource(file, text));
  }
  throw new Error(`cannot inspect ${file}: unsupported handler extension "${ext}"`);
}
