/**
 * Reference syntax of chain step parameters (R-CHAIN-27..34):
 *
 * - `{field}` — the lookup surface (chain inputs + flattened run context); `$ctx.field` is the same;
 * - `$steps.<alias>.<field>[.<field>|.<index>…]` — a named output of an earlier step;
 *   `$steps.<alias>` — the whole output;
 * - `$prev.<field>` — legacy: the step just before this one (old configurations only);
 * - any token may be followed by `?? <default>` (number, true, false, null, quoted string);
 * - a value that is exactly one token keeps the referenced value's type; tokens inside text
 *   are interpolated (objects/arrays as JSON, null as "") — inside text a `$…` token with a
 *   default is written in braces: `"n={$steps.a.x ?? 0}"`;
 * - a reference that cannot be resolved and has no default removes the parameter (never a
 *   placeholder string).
 *
 * Names (aliases, fields) may be Chinese; they cannot contain `.`, whitespace, `{`, `}`, `$`
 * or quotes (R-CHAIN-34).
 */

/** One name segment: letters (any script), digits, underscore. */
const SEG = String.raw`[\p{L}\p{N}_]+`;
/**
 * A whole alias, field or input name a reference can name (R-CHAIN-34): letters of any script
 * (Chinese included), digits, underscore — never `.`, whitespace, `{`, `}`, `$` or quotes.
 */
export const REFERENCE_NAME_RE = new RegExp(`^${SEG}$`, 'u');
const DOLLAR_REF = String.raw`\$(?:steps|ctx|prev)(?:\.${SEG})+`;
const DEFAULT = String.raw`-?\d+(?:\.\d+)?|true|false|null|"(?:[^"\\]|\\.)*"|'[^']*'`;
const BRACED = String.raw`\{\s*(${DOLLAR_REF}|${SEG})\s*(?:\?\?\s*(${DEFAULT})\s*)?\}`;
const BARE = `(${DOLLAR_REF})`;
const WHOLE = new RegExp(String.raw`^\s*(?:${BRACED}|${BARE}\s*(?:\?\?\s*(${DEFAULT}))?)\s*$`, 'u');
const IN_TEXT = new RegExp(`${BRACED}|${BARE}`, 'gu');

/** A parsed reference. */
export interface Reference {
  /** `input` for `{x}` / `$ctx.x`, `steps` for `$steps.…`, `prev` for `$prev.…`. */
  kind: 'input' | 'steps' | 'prev';
  /** For `steps`: the alias. */
  alias?: string;
  /** Path below the root (`["data","0","name"]`); for `input` the first element is the field. */
  path: string[];
  /** Whether `?? default` was given, and its value. */
  hasDefault: boolean;
  defaultValue?: unknown;
  /** The token as written. */
  text: string;
}

function parseDefault(text: string | undefined): { hasDefault: boolean; defaultValue?: unknown } {
  if (text === undefined) return { hasDefault: false };
  if (text.startsWith("'")) return { hasDefault: true, defaultValue: text.slice(1, -1) };
  return { hasDefault: true, defaultValue: JSON.parse(text) as unknown };
}

function parseRef(ref: string, def: string | undefined, text: string): Reference {
  const d = parseDefault(def);
  if (!ref.startsWith('$')) return { kind: 'input', path: [ref], text, ...d };
  const [head, ...rest] = ref.slice(1).split('.');
  if (head === 'steps') return { kind: 'steps', alias: rest[0]!, path: rest.slice(1), text, ...d };
  if (head === 'prev') return { kind: 'prev', path: rest, text, ...d };
  return { kind: 'input', path: rest, text, ...d };
}

/** The single reference a whole string consists of, or null when it is not exactly one token. */
export function wholeReference(value: string): Reference | null {
  const m = WHOLE.exec(value);
  if (!m) return null;
  if (m[1] !== undefined) return parseRef(m[1], m[2], value.trim());
  return parseRef(m[3]!, m[4], value.trim());
}

/** Every reference inside a string, in order (a whole-token string gives one). */
export function referencesIn(value: string): Reference[] {
  const whole = wholeReference(value);
  if (whole) return [whole];
  const out: Reference[] = [];
  for (const m of value.matchAll(IN_TEXT)) {
    out.push(m[1] !== undefined ? parseRef(m[1], m[2], m[0]) : parseRef(m[3]!, undefined, m[0]));
  }
  return out;
}

