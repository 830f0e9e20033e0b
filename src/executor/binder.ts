/**
 * The one entry binder (D-15, R-ENTRY-01..03, R-ENTRY-05): find the entry function among a
 * module's exports and decide which arguments it gets from its DECLARED parameters.
 *
 * `fn.length` stops counting at the first parameter with a default value, so
 * `execute(input, ctx = {})` has length 1 and would lose its context (the R-ENTRY-03 trap).
 * The declared list is read instead by parsing `Function.prototype.toString` with the
 * TypeScript parser (the same parser the registry's static inspection uses).
 */
import ts from 'typescript';
import { ENTRY_NAMES, type EntryName } from '../registry/inspect/types.ts';
import { parseCached } from '../registry/inspect/parse-cache.ts';

/** The entry found in a module. */
export interface ResolvedEntry {
  name: EntryName;
  fn: (...args: unknown[]) => unknown;
  /** Declared parameters (defaulted ones included); `Infinity` with a rest parameter. */
  declared: number;
  /** An `async function` / async arrow / async method (R-ENTRY-05). */
  isAsync: boolean;
}

type AnyFn = (...args: unknown[]) => unknown;

/**
 * The first exported function named execute, run, handler, main or handle, in that order
 * (R-ENTRY-01). CommonJS modules are also searched through their `default` export object.
 * @returns null when none of the names is a function.
 */
export function findEntry(mod: Record<string, unknown>): ResolvedEntry | null {
  const sources: Array<Record<string, unknown>> = [mod];
  const def = mod.default;
  if (def && typeof def === 'object') sources.push(def as Record<string, unknown>);
  for (const name of ENTRY_NAMES) {
    for (const src of sources) {
      const fn = src[name];
      if (typeof fn === 'function') {
        return { name, fn: fn as AnyFn, declared: declaredParamCount(fn as AnyFn), isAsync: isAsyncFunction(fn as AnyFn) };
      }
    }
  }
  return null;
}

/** True for async functions and async generator functions. */
export function isAsyncFunction(fn: (...args: never[]) => unknown): boolean {
  const tag = Object.prototype.toString.call(fn);
  return tag === '[object AsyncFunction]' || tag === '[object AsyncGeneratorFunction]';
}

const counted = new WeakMap<object, number>();

function countParams(params: ts.NodeArray<ts.ParameterDeclaration>): number {
  let n = 0;
  for (const p of params) {
    if (p.dotDotDotToken) return Infinity;
    if (ts.isIdentifier(p.name) && p.name.text === 'this') continue;
    n++;
  }
  return n;
}

function functionIn(sf: ts.SourceFile): ts.SignatureDeclarationBase | null {
  const st = sf.statements[0];
  if (!st || sf.statements.length !== 1 || !ts.isExpressionStatement(st)) return null;
  let e: ts.Expression = st.expression;
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (ts.isFunctionExpression(e) || ts.isArrowFunction(e)) return e;
  if (ts.isObjectLiteralExpression(e) && e.properties.length === 1) {
    const m = e.properties[0];
    if (m && (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m))) return m;
  }
  return null;
}

function parse(text: string): ts.SignatureDeclarationBase | null {
  const sf = ts.createSourceFile('entry.js', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const diagnostics = (sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics;
  if (diagnostics && diagnostics.length > 0) return null;
  return functionIn(sf);
}

/**
 * Number of DECLARED parameters of `fn`, including those with default values (D-15);
 * `Infinity` when it has a rest parameter. Falls back to `fn.length` for functions whose
 * source is not available (native, bound) or cannot be parsed. Cached per function, and the
 * parse per source text on disk (`parse-cache.ts`: no compiler load for a known handler).
 */
export function declaredParamCount(fn: (...args: never[]) => unknown): number {
  const hit = counted.get(fn);
  if (hit !== undefined) return hit;
  let n = fn.length;
  const src = Function.prototype.toString.call(fn);
  if (!/\{\s*\[native code\]\s*\}\s*$/.test(src)) {
    // `function f(a){}` / `(a) => a` parse as expressions; methods `f(a){}` inside `({…})`.
    // Cached as -1 for a rest parameter (JSON has no Infinity), null when it does not parse.
    const parsed = parseCached('entry-params', src, () => {
      const node = parse(`(${src})`) ?? parse(`({${src}})`);
      if (!node) return null;
      const c = countParams(node.parameters);
      return c === Infinity ? -1 : c;
    });
    if (parsed !== null) n = parsed === -1 ? Infinity : parsed;
  }
  counted.set(fn, n);
  return n;
}

/**
 * Arguments for an entry with `declared` parameters (R-ENTRY-02, D-15): 0 → `[]`,
 * 1 → `[input]`, 2 or more (a rest parameter included) → `[input, ctx]`.
 */
export function bindArgs(declared: number, input: unknown, ctx: unknown): unknown[] {
  if (declared <= 0) return [];
  if (declared === 1) return [input];
  return [input, ctx];
}
