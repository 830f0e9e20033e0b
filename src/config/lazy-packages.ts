/**
 * ajv, loaded at its first use instead of by every start (docs/performance.md "Start-up"):
 * a start that validates nothing (no config file, no skill call yet) never loads it.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvClass } from 'ajv';

let loaded: typeof AjvClass | undefined;

/** The `Ajv` class of the `ajv` package (CommonJS, required on first use). */
export function ajvClass(): typeof AjvClass {
  loaded ??= (createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvClass }).Ajv;
  return loaded;
}