/** Every reference anywhere in a parameter value (strings inside objects and arrays too). */
export function collectReferences(value: unknown): Reference[] {
  if (typeof value === 'string') return referencesIn(value);
  if (Array.isArray(value)) return value.flatMap(collectReferences);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(collectReferences);
  return [];
}

/** What references resolve against. */
export interface ReferenceScope {
  /** lookup_ctx: flattened run context + filtered chain inputs (R-CHAIN-39). */
  lookup: Record<string, unknown>;
  /** Outputs of finished steps by alias (skipped steps absent, R-CHAIN-12). */
  steps: Record<string, unknown>;
  /** The alias of the step placed just before this one (for `$prev`), if any. */
  prevAlias?: string;
}

const MISSING = Symbol('missing');
type Found = unknown | typeof MISSING;

function walk(root: unknown, path: readonly string[]): Found {
  let cur: unknown = root;
  for (const seg of path) {
    if (Array.isArray(cur) && /^\d+$/.test(seg)) {
      const i = Number(seg);
      if (i >= cur.length) return MISSING;
      cur = cur[i];
    } else if (typeof cur === 'object' && cur !== null && !Array.isArray(cur) && Object.hasOwn(cur, seg)) {
      cur = (cur as Record<string, unknown>)[seg];
    } else {
      return MISSING;
    }
  }
  return cur === undefined ? MISSING : cur;
}

function lookupRef(ref: Reference, scope: ReferenceScope): Found {
  if (ref.kind === 'input') {
    if (ref.path.length === 0) return MISSING;
    return walk(scope.lookup, ref.path);
  }
  const alias = ref.kind === 'steps' ? ref.alias! : scope.prevAlias;
  if (alias === undefined || !Object.hasOwn(scope.steps, alias)) return MISSING;
  return walk(scope.steps[alias], ref.path);
}

function resolveRef(ref: Reference, scope: ReferenceScope): Found {
  const v = lookupRef(ref, scope);
  if (v !== MISSING) return v;
  return ref.hasDefault ? ref.defaultValue : MISSING;
}

function asText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function resolveString(value: string, scope: ReferenceScope): Found {
  const whole = wholeReference(value);
  if (whole) return resolveRef(whole, scope);
  let missing = false;
  const out = value.replace(IN_TEXT, (...m: unknown[]) => {
    const ref =
      m[1] !== undefined
        ? parseRef(m[1] as string, m[2] as string | undefined, m[0] as string)
        : parseRef(m[3] as string, undefined, m[0] as string);
    const v = resolveRef(ref, scope);
    if (v === MISSING) {
      missing = true;
      return '';
    }
    return asText(v);
  });
  return missing ? MISSING : out;
}

function resolveValue(value: unknown, scope: ReferenceScope): Found {
  if (typeof value === 'string') return resolveString(value, scope);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const v = resolveValue(item, scope);
      if (v !== MISSING) out.push(v);
    }
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(value)) {
      const v = resolveValue(item, scope);
      if (v !== MISSING) out[k] = v;
    }
    return out;
  }
  return value;
}

/**
 * Resolve a step's params: whole tokens keep their type (R-CHAIN-31), embedded tokens
 * interpolate (R-CHAIN-32), an unresolvable reference without a default drops its key —
 * at the top level the parameter is not passed at all (R-CHAIN-33).
 * @returns a new object; `params` is not mutated.
 */
export function resolveParams(params: Record<string, unknown> | undefined, scope: ReferenceScope): Record<string, unknown> {
  return resolveValue(params ?? {}, scope) as Record<string, unknown>;
}

/** Aliases a step depends on through `$steps.<alias>` (and `$prev` → `prevAlias`). */
export function stepDependencies(params: unknown, prevAlias: string | undefined): Set<string> {
  const deps = new Set<string>();
  for (const r of collectReferences(params)) {
    if (r.kind === 'steps' && r.alias) deps.add(r.alias);
    if (r.kind === 'prev' && prevAlias !== undefined) deps.add(prevAlias);
  }
  return deps;
}
