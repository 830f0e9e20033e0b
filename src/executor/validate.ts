/**
 * Input validation before a skill runs: JSON Schema (ajv 8) plus the platform's required
 * semantics, and the sub-command restoration that picks the schema to validate against.
 *
 * Requirement ids: R-SCH-04, R-SCH-05, R-SUBCMD-03, R-SUBCMD-05,
 * A-03, A-08.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { ajvClass } from '../config/lazy-packages.ts';
import type { Envelope } from '../envelope/types.ts';
import { commandLine, exampleArgs, ruleText, schemaProps, typeText } from '../present/schema-text.ts';
import { needsSubcommandEnum, resolveToolName, SUBCOMMAND_KEY, withSubcommandEnum } from '../registry/subcommands.ts';
import type { JsonSchema, SkillRecord } from '../registry/types.ts';

/** Language of user-facing texts. */
export type Lang = 'zh-CN' | 'en';

/** Options of {@link validateInput}. */
export interface ValidateOptions {
  /** Skill name, named in the model-facing error. */
  skill: string;
  /** Language of `user_message` (default zh-CN). */
  lang?: Lang;
}

/**
 * Defaults are never injected (A-08: the skill owns them); formats are not checked (no format
 * vocabulary is part of the contract); unknown keywords are ignored (`strict: false`).
 */
let shared: Ajv | undefined;
/** The one ajv instance, made at the first schema compiled (docs/performance.md "Start-up"). */
const ajvInstance = (): Ajv =>
  (shared ??= new (ajvClass())({ strict: false, allErrors: true, useDefaults: false, validateFormats: false, logger: false }));
/** Compiled validators keyed by schema identity; null = the schema does not compile. */
const compiled = new WeakMap<object, ValidateFunction | null>();

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * "Not provided" (R-SCH-04): absent, null, `""`, a whitespace-only string,
 * `[]` or `{}`. `0` and `false` are values.
 */
export function isNotProvided(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (isRecord(value)) return Object.keys(value).length === 0;
  return false;
}

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * Collect the dotted paths (`address.city`, `items[0].name`) of required fields that are not
 * provided, at every object level the schema describes: `required` + `properties`, `allOf`
 * members and object-schema `items` (A-08).
 */
function collectMissing(schema: unknown, value: unknown, path: string, out: string[]): void {
  if (!isRecord(schema)) return;
  if (isRecord(value)) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    for (const name of required) {
      if (typeof name !== 'string') continue;
      const p = child(path, name);
      if (isNotProvided(value[name]) && !out.includes(p)) out.push(p);
    }
    if (isRecord(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (!isNotProvided(value[name])) collectMissing(sub, value[name], child(path, name), out);
      }
    }
  }
  if (Array.isArray(value) && isRecord(schema.items)) {
    for (const [i, item] of value.entries()) collectMissing(schema.items, item, child(path, i), out);
  }
  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) collectMissing(sub, value, path, out);
}

/** Keys that say nothing about an object's content. */
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'examples']);

/**
 * A schema any JSON object passes (`{}`, `{type: 'object', properties: {}}`, only annotations):
 * validated without compiling, so a skill without parameters does not load ajv.
 */
function acceptsAnyObject(schema: JsonSchema): boolean {
  let hit = anyObject.get(schema);
  if (hit === undefined) {
    hit = schemaAcceptsAnyObject(schema);
    anyObject.set(schema, hit);
  }
  return hit;
}

/** {@link acceptsAnyObject} by schema object (schemas are never changed in place, as `compiled`). */
const anyObject = new WeakMap<object, boolean>();

function schemaAcceptsAnyObject(schema: JsonSchema): boolean {
  return Object.entries(schema).every(([key, value]) => {
    if (ANNOTATIONS.has(key)) return true;
    if (key === 'type') return value === 'object';
    if (key === 'properties') return isRecord(value) && Object.keys(value).length === 0;
    if (key === 'required') return Array.isArray(value) && value.length === 0;
    if (key === 'additionalProperties') return value === true;
    return false;
  });
}

function validatorFor(schema: JsonSchema): ValidateFunction | null {
  if (compiled.has(schema)) return compiled.get(schema) ?? null;
  let fn: ValidateFunction | null;
  try {
    fn = ajvInstance().compile(schema);
  } catch {
    // A schema ajv refuses (preflight reports it) still gets the required check below.
    fn = null;
  }
  // Our WeakMap is the cache: drop ajv's own strong reference (and the `$id` registration, so
  // two skills sharing an `$id` do not collide).
  try {
    ajvInstance().removeSchema(schema);
  } catch {
    // not registered
  }
  compiled.set(schema, fn);
  return fn;
}

