/**
 * Packages loaded at their first use instead of by every start (docs/performance.md
 * "Start-up"): a start that validates nothing (no config file, no skill call yet) never loads
 * ajv; one whose SKILL.md files are all in the parse cache and that has no config file never
 * loads yaml; markdown-it waits for the first reply rendered, cron-parser for the first
 * schedule, minisearch for the first command suggestion, mime-types (with its 200 kB database)
 * for the first file name or Content-Type looked up. Through `require` (ajv, yaml, cron-parser
 * and mime-types are CommonJS; markdown-it and minisearch ship a CommonJS build of the same
 * version next to their ES one).
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvClass } from 'ajv';
import type * as Yaml from 'yaml';
import type MarkdownIt from 'markdown-it';
import type MiniSearch from 'minisearch';
import type CronParser from 'cron-parser';
import type MimeTypes from 'mime-types';

const require = createRequire(import.meta.url);

const loaded = new Map<string, unknown>();

/** `require(name)`, once. */
function once<T>(name: string): T {
  if (!loaded.has(name)) loaded.set(name, require(name));
  return loaded.get(name) as T;
}

/** The `Ajv` class of the `ajv` package. */
export const ajvClass = (): typeof AjvClass => once<{ Ajv: typeof AjvClass }>('ajv').Ajv;

/** The `yaml` package. */
export const yamlPackage = (): typeof Yaml => once<typeof Yaml>('yaml');

/** The `MarkdownIt` class. */
export const markdownItClass = (): typeof MarkdownIt => once<typeof MarkdownIt>('markdown-it');

/** The `MiniSearch` class. */
export const miniSearchClass = (): typeof MiniSearch => once<typeof MiniSearch>('minisearch');

/** The `cron-parser` package. */
export const cronParserPackage = (): typeof CronParser => once<typeof CronParser>('cron-parser');

/** The `mime-types` package (`lookup`, `extension`, …). */
export const mimeTypes = (): typeof MimeTypes => once<typeof MimeTypes>('mime-types');
