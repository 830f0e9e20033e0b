/**
 * CommonJS packages loaded at their first use instead of by every start (docs/performance.md
 * "Start-up"): a start that validates nothing (no config file, no skill call yet) never loads
 * ajv; one whose SKILL.md files are all in the parse cache and that has no config file never
 * loads yaml. `require` gives the same module an `import` would (both packages' Node entry is
 * CommonJS).
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvClass } from 'ajv';
import type * as Yaml from 'yaml';

const require = createRequire(import.meta.url);

let ajv: typeof AjvClass | undefined;
let yaml: typeof Yaml | undefined;

/** The `Ajv` class of the `ajv` package. */
export function ajvClass(): typeof AjvClass {
  ajv ??= (require('ajv') as { Ajv: typeof AjvClass }).Ajv;
  return ajv;
}

/** The `yaml` package. */
export function yamlPackage(): typeof Yaml {
  yaml ??= require('yaml') as typeof Yaml;
  return yaml;
}
