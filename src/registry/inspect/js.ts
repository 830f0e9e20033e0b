/**
 * Static inspection of a TypeScript / JavaScript handler (handler.ts|js|mjs, also .mts/.cjs)
 * with the TypeScript compiler API. Nothing is executed or resolved: one file is parsed.
 *
 * Source: R-ENTRY-01, R-PRE-04, A-04, A-43, R-LOAD-13/15.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import ts from 'typescript';
import { ENTRY_NAMES, type EntryInfo, type EntryName, type HandlerInspection, type ParamInfo } from './types.ts';
import { evaluateLiteral, unwrapExpression } from './js-literal.ts';
import type { JsonSchema } from '../types.ts';

/** A parsed JS/TS handler: the inspection plus the module specifiers it imports. */
export interface JsScan {
  inspection: HandlerInspection;
  /** Every statically written module specifier (see {@link listImports}). */
  imports: string[];
}

/** Constant names read from the module, each group in priority order. */
const SCHEMA_NAMES = ['INPUT_SCHEMA', 'input_schema', 'SCHEMA'];
const OUTPUT_SCHEMA_NAMES = ['OUTPUT_SCHEMA', 'output_schema'];
const CLI_COMMANDS_NAMES = ['CLI_COMMANDS', 'cli_commands'];

type FunctionLike = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;
/** What a CommonJS export is bound to. */
type CjsValue = ts.Expression | ts.MethodDeclaration;

/**
 * Inspect a JS/TS handler file without executing it.
 * @returns a {@link HandlerInspection}; a syntax error gives `parsed: false` and
 *   `parseError: "<line>:<col> <message>"` (1-based), with no entries.
 * @throws when the file cannot be read.
 */
export async function inspectJs(file: string): Promise<HandlerInspection> {
  return scanJsSource(file, await readFile(file, 'utf8')).inspection;
}

/**
 * Module specifiers a JS/TS file imports, in source order, for the cross-skill import
 * check (R-LOAD-15): `import … from 'x'`, `export … from 'x'`, `import x = require('x')`,
 * `import('x')` and `require('x')` with a string literal. Computed specifiers are not seen.
 * Works on files that do not parse (whatever the parser recovered).
 * @throws when the file cannot be read.
 */
export async function listImports(file: string): Promise<string[]> {
  return scanJsSource(file, await readFile(file, 'utf8')).imports;
}

/**
 * Parse `text` as the contents of `file` (ScriptKind from the extension: .ts/.mts/.cts are
 * TypeScript, everything else JavaScript) and inspect it. Pure; never throws on bad source.
 *
 * Entries (R-ENTRY-01, in ENTRY_NAMES order) are named exports bound to a function:
 * `export [async] function execute(…)`, `export const execute = async (…) => …` (or a
 * function expression, or an alias of a local function), `export { fn as execute }`, and
 * CommonJS `exports.execute = …` / `module.exports = { execute }`. `export default` and
 * re-exports from another module (`export { execute } from './x.js'`) are not followed.
 *
 * `isCli` is true when the file reads `process.argv` AND runs itself as the main
 * module: an expression relating `import.meta` to `process.argv` (e.g.
 * `import.meta.url === pathToFileURL(process.argv[1]).href`), `import.meta.main`,
 * `require.main === module`, or a top-level statement calling an entry name with an
 * argument that mentions `process.argv` (e.g. `main(process.argv.slice(2))`).
 *
 * Constants (exported or not, top level): `INPUT_SCHEMA | input_schema | SCHEMA`,
 * `OUTPUT_SCHEMA | output_schema`, `CLI_COMMANDS | cli_commands` — read when their
 * initializer is a pure object literal (`as const` allowed), see `evaluateLiteral`.
 */
export function scanJsSource(file: string, text: string): JsScan {
  const ext = extname(file).toLowerCase();
  const isTs = ext === '.ts' || ext === '.mts' || ext === '.cts';
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, isTs ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const imports = collectImports(sf);
  const base: HandlerInspection = {
    file,
    language: isTs ? 'ts' : 'js',
    parsed: true,
    entries: [],
    entry: null,
    isCli: false,
  };

  const diag = syntaxDiagnostics(sf)[0];
  if (diag) {
    const { line, character } = sf.getLineAndCharacterOfPosition(diag.start ?? 0);
    const message = ts.flattenDiagnosticMessageText(diag.messageText, '\n');
    return { inspection: { ...base, parsed: false, parseError: `${line + 1}:${character + 1} ${message}` }, imports };
  }

  const shape = readModule(sf);
  const entries: EntryInfo[] = [];
  for (const name of ENTRY_NAMES) {
    const fn = shape.exported.get(name);
    if (fn) entries.push(entryInfo(name, fn));
  }
  const inspection: HandlerInspection = {
    ...base,
    entries,
    entry: entries[0] ?? null,
    isCli: detectCli(sf),
  };
  const schema = firstObject(shape.constants, SCHEMA_NAMES);
  if (schema) inspection.schemaConstant = schema;
  const output = firstObject(shape.constants, OUTPUT_SCHEMA_NAMES);
  if (output) inspection.outputSchemaConstant = output;
  const cli = firstObject(shape.constants, CLI_COMMANDS_NAMES);
  if (cli && Object.values(cli).every(isPlainObject)) {
    inspection.cliCommandsConstant = cli as Record<string, JsonSchema>;
  }
  return { inspection, imports };
}

