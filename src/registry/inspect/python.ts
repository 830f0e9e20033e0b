/**
 * Static inspection of a Python handler (handler.py) by running the bundled
 * `inspect_handler.py` (Python's own `ast`; the handler is never imported or executed).
 *
 * Source: R-ENTRY-01, R-ENTRY-07, R-PRE-04, A-04, A-43.
 */
import { pythonExecutable } from '../../config/python.ts';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { JsonSchema } from '../types.ts';
import { parseCachedAsync } from './parse-cache.ts';
import type { EntryInfo, HandlerInspection } from './types.ts';

/** The bundled inspector script, next to this file. */
const INSPECTOR = fileURLToPath(new URL('./inspect_handler.py', import.meta.url));
/** Wall clock for one inspection. */
const TIMEOUT_MS = 10_000;

/** A parsed Python handler: the inspection plus the module names it imports. */
export interface PythonScan {
  inspection: HandlerInspection;
  /** Imported module names; relative imports keep their leading dots (`..other_skill.x`). */
  imports: string[];
}

/** The JSON object `inspect_handler.py` prints (documented in the script). */
interface InspectorOutput {
  parsed: boolean;
  error?: { line: number; col: number; msg: string };
  entries?: EntryInfo[];
  isCli?: boolean;
  constants?: Record<string, unknown>;
  imports?: string[];
}

/**
 * Inspect a Python handler file.
 * @returns a {@link HandlerInspection}: a syntax error gives `parsed: false` with
 *   `parseError: "<line>:<col> <message>"`; when `python3` is not on PATH, `parsed: true`,
 *   no entries and `unavailable: "python3 not found: …"`; when the inspector fails for
 *   another reason (timeout, unreadable file), `unavailable` says why. Never rejects.
 */
export async function inspectPython(file: string): Promise<HandlerInspection> {
  return (await scanPython(file)).inspection;
}

/**
 * Inspect a Python handler and list its imports in one run of the inspector
 * (the imports feed the cross-skill import check, R-LOAD-15). Never rejects; see
 * {@link inspectPython} for the failure shapes (`imports` is then empty).
 * A text that parsed is remembered by content (parse-cache.ts): the next start does not run
 * python3 for it. A syntax error or a missing interpreter is looked at again every time.
 */
export async function scanPython(file: string): Promise<PythonScan> {
  let text: string;
  try {
    text = await readFile(file, 'latin1'); // one character per byte: the key covers the exact bytes
  } catch {
    return runScan(file); // the inspector reports the unreadable file
  }
  // The inspector reads the file itself: a scan is kept only when the file still holds `text`.
  let same = false;
  const scan = async (): Promise<PythonScan> => {
    const result = await runScan(file);
    same = (await readFile(file, 'latin1').catch(() => undefined)) === text;
    return result;
  };
  // The scan names the file, so the path is part of the key; so is PATH, which decides the
  // interpreter (a PATH without python3 is told so, not answered from an earlier scan).
  return parseCachedAsync(
    `python-scan\0${process.env.PATH ?? ''}\0${file}`,
    text,
    scan,
    (s) => same && s.inspection.parsed && !s.inspection.unavailable,
  );
}

async function runScan(file: string): Promise<PythonScan> {
  const base: HandlerInspection = { file, language: 'python', parsed: true, entries: [], entry: null, isCli: false };
  let out: InspectorOutput;
  try {
    out = JSON.parse(await runInspector(file)) as InspectorOutput;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string; killed?: boolean };
    const unavailable =
      e.code === 'ENOENT' ? `python3 not found: ${e.message}` : `python inspection failed: ${(e.stderr ?? '').trim() || e.message}`;
    return { inspection: { ...base, unavailable }, imports: [] };
  }
  const imports = out.imports ?? [];
  if (!out.parsed) {
    const err = out.error ?? { line: 0, col: 0, msg: 'unknown syntax error' };
    return { inspection: { ...base, parsed: false, parseError: `${err.line}:${err.col} ${err.msg}` }, imports };
  }
  const entries = out.entries ?? [];
  const inspection: HandlerInspection = { ...base, entries, entry: entries[0] ?? null, isCli: out.isCli === true };
  const c = out.constants ?? {};
  const schema = firstObject(c, ['INPUT_SCHEMA', 'input_schema', 'SCHEMA']);
  if (schema) inspection.schemaConstant = schema;
  const output = firstObject(c, ['OUTPUT_SCHEMA', 'output_schema']);
  if (output) inspection.outputSchemaConstant = output;
  const cli = firstObject(c, ['CLI_COMMANDS', 'cli_commands']);
  if (cli && Object.values(cli).every(isPlainObject)) inspection.cliCommandsConstant = cli as Record<string, JsonSchema>;
  return { inspection, imports };
}

/** `python3 -I -S -B inspect_handler.py <file>` without a shell; resolves with stdout. */
async function runInspector(file: string): Promise<string> {
  const python = await pythonExecutable();
  return new Promise((resolve, reject) => {
    execFile(
      python,
      // -I isolated (no PYTHON* env, no user site), -S no site import (only ast/json are used), -B no .pyc.
      ['-I', '-S', '-B', INSPECTOR, file],
      { timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) reject(Object.assign(err, { stderr }));
        else resolve(stdout);
      },
    );
  });
}

function firstObject(constants: Record<string, unknown>, names: string[]): Record<string, unknown> | undefined {
  for (const n of names) {
    const v = constants[n];
    if (isPlainObject(v)) return v;
  }
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
