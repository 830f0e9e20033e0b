/**
 * Input schemas of skills: loading (schema.json beats a code constant), repair of bare-string
 * property values, output schema and sub-commands from schema.json, and the provider-facing
 * copy a model sees.
 *
 * Source: docs/skill-authoring.md. Requirement ids: R-LOAD-13,
 * R-SCH-01, R-SCH-02, R-CFG-06, A-03, A-09, A-43.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HandlerInspection } from './inspect/types.ts';
import type { JsonSchema, SkillIssue } from './types.ts';

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A bare-string schema value → an object (R-SCH-02): a JSON type name becomes `{type: name}`,
 * any other text becomes `{type: "string", description: text}`.
 */
function repairBare(value: string): JsonSchema {
  const t = value.trim();
  return JSON_TYPES.has(t.toLowerCase()) ? { type: t.toLowerCase() } : { type: 'string', description: value };
}

/**
 * Copy of a (sub-)schema with every bare-string value in `properties`, `items`,
 * `additionalProperties` and `patternProperties` repaired, recursively (R-SCH-02).
 * `path` is the JSON-pointer-ish location used in `repaired` (e.g. `properties.symbol`).
 */
function repairNode(node: JsonSchema, path: string, repaired: string[]): JsonSchema {
  const out: JsonSchema = { ...node };
  for (const key of ['properties', 'patternProperties'] as const) {
    const props = node[key];
    if (!isRecord(props)) continue;
    const fixed: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(props)) {
      const at = `${path}${key}.${name}`;
      if (typeof def === 'string') {
        fixed[name] = repairBare(def);
        repaired.push(at);
      } else if (isRecord(def)) {
        fixed[name] = repairNode(def, at + '.', repaired);
      } else {
        fixed[name] = def;
      }
    }
    out[key] = fixed;
  }
  for (const key of ['items', 'additionalProperties'] as const) {
    const v = node[key];
    if (typeof v === 'string') {
      out[key] = repairBare(v);
      repaired.push(`${path}${key}`);
    } else if (isRecord(v)) {
      out[key] = repairNode(v, `${path}${key}.`, repaired);
    } else if (Array.isArray(v) && key === 'items') {
      out[key] = v.map((item, i) => (isRecord(item) ? repairNode(item, `${path}items.${i}.`, repaired) : item));
    }
  }
  return out;
}

/**
 * Normalise an input schema (R-SCH-02): repair bare-string values recursively and make the
 * top level an object schema (`type: "object"`, `properties: {}` when absent).
 * @returns the repaired copy (the argument is not modified) and the repaired locations.
 */
export function normalizeSchema(schema: JsonSchema): { schema: JsonSchema; repaired: string[] } {
  const repaired: string[] = [];
  const out = repairNode(schema, '', repaired);
  if (out.type === undefined) out.type = 'object';
  if (!isRecord(out.properties)) out.properties = {};
  return { schema: out, repaired };
}

/** What {@link loadInputSchema} found for one skill. */
export interface LoadedSchema {
  /** Normalised input schema; `{type:"object",properties:{}}` when none. */
  inputSchema: JsonSchema;
  schemaSource: 'schema.json' | 'code' | 'none';
  /** `x-output-schema` of schema.json, else the code `output_schema` constant. */
  outputSchema?: JsonSchema;
  /** `x-cli-commands` of schema.json (docs/skill-authoring.md), else the code constant; normalised. */
  cliCommands?: Record<string, JsonSchema>;
  /** Where `cliCommands` came from. */
  cliCommandsSource?: 'schema.json' | 'code';
  /** `schema.json_invalid` (error) when schema.json is not a JSON object; `schema.bare_string` warnings. */
  issues: SkillIssue[];
}

/** Normalise every sub-command schema of a `{sub: schema}` map (R-SCH-02, R-SUBCMD-05). */
export function normalizeSubcommands(commands: Record<string, unknown>, issues: SkillIssue[]): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [sub, s] of Object.entries(commands)) {
    const { schema, repaired } = normalizeSchema(isRecord(s) ? s : {});
    reportRepairs(repaired, issues, `sub-command ${sub}: `);
    out[sub] = schema;
  }
  return out;
}