/** Syntax errors, including JS-only ones (type annotations in a .js file), via a one-file program. */
function syntaxDiagnostics(sf: ts.SourceFile): readonly ts.Diagnostic[] {
  const options: ts.CompilerOptions = { allowJs: true, noResolve: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.getSourceFile = (name) => (name === sf.fileName ? sf : undefined);
  host.fileExists = (name) => name === sf.fileName;
  host.readFile = () => undefined;
  const program = ts.createProgram({ rootNames: [sf.fileName], options, host });
  return program.getSyntacticDiagnostics(sf);
}

interface ModuleShape {
  /** Exported name → the function it is bound to. */
  exported: Map<string, FunctionLike>;
  /** Top-level constant name → its initializer (first binding wins). */
  constants: Map<string, ts.Expression>;
}

/** Collect top-level functions, variables and exports of `sf`. */
function readModule(sf: ts.SourceFile): ModuleShape {
  const functions = new Map<string, ts.FunctionDeclaration>();
  const variables = new Map<string, ts.Expression>();
  const exportedLocal = new Map<string, string>(); // exported name -> local name
  const exportedExpr = new Map<string, CjsValue>(); // CommonJS: exported name -> value

  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.name) {
      const prev = functions.get(st.name.text);
      // Overloads: keep the implementation (the declaration with a body).
      if (!prev || (!prev.body && st.body)) functions.set(st.name.text, st);
      if (hasExport(st) && !hasDefault(st)) exportedLocal.set(st.name.text, st.name.text);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !d.initializer) continue;
        if (!variables.has(d.name.text)) variables.set(d.name.text, d.initializer);
        if (hasExport(st)) exportedLocal.set(d.name.text, d.name.text);
      }
    } else if (ts.isExportDeclaration(st) && !st.moduleSpecifier && !st.isTypeOnly && st.exportClause) {
      if (ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) {
          if (el.isTypeOnly) continue;
          exportedLocal.set(el.name.text, (el.propertyName ?? el.name).text);
        }
      }
    } else if (ts.isExpressionStatement(st)) {
      readCommonJsExport(st.expression, exportedExpr);
    }
  }

  const resolve = (expr: CjsValue, depth = 0): FunctionLike | undefined => {
    if (ts.isMethodDeclaration(expr)) return expr;
    const e = unwrapExpression(expr);
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return e;
    if (ts.isIdentifier(e) && depth < 8) return resolveName(e.text, depth + 1);
    return undefined;
  };
  const resolveName = (name: string, depth: number): FunctionLike | undefined => {
    const fn = functions.get(name);
    if (fn) return fn;
    const init = variables.get(name);
    return init ? resolve(init, depth) : undefined;
  };

  const exported = new Map<string, FunctionLike>();
  for (const [name, local] of exportedLocal) {
    const fn = resolveName(local, 0);
    if (fn) exported.set(name, fn);
  }
  for (const [name, expr] of exportedExpr) {
    const fn = resolve(expr);
    if (fn && !exported.has(name)) exported.set(name, fn);
  }

  const constants = new Map(variables);
  for (const [name, value] of exportedExpr) {
    if (!constants.has(name) && !ts.isMethodDeclaration(value)) constants.set(name, value);
  }
  return { exported, constants };
}

/** `exports.x = …`, `module.exports.x = …`, `module.exports = { x, y: … }`. */
function readCommonJsExport(expr: ts.Expression, out: Map<string, CjsValue>): void {
  if (!ts.isBinaryExpression(expr) || expr.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return;
  const target = expr.left;
  if (ts.isPropertyAccessExpression(target)) {
    const obj = target.expression;
    const isExports = ts.isIdentifier(obj) && obj.text === 'exports';
    const isModuleExports = isPropertyAccess(obj, 'module', 'exports');
    if (isExports || isModuleExports) {
      out.set(target.name.text, expr.right);
      return;
    }
    if (isPropertyAccess(target, 'module', 'exports')) {
      const value = unwrapExpression(expr.right);
      if (!ts.isObjectLiteralExpression(value)) return;
      for (const p of value.properties) {
        if (ts.isShorthandPropertyAssignment(p)) out.set(p.name.text, p.name);
        else if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
          out.set(p.name.text, p.initializer);
        } else if (ts.isMethodDeclaration(p) && ts.isIdentifier(p.name)) {
          out.set(p.name.text, p); // `module.exports = { async execute(a, b) {} }`
        }
      }
    }
  }
}

