/**
 * Static inspection of a handler file, without executing it.
 * Used by the registry (is there an entry? is it a CLI script? a schema constant?) and by
 * preflight (R-PRE-04).
 */
import type { JsonSchema } from '../types.ts';

/** Entry names in lookup order (R-ENTRY-01). */
export const ENTRY_NAMES = ['execute', 'run', 'handler', 'main', 'handle'] as const;
export type EntryName = (typeof ENTRY_NAMES)[number];

/** One declared parameter of an entry function. */
export interface ParamInfo {
  name: string;
  /** Has a default value (`ctx = {}` / `runtime_context=None`). */
  hasDefault: boolean;
  /** `...rest` / `*args` / `**kwargs`. */
  rest: boolean;
}

/** An entry function found in the module. */
export interface EntryInfo {
  name: EntryName;
  isAsync: boolean;
  params: ParamInfo[];
}

/** What static inspection found in one handler file. */
export interface HandlerInspection {
  file: string;
  language: 'ts' | 'js' | 'python';
  /** False when the file does not parse; `parseError` says why. */
  parsed: boolean;
  parseError?: string;
  /** Entry functions present, in lookup order (R-ENTRY-01). */
  entries: EntryInfo[];
  /** The first of `entries`, or null (D-14: a handler file without an entry is broken). */
  entry: EntryInfo | null;
  /**
   * True for a CLI-shaped script: Python with argparse and `if __name__ == "__main__"`;
   * JS/TS that reads `process.argv` and runs itself as the main module.
   */
  isCli: boolean;
  /** A statically evaluable input-schema constant (`INPUT_SCHEMA` / `input_schema` / `SCHEMA`). */
  schemaConstant?: JsonSchema;
  /** `OUTPUT_SCHEMA` / `output_schema` constant. */
  outputSchemaConstant?: JsonSchema;
  /** `CLI_COMMANDS` / `cli_commands` constant. */
  cliCommandsConstant?: Record<string, JsonSchema>;
  /**
   * Set when inspection could not run at all (e.g. python3 missing); the caller reports
   * it as a warning and treats the file as having an `execute` entry it could not see.
   */
  unavailable?: string;
}
