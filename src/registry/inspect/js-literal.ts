/**
 * Static evaluation of pure JSON-like literals in a TypeScript / JavaScript syntax tree.
 * Used to read schema constants (`INPUT_SCHEMA = {…}`) without executing the module
 * (R-LOAD-13, R-SCH-01, A-43).
 */
import ts from 'typescript';

/** Result of {@link evaluateLiteral}: the JSON value, or `ok: false` when not a pure literal. */
export type LiteralResult = { ok: true; value: unknown } | { ok: false };

const NOT_LITERAL: LiteralResult = { ok: false };

/** Strip wrappers that do not change the value: `( … )`, `… as const`, `… satisfies T`, `<T>…`, `…!`. */
export function unwrapExpression(node: ts.Expression): ts.Expression {
  let n = node;
  for (;;) {
    if (
      ts.isParenthesizedExpression(n) ||
      ts.isAsExpression(n) ||
      ts.isSatisfiesExpression(n) ||
      ts.isTypeAssertionExpression(n) ||
      ts.isNonNullExpression(n)
    ) {
      n = n.expression;
    } else {
      return n;
    }
  }
}

/**
 * Evaluate `node` when it is a pure literal: object and array literals (no spreads, no
 * shorthand, no methods, no computed keys other than string literals), strings (including
 * templates without substitutions), finite numbers with an optional sign, `true`, `false`,
 * `null`. Anything else (identifiers, calls, `undefined`, `NaN`) gives `{ ok: false }`.
 * Keys are defined as own data properties, so `__proto__` cannot pollute a prototype.
 */
export function evaluateLiteral(node: ts.Expression): LiteralResult {
  const n = unwrapExpression(node);
  if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return { ok: true, value: n.text };
  if (ts.isNumericLiteral(n)) return finiteNumber(Number(n.text.replace(/_/g, '')));
  if (ts.isPrefixUnaryExpression(n) && ts.isNumericLiteral(unwrapExpression(n.operand))) {
    const v = evaluateLiteral(n.operand);
    if (!v.ok) return NOT_LITERAL;
    if (n.operator === ts.SyntaxKind.MinusToken) return finiteNumber(-(v.value as number));
    if (n.operator === ts.SyntaxKind.PlusToken) return v;
    return NOT_LITERAL;
  }
  if (n.kind === ts.SyntaxKind.TrueKeyword) return { ok: true, value: true };
  if (n.kind === ts.SyntaxKind.FalseKeyword) return { ok: true, value: false };
  if (n.kind === ts.SyntaxKind.NullKeyword) return { ok: true, value: null };
  if (ts.isArrayLiteralExpression(n)) {
    const out: unknown[] = [];
    for (const el of n.elements) {
      if (ts.isSpreadElement(el) || ts.isOmittedExpression(el)) return NOT_LITERAL;
      const v = evaluateLiteral(el);
      if (!v.ok) return NOT_LITERAL;
      out.push(v.value);
    }
    return { ok: true, value: out };
  }
  if (ts.isObjectLiteralExpression(n)) {
    const out: Record<string, unknown> = {};
    for (const prop of n.properties) {
      if (!ts.isPropertyAssignment(prop)) return NOT_LITERAL;
      const key = propertyKey(prop.name);
      if (key === undefined) return NOT_LITERAL;
      const v = evaluateLiteral(prop.initializer);
      if (!v.ok) return NOT_LITERAL;
      Object.defineProperty(out, key, { value: v.value, enumerable: true, writable: true, configurable: true });
    }
    return { ok: true, value: out };
  }
  return NOT_LITERAL;
}

function finiteNumber(v: number): LiteralResult {
  return Number.isFinite(v) ? { ok: true, value: v } : NOT_LITERAL;
}

function propertyKey(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  if (ts.isNumericLiteral(name)) return String(Number(name.text.replace(/_/g, '')));
  if (ts.isComputedPropertyName(name)) {
    const e = unwrapExpression(name.expression);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return e.text;
  }
  return undefined;
}
