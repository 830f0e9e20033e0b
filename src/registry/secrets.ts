/**
 * Secret parameter detection (docs/skill-authoring.md).
 *
 * Requirement ids: R-CFG-05, R-CFG-06, R-CFG-07, D-20 (keep the over-matching substring rule,
 * make the list configurable).
 */
import type { JsonSchema } from './types.ts';

/** The default substrings that mark a name as a credential (R-CFG-05); matched case-insensitively. */
export const SECRET_SUBSTRINGS: readonly string[] = Object.freeze(['key', 'token', 'secret', 'password', 'credential', 'auth']);

/**
 * True when `name` contains any of `substrings` (default {@link SECRET_SUBSTRINGS}),
 * case-insensitively, anywhere in the name — `api_token`, `AUTH_HEADERS`, also `author` (D-20).
 */
export function isSecretName(name: string, substrings: readonly string[] = SECRET_SUBSTRINGS): boolean {
  const lower = name.toLowerCase();
  return substrings.some((s) => s !== '' && lower.includes(s.toLowerCase()));
}

/**
 * Names of the TOP-LEVEL `properties` of an input schema that are secrets (docs/skill-authoring.md):
 * a property is secret when `"x-secret": true`, or when its name matches
 * {@link isSecretName} and it does not carry `"x-secret": false`. Nested properties are not
 * scanned. Order follows the schema's property order.
 */
export function detectSecretParams(schema: JsonSchema, substrings: readonly string[] = SECRET_SUBSTRINGS): string[] {
  const props = schema.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props)) return [];
  const out: string[] = [];
  for (const [name, def] of Object.entries(props as Record<string, unknown>)) {
    const flag = typeof def === 'object' && def !== null ? (def as Record<string, unknown>)['x-secret'] : undefined;
    if (flag === true || (flag !== false && isSecretName(name, substrings))) out.push(name);
  }
  return out;
}

/** {@link detectSecretParams} with the default substrings, by schema object (schemas are never changed in place). */
const bySchema = new WeakMap<object, readonly string[]>();

/**
 * {@link detectSecretParams}`(schema)` (default substrings), computed once per schema object:
 * for the per-call paths (a skill call, its audit row). Frozen: callers never change it.
 */
export function secretParamsOf(schema: JsonSchema): readonly string[] {
  let hit = bySchema.get(schema);
  if (hit === undefined) {
    hit = Object.freeze(detectSecretParams(schema));
    bySchema.set(schema, hit);
  }
  return hit;
}