/** `/items/0/name` → `items[0].name`, plus the property an error is about. */
function fieldOf(err: ErrorObject): string {
  let path = '';
  for (const part of err.instancePath.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    path = /^\d+$/.test(key) ? child(path, Number(key)) : child(path, key);
  }
  const params = err.params as { missingProperty?: string; additionalProperty?: string };
  if (err.keyword === 'required' && params.missingProperty) return child(path, params.missingProperty);
  if (err.keyword === 'additionalProperties' && params.additionalProperty) return child(path, params.additionalProperty);
  return path;
}

function describe(err: ErrorObject): string {
  const params = err.params as { allowedValues?: unknown[]; allowedValue?: unknown };
  switch (err.keyword) {
    case 'additionalProperties':
      return 'is not a parameter of this tool (remove it)';
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of ${(params.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return err.message ?? `fails the "${err.keyword}" rule`;
  }
}

function under(field: string, parent: string): boolean {
  return field === parent || field.startsWith(`${parent}.`) || field.startsWith(`${parent}[`);
}

/**
 * Validate `input` against `schema` before running the skill (R-SCH-04, R-SCH-05, A-08).
 *
 * Required fields count as not provided when absent or empty (see {@link isNotProvided}), at
 * the top level and inside nested objects; every other JSON Schema rule is checked by ajv.
 * Defaults are never injected and `input` is never modified.
 *
 * @returns null when the input is valid; otherwise a recoverable envelope — the skill must not
 *   run — `{success:false, error_type:'recoverable', need_param, error, user_message}`:
 *   `need_param` is the offending field path (`address.city`), or an array of them when
 *   several (missing ones first); `error` is English text for the model naming every field and
 *   how to fix it; `user_message` is zh-CN (or English with `lang: 'en'`). A schema ajv cannot
 *   compile gets only the required check.
 */
export function validateInput(schema: JsonSchema, input: Record<string, unknown>, opts: ValidateOptions): Envelope | null {
  const missing: string[] = [];
  collectMissing(schema, input, '', missing);
  const invalid: { field: string; text: string }[] = [];
  const validate = isRecord(input) && isRecord(schema) && acceptsAnyObject(schema) ? null : validatorFor(schema);
  if (validate && !validate(input)) {
    for (const err of validate.errors ?? []) {
      const field = fieldOf(err);
      if (missing.some((m) => under(field, m))) continue; // already reported as not provided
      if (err.keyword === 'required') {
        if (!missing.includes(field)) missing.push(field);
        continue;
      }
      const text = describe(err);
      if (!invalid.some((i) => i.field === field && i.text === text)) invalid.push({ field, text });
    }
  }
  if (missing.length === 0 && invalid.length === 0) return null;
  return invalidInputEnvelope({ ...opts, schema }, missing, invalid);
}

function invalidInputEnvelope(
  opts: ValidateOptions & { schema?: JsonSchema },
  missing: string[],
  invalid: { field: string; text: string }[],
): Envelope {
  const fields = [...missing];
  for (const i of invalid) if (!fields.includes(i.field || '(input)')) fields.push(i.field || '(input)');
  const parts: string[] = [];
  if (missing.length) {
    parts.push(
      `missing required parameter(s): ${missing.map((m) => `\`${m}\``).join(', ')} — a missing key, null, "", ` +
        'a whitespace-only string, [] and {} all count as not provided (0 and false are valid values)',
    );
  }
  if (invalid.length) {
    parts.push(`invalid parameter(s): ${invalid.map((i) => `\`${i.field || '(input)'}\` ${i.text}`).join('; ')}`);
  }
  const error =
    `Input for skill \`${opts.skill}\` was not accepted and the skill did not run: ${parts.join('; ')}. ` +
    'Call the tool again with a valid value for each listed parameter (ask the user when you do not know it); ' +
    'the platform fills in no defaults.';
  const bad = invalid.map((i) => i.field || '(input)');
  const lang = opts.lang === 'en' ? 'en' : 'zh-CN';
  const props = schemaProps(opts.schema ?? {});
  // What each bad top-level parameter must be (type, range, allowed values), and an example.
  const rules = [...new Set(bad)]
    .map((f) => {
      const p = props[f];
      const rule = p ? [typeText(p, lang), ruleText(p, lang)].filter(Boolean).join(lang === 'en' ? ', ' : '，') : '';
      return rule ? (lang === 'en' ? `${f} must be ${rule}` : `${f} 应为${rule}`) : '';
    })
    .filter(Boolean);
  const example = opts.schema && opts.skill ? commandLine(opts.skill, exampleArgs(opts.schema)) : '';
  const tail = [
    rules.join(lang === 'en' ? '; ' : '；'),
    example ? (lang === 'en' ? `Example: ${example}` : `示例：${example}`) : '',
  ].filter(Boolean);
  let user_message: string;
  if (opts.lang === 'en') {
    const seg: string[] = [];
    if (missing.length) seg.push(`missing ${missing.join(', ')}`);
    if (bad.length) seg.push(`invalid ${bad.join(', ')}`);
    user_message = `Some parameters are missing or invalid (${seg.join('; ')}). ${tail.length ? `${tail.join('. ')}.` : 'Please provide them and try again.'}`;
  } else {
    const seg: string[] = [];
    if (missing.length) seg.push(`缺少必填参数 ${missing.join('、')}`);
    if (bad.length) seg.push(`参数 ${bad.join('、')} 格式不正确`);
    user_message = `参数不完整或格式不正确：${seg.join('；')}。${tail.length ? `${tail.join('。')}` : '请补充后重试。'}`;
  }
  return {
    success: false,
    error_type: 'recoverable',
    need_param: fields.length === 1 ? fields[0]! : fields,
    error,
    user_message,
  };
}

/** The schema and input a call validates and runs with, once restored (R-SUBCMD-03/05). */
export interface SubcommandInput {
  schema: JsonSchema;
  /** A new object; carries `_subcommand` when the call names a sub-command. */
  input: Record<string, unknown>;
  /** The sub-command, when the call names a declared one. */
  subcommand?: string;
}

/** Derived schemas memoized per base schema object, so the validator cache keeps hitting. */
const derivedSchemas = new WeakMap<JsonSchema, Map<string, JsonSchema>>();

function derived(base: JsonSchema, key: string, make: () => JsonSchema): JsonSchema {
  let byKey = derivedSchemas.get(base);
  if (!byKey) derivedSchemas.set(base, (byKey = new Map()));
  let schema = byKey.get(key);
  if (!schema) byKey.set(key, (schema = make()));
  return schema;
}

/** `schema` with a `_subcommand` string property (not required) so `_subcommand` is accepted. */
function acceptingSubcommand(schema: JsonSchema, names: readonly string[]): JsonSchema {
  const props = isRecord(schema.properties) ? schema.properties : {};
  if (SUBCOMMAND_KEY in props) return schema;
  return derived(schema, `accept:${JSON.stringify(names)}`, () => ({
    ...schema,
    properties: { ...props, [SUBCOMMAND_KEY]: { type: 'string', enum: [...names] } },
  }));
}

/**
 * Restore a tool call to the skill's input and pick the schema to validate it with
 * (R-SUBCMD-03, R-SUBCMD-05, A-03).
 *
 * - `<skill>__<sub>` (fan-out, 1..45 sub-commands): `input._subcommand = sub`; the schema is
 *   that sub-command's (with `_subcommand` accepted as a property).
 * - the base name with `input._subcommand` naming a declared sub-command (the ≥46 enum tool,
 *   or a `call_skill` caller): that sub-command's schema.
 * - an unknown sub-command, or none where the skill has ≥46 (its tool requires the enum): the
 *   skill schema with the required `_subcommand` enum, so {@link validateInput} reports
 *   `_subcommand` (missing, or not one of the names).
 * - otherwise the skill's own schema.
 * Tool names are parsed by `resolveToolName` (registry).
 */
export function resolveSubcommandInput(skill: SkillRecord, toolName: string, input: Record<string, unknown>): SubcommandInput {
  const resolved = resolveToolName(toolName, (name) => name === skill.name);
  const out: Record<string, unknown> = { ...input };
  const fromName = resolved.skill === skill.name ? resolved.subcommand : undefined;
  if (fromName !== undefined) out[SUBCOMMAND_KEY] = fromName;
  const subs = skill.subcommands;
  const names = subs ? Object.keys(subs) : [];
  const sub = out[SUBCOMMAND_KEY];
  if (subs && typeof sub === 'string' && Object.hasOwn(subs, sub)) {
    return { schema: acceptingSubcommand(subs[sub]!, names), input: out, subcommand: sub };
  }
  if (subs && (SUBCOMMAND_KEY in out || needsSubcommandEnum(subs))) {
    const schema = derived(skill.inputSchema, `enum:${JSON.stringify(names)}`, () => withSubcommandEnum(skill.inputSchema, names));
    return { schema, input: out };
  }
  if (typeof sub === 'string' && fromName !== undefined) {
    return { schema: acceptingSubcommand(skill.inputSchema, [sub]), input: out };
  }
  return { schema: skill.inputSchema, input: out };
}