function entryInfo(name: EntryName, fn: FunctionLike): EntryInfo {
  const isAsync = fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword) ?? false;
  const params: ParamInfo[] = [];
  for (const p of fn.parameters) {
    if (ts.isIdentifier(p.name) && p.name.text === 'this') continue; // TS `this` parameter
    params.push({
      name: ts.isIdentifier(p.name) ? p.name.text : '<pattern>',
      hasDefault: p.initializer !== undefined,
      rest: p.dotDotDotToken !== undefined,
    });
  }
  return { name, isAsync, params };
}

function hasExport(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false);
}

function hasDefault(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword) ?? false);
}

function isPropertyAccess(node: ts.Node, object: string, property: string): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === object &&
    node.name.text === property
  );
}

/** `process.argv` or `process['argv']`. */
function isProcessArgv(node: ts.Node): boolean {
  if (isPropertyAccess(node, 'process', 'argv')) return true;
  return (
    ts.isElementAccessExpression(node) &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'process' &&
    ts.isStringLiteralLike(node.argumentExpression) &&
    node.argumentExpression.text === 'argv'
  );
}

/** `import.meta` (any property of it). */
function isImportMeta(node: ts.Node): boolean {
  return ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword && node.name.text === 'meta';
}

function contains(node: ts.Node, pred: (n: ts.Node) => boolean): boolean {
  if (pred(node)) return true;
  return ts.forEachChild(node, (c) => (contains(c, pred) ? true : undefined)) ?? false;
}

/** `===`, `==`, `!==`, `!=` (a function, so that loading this module does not load the compiler). */
function isEquality(kind: ts.SyntaxKind): boolean {
  return (
    kind === ts.SyntaxKind.EqualsEqualsEqualsToken ||
    kind === ts.SyntaxKind.EqualsEqualsToken ||
    kind === ts.SyntaxKind.ExclamationEqualsEqualsToken ||
    kind === ts.SyntaxKind.ExclamationEqualsToken
  );
}

/** The A-04 heuristic, documented on {@link scanJsSource}. */
function detectCli(sf: ts.SourceFile): boolean {
  if (!contains(sf, isProcessArgv)) return false;
  let mainGuard = false;
  const visit = (n: ts.Node): void => {
    if (mainGuard) return;
    if (ts.isPropertyAccessExpression(n) && isImportMeta(n.expression) && n.name.text === 'main') mainGuard = true;
    else if (ts.isBinaryExpression(n) && isEquality(n.operatorToken.kind)) {
      const l = n.left;
      const r = n.right;
      const requireMain = (a: ts.Node, b: ts.Node) => isPropertyAccess(a, 'require', 'main') && ts.isIdentifier(b) && b.text === 'module';
      if (requireMain(l, r) || requireMain(r, l)) mainGuard = true;
      else if ((contains(l, isImportMeta) && contains(r, isProcessArgv)) || (contains(r, isImportMeta) && contains(l, isProcessArgv))) {
        mainGuard = true;
      }
    } else if (ts.isCallExpression(n) && contains(n.expression, isImportMeta) && n.arguments.some((a) => contains(a, isProcessArgv))) {
      mainGuard = true; // import.meta.url.endsWith(process.argv[1])
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (mainGuard) return true;

  const entryNames = new Set<string>(ENTRY_NAMES);
  const callsEntryWithArgv = (n: ts.Node): boolean =>
    ts.isCallExpression(n) &&
    ts.isIdentifier(n.expression) &&
    entryNames.has(n.expression.text) &&
    n.arguments.some((a) => contains(a, isProcessArgv));
  // A top-level expression statement: `main(process.argv.slice(2))`, `await run(process.argv)`,
  // `main(process.argv).catch(…)`.
  return sf.statements.some((st) => ts.isExpressionStatement(st) && contains(st.expression, callsEntryWithArgv));
}

function firstObject(constants: Map<string, ts.Expression>, names: string[]): Record<string, unknown> | undefined {
  for (const name of names) {
    const init = constants.get(name);
    if (!init) continue;
    const v = evaluateLiteral(init);
    if (v.ok && isPlainObject(v.value)) return v.value;
  }
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Walk the whole tree for static module specifiers. */
function collectImports(sf: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteralLike(n.moduleSpecifier)) {
      out.push(n.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      if (ts.isStringLiteralLike(e)) out.push(e.text);
    } else if (ts.isCallExpression(n)) {
      const callee = n.expression;
      const isImport = callee.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(callee) && callee.text === 'require';
      const arg = n.arguments[0];
      if ((isImport || isRequire) && arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}
