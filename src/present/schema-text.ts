/**
 * A parameter schema told to people (docs/chat-authoring.md "Help"): the rule a value must
 * follow (type, range, allowed values, format, length) and a working example command built
 * from the schema. Used by `/help <skill>` and by the argument errors of validation.
 */
import type { ShowLang } from './cells.ts';

type Schema = Record<string, unknown>;

function isRec(v: unknown): v is Schema {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The properties of an object schema. */
export function schemaProps(schema: Schema): Record<string, Schema> {
  const p = schema.properties;
  return isRec(p) ? (Object.fromEntries(Object.entries(p).filter(([, v]) => isRec(v))) as Record<string, Schema>) : {};
}

/** The required property names that exist. */
export function schemaRequired(schema: Schema): string[] {
  const r = schema.required;
  const known = schemaProps(schema);
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string' && x in known) : [];
}

const TYPE_ZH: Record<string, string> = {
  string: '文本',
  integer: '整数',
  number: '数字',
  boolean: '布尔（true/false）',
  array: '数组',
  object: '对象',
};

function typesOf(p: Schema): string[] {
  if (Array.isArray(p.type)) return p.type.filter((t): t is string => typeof t === 'string');
  if (typeof p.type === 'string') return [p.type];
  const alts = Array.isArray(p.anyOf) ? p.anyOf : Array.isArray(p.oneOf) ? p.oneOf : [];
  return alts.filter(isRec).flatMap(typesOf);
}

/** The type of `p` as a person reads it (`整数`, `text | integer`). */
export function typeText(p: Schema, lang: ShowLang): string {
  const types = [...new Set(typesOf(p))];
  return types.map((t) => (lang === 'en' ? t : (TYPE_ZH[t] ?? t))).join(lang === 'en' ? ' | ' : '或');
}

/** The rules of `p` beyond its type, e.g. `1–600`, `可选值：a、b`, `格式 email`; "" when none. */
export function ruleText(p: Schema, lang: ShowLang): string {
  const en = lang === 'en';
  const out: string[] = [];
  const min = typeof p.minimum === 'number' ? p.minimum : typeof p.exclusiveMinimum === 'number' ? p.exclusiveMinimum : null;
  const max = typeof p.maximum === 'number' ? p.maximum : typeof p.exclusiveMaximum === 'number' ? p.exclusiveMaximum : null;
  if (min !== null && max !== null) out.push(en ? `${min}–${max}` : `${min}–${max}`);
  else if (min !== null) out.push(en ? `at least ${min}` : `不小于 ${min}`);
  else if (max !== null) out.push(en ? `at most ${max}` : `不大于 ${max}`);
  if (Array.isArray(p.enum))
    out.push(`${en ? 'one of ' : '可选值：'}${p.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(en ? ', ' : '、')}`);
  if (p.const !== undefined) out.push(`${en ? 'exactly ' : '固定为 '}${JSON.stringify(p.const)}`);
  if (typeof p.minLength === 'number' || typeof p.maxLength === 'number') {
    const a = typeof p.minLength === 'number' ? p.minLength : 0;
    out.push(
      typeof p.maxLength === 'number'
        ? en
          ? `${a}–${p.maxLength} characters`
          : `${a}–${p.maxLength} 个字符`
        : en
          ? `at least ${a} characters`
          : `至少 ${a} 个字符`,
    );
  }
  if (typeof p.format === 'string') out.push(`${en ? 'format ' : '格式 '}${p.format}`);
  if (typeof p.pattern === 'string') out.push(`${en ? 'pattern ' : '匹配 '}${p.pattern}`);
  return out.join(en ? '; ' : '；');
}

/** An example value for a property: examples / default / const / first enum value / by type and range. */
export function exampleValue(name: string, p: Schema): unknown {
  if (Array.isArray(p.examples) && p.examples.length) return p.examples[0];
  if (p.default !== undefined) return p.default;
  if (p.const !== undefined) return p.const;
  if (Array.isArray(p.enum) && p.enum.length) return p.enum[0];
  switch (typesOf(p)[0]) {
    case 'integer':
    case 'number':
      return typeof p.minimum === 'number' ? p.minimum : typeof p.maximum === 'number' ? Math.min(1, p.maximum) : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return `<${name}>`;
  }
}

/** A value as typed in `key=value` (quoted only when the parser would not read it back as this string). */
export function formatArgValue(v: unknown): string {
  if (typeof v !== 'string') return JSON.stringify(v) ?? 'null';
  let readsBack = /^[^\s"'“{[]+$/u.test(v);
  if (readsBack) {
    try {
      JSON.parse(v);
      readsBack = false; // would be read as a number/boolean/null
    } catch {
      /* a plain string */
    }
  }
  return readsBack ? v : JSON.stringify(v);
}

/** `/name k=v …` for `args` (the JSON form when a value would not read back). */
export function commandLine(name: string, args: Record<string, unknown>): string {
  // A quoted string may hold spaces; a JSON object or list with spaces would not read back.
  if (Object.values(args).some((v) => v !== null && typeof v === 'object' && /\s/.test(JSON.stringify(v))))
    return `/${name} ${JSON.stringify(args)}`;
  const parts = Object.entries(args).map(([k, v]) => `${k}=${formatArgValue(v)}`);
  return [`/${name}`, ...parts].join(' ');
}

/** Example arguments: the schema's first `examples` object, else every required parameter. */
export function exampleArgs(schema: Schema): Record<string, unknown> {
  if (Array.isArray(schema.examples) && isRec(schema.examples[0])) return schema.examples[0];
  const p = schemaProps(schema);
  return Object.fromEntries(schemaRequired(schema).map((k) => [k, exampleValue(k, p[k] ?? {})]));
}