function reportRepairs(repaired: string[], issues: SkillIssue[], prefix = ''): void {
  for (const at of repaired)
    issues.push({
      severity: 'warning',
      code: 'schema.bare_string',
      message: `${prefix}${at} is a bare string; properties values must be objects (repaired, R-SCH-03)`,
    });
}

/**
 * Load the input schema of the skill folder `dir` (R-LOAD-13, R-SCH-01): `<dir>/schema.json`
 * when it exists, else `inspection.schemaConstant`, else an empty object schema. The output
 * schema and sub-commands follow the same precedence.
 * A schema.json that is not valid JSON or not an object gives an `error` issue and the code
 * constant (if any) is used instead.
 */
export async function loadInputSchema(dir: string, inspection?: HandlerInspection | null): Promise<LoadedSchema> {
  const issues: SkillIssue[] = [];
  let fileSchema: JsonSchema | undefined;
  try {
    const text = await readFile(join(dir, 'schema.json'), 'utf8');
    try {
      const parsed: unknown = JSON.parse(text);
      if (isRecord(parsed)) fileSchema = parsed;
      else issues.push({ severity: 'error', code: 'schema.json_invalid', message: 'schema.json is not a JSON object' });
    } catch (err) {
      issues.push({ severity: 'error', code: 'schema.json_invalid', message: `schema.json is not valid JSON: ${(err as Error).message}` });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      issues.push({ severity: 'error', code: 'schema.json_invalid', message: `schema.json cannot be read: ${(err as Error).message}` });
  }

  const result: LoadedSchema = { inputSchema: { type: 'object', properties: {} }, schemaSource: 'none', issues };
  const code = inspection ?? undefined;
  const raw = fileSchema ?? code?.schemaConstant;
  if (raw) {
    const { schema, repaired } = normalizeSchema(raw);
    reportRepairs(repaired, issues);
    result.inputSchema = schema;
    result.schemaSource = fileSchema ? 'schema.json' : 'code';
  }

  const fileOutput = fileSchema?.['x-output-schema'];
  if (isRecord(fileOutput)) result.outputSchema = fileOutput;
  else if (code?.outputSchemaConstant) result.outputSchema = code.outputSchemaConstant;

  const fileCli = fileSchema?.['x-cli-commands'];
  if (isRecord(fileCli)) {
    result.cliCommands = normalizeSubcommands(fileCli, issues);
    result.cliCommandsSource = 'schema.json';
  } else if (Array.isArray(fileCli)) {
    const names = fileCli.filter((n): n is string => typeof n === 'string' && n.trim() !== '');
    result.cliCommands = normalizeSubcommands(Object.fromEntries(names.map((n) => [n.trim(), {}])), issues);
    result.cliCommandsSource = 'schema.json';
  } else if (code?.cliCommandsConstant) {
    result.cliCommands = normalizeSubcommands(code.cliCommandsConstant, issues);
    result.cliCommandsSource = 'code';
  }
  return result;
}

/** Deep copy of a JSON value with every `x-*` key removed from every object. */
export function stripExtensions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripExtensions);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // A property *named* x-foo inside `properties` is a parameter, not an extension keyword.
    if (k === 'properties' && isRecord(v)) {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, d]) => [p, stripExtensions(d)]));
    } else if (!k.startsWith('x-')) {
      out[k] = stripExtensions(v);
    }
  }
  return out;
}

/**
 * The provider-facing copy of an input schema (R-CFG-06, A-09, R-SCH-02): bare strings
 * repaired, `secretParams` removed from top-level `properties` and `required`, every `x-*`
 * keyword stripped at every depth. The argument is not modified.
 */
export function providerSchema(schema: JsonSchema, secretParams: readonly string[]): JsonSchema {
  const { schema: normal } = normalizeSchema(schema);
  const secrets = new Set(secretParams);
  const props = isRecord(normal.properties) ? normal.properties : {};
  normal.properties = Object.fromEntries(Object.entries(props).filter(([k]) => !secrets.has(k)));
  if (Array.isArray(normal.required)) {
    const req = normal.required.filter((k) => typeof k === 'string' && !secrets.has(k));
    if (req.length > 0) normal.required = req;
    else delete normal.required;
  }
  return stripExtensions(normal) as JsonSchema;
}
