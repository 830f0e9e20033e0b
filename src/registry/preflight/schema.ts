/**
 * Preflight of the input schema (docs/skill-authoring.md): schema.json must be
 * valid JSON, `properties` values objects, `additionalProperties` / `items` booleans or
 * objects; every secret parameter is listed as information.
 *
 * Requirement ids: R-SCH-01, R-SCH-02, R-SCH-03, R-LOAD-13, R-CFG-05..07, D-20.
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { detectSecretParams } from '../secrets.ts';
import { chooseSubcommands } from '../subcommands.ts';
import type { HandlerInspection } from '../inspect/types.ts';
import type { Frontmatter, JsonSchema, SkillIssue } from '../types.ts';
import { fromIssue, notice, problem, type Finding } from './findings.ts';

/** JSON Schema type names (a bare string naming one repairs to `{type}`, R-SCH-02). */
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v} (${JSON.stringify(v)})`;
}

/**
 * Shape problems of one schema (R-SCH-03), walking `properties`, `patternProperties`,
 * `items`, `additionalProperties`, `anyOf` / `oneOf` / `allOf` / `not`, `$defs` /
 * `definitions`. `where` prefixes every message (e.g. `schema.json`).
 * Codes: `schema.bare_string`, `schema.property_not_object`, `schema.keyword_invalid`.
 */
export function lintSchema(schema: JsonSchema, where: string): Finding[] {
  const out: Finding[] = [];
  const bare = (at: string, v: string) => {
    const fix = JSON_TYPES.has(v.trim()) ? `{"type": "${v.trim()}"}` : 'an object such as {"type": "string", "description": "…"}';
    out.push(
      problem(
        'schema.bare_string',
        `${where}: ${at} is the bare string ${JSON.stringify(v)}; the platform repairs it to an object, but some model providers reject the whole tool batch — write ${fix}`,
      ),
    );
  };
  const walk = (node: Record<string, unknown>, path: string): void => {
    for (const key of ['properties', 'patternProperties']) {
      const props = node[key];
      if (props === undefined) continue;
      if (!isRecord(props)) {
        out.push(
          problem('schema.keyword_invalid', `${where}: ${path}${key} must be an object mapping names to schemas, not ${describe(props)}`),
        );
        continue;
      }
      for (const [name, def] of Object.entries(props)) {
        const at = `${path}${key}.${name}`;
        if (typeof def === 'string') bare(at, def);
        else if (!isRecord(def)) {
          out.push(
            problem(
              'schema.property_not_object',
              `${where}: ${at} is ${describe(def)}; properties values must be objects such as {"type": "string"}`,
            ),
          );
        } else walk(def, `${at}.`);
      }
    }
    for (const key of ['additionalProperties', 'items']) {
      const v = node[key];
      if (v === undefined || typeof v === 'boolean') continue;
      if (isRecord(v)) walk(v, `${path}${key}.`);
      else if (typeof v === 'string') bare(`${path}${key}`, v);
      else out.push(problem('schema.keyword_invalid', `${where}: ${path}${key} must be a boolean or an object, not ${describe(v)}`));
    }
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const list = node[key];
      if (Array.isArray(list)) for (const [i, s] of list.entries()) if (isRecord(s)) walk(s, `${path}${key}.${i}.`);
    }
    if (isRecord(node.not)) walk(node.not, `${path}not.`);
    for (const key of ['$defs', 'definitions']) {
      const defs = node[key];
      if (isRecord(defs)) for (const [n, s] of Object.entries(defs)) if (isRecord(s)) walk(s, `${path}${key}.${n}.`);
    }
  };
  walk(schema, '');
  return out;
}

/** `<dir>/schema.json` parsed: the object, or the problem that prevents reading it. */
async function readSchemaJson(dir: string): Promise<{ value?: JsonSchema; finding?: Finding }> {
  let text: string;
  try {
    text = await readFile(join(dir, 'schema.json'), 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return e.code === 'ENOENT' ? {} : { finding: problem('schema.json_invalid', `schema.json cannot be read: ${e.message}`) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { finding: problem('schema.json_invalid', `schema.json is not valid JSON: ${(err as Error).message}`) };
  }
  if (!isRecord(value))
    return { finding: problem('schema.json_invalid', `schema.json must be a JSON object (a schema), not ${describe(value)}`) };
  return { value };
}

/**
 * Check the input schema of the skill folder `dir` as written — schema.json, else the
 * handler's schema constant (the loader's precedence, R-LOAD-13) — and its sub-command
 * schemas (SKILL.md `cli_commands`, else schema.json `x-cli-commands`, else the code
 * constant, as `chooseSubcommands` picks them), then list secret parameters.
 *
 * - schema.json unreadable, not JSON or not an object → problem `schema.json_invalid`;
 * - shape problems of {@link lintSchema} (bare strings the loader repairs included, R-SCH-02/03);
 * - each top-level input property detected as a secret (`detectSecretParams`,
 *   docs/skill-authoring.md) → notice `secret.param` naming the opt-out `"x-secret": false`
 *   (D-20; never blocking).
 */
export async function checkSchema(dir: string, inspection: HandlerInspection | null, frontmatter: Frontmatter | null): Promise<Finding[]> {
  const code = inspection?.parsed && !inspection.unavailable ? inspection : null;
  const file = await readSchemaJson(dir);
  const findings: Finding[] = file.finding ? [file.finding] : [];

  const input = file.value ?? code?.schemaConstant;
  if (input) {
    const where = file.value ? 'schema.json' : `the input schema constant in ${basename(code!.file)}`;
    findings.push(...lintSchema(input, where));
  }

  const fileCli = file.value?.['x-cli-commands'];
  const declared = isRecord(fileCli)
    ? { cliCommands: fileCli as Record<string, JsonSchema>, cliCommandsSource: 'schema.json' as const }
    : Array.isArray(fileCli)
      ? { cliCommands: {}, cliCommandsSource: 'schema.json' as const }
      : code?.cliCommandsConstant
        ? { cliCommands: code.cliCommandsConstant, cliCommandsSource: 'code' as const }
        : {};
  const issues: SkillIssue[] = [];
  const subcommands = chooseSubcommands(frontmatter?.cliCommands, declared, issues);
  findings.push(...issues.map(fromIssue));
  for (const [sub, schema] of Object.entries(subcommands ?? {})) {
    if (isRecord(schema)) findings.push(...lintSchema(schema, `sub-command ${sub}`));
  }

  for (const name of detectSecretParams(input ?? {})) {
    findings.push(
      notice(
        'secret.param',
        `input property "${name}" is treated as a secret (its name contains key, token, secret, password, credential or auth): it is hidden from the model and filled from the role's stored parameter "${name}"; if it is not a secret, rename it or add "x-secret": false to it`,
      ),
    );
  }
  return findings;
}
