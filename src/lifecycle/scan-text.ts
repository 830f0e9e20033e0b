/**
 * Small text helpers of the danger scan: every match of a pattern, the argument text of a
 * call, and whether an argument is a plain string literal (no interpolation).
 */
import type { ScanLang } from './strip-comments.ts';

/** Index of every match of `re` (made global) in `code`. */
export function matchIndexes(code: string, re: RegExp): { index: number; m: RegExpExecArray }[] {
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
  const out: { index: number; m: RegExpExecArray }[] = [];
  for (let m = g.exec(code); m !== null; m = g.exec(code)) {
    out.push({ index: m.index, m });
    if (m[0] === '') g.lastIndex++;
  }
  return out;
}

/**
 * The text between the parenthesis at `open` (which must be `(`) and its balanced closer,
 * skipping quoted strings; at most 4000 characters. Empty when `code[open]` is not `(`.
 */
export function callArgs(code: string, open: number): string {
  if (code[open] !== '(') return '';
  let depth = 0;
  const end = Math.min(code.length, open + 4000);
  for (let i = open; i < end; i++) {
    const c = code[i];
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < end && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      i = j;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return code.slice(open + 1, i);
    }
  }
  return code.slice(open + 1, end);
}

/** The first top-level argument of an argument list (split at the first depth-0 comma). */
export function firstArg(args: string): string {
  let depth = 0;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < args.length && args[j] !== c) j += args[j] === '\\' ? 2 : 1;
      i = j;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) return args.slice(0, i).trim();
  }
  return args.trim();
}

/**
 * True when `arg` is one plain string literal: JS `'…'`, `"…"` or a template without `${`;
 * Python `'…'` / `"…"` (an `r`/`b` prefix allowed, not `f`) not followed by `%` or `.format`.
 * A list of plain literals (`['ls', '-l']`) counts as plain too.
 */
export function isPlainLiteral(arg: string, lang: ScanLang): boolean {
  const a = arg.trim();
  if (a.startsWith('[') && a.endsWith(']')) {
    const inner = a.slice(1, -1).trim();
    return inner === '' || inner.split(',').every((p) => p.trim() === '' || isPlainLiteral(p, lang));
  }
  const str =
    lang === 'py'
      ? /^[rRbB]{0,2}(?:'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")$/
      : /^(?:'[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|`[^`$\\]*(?:\\.[^`$\\]*)*`)$/;
  return str.test(a);
}

/** The string literals of `code` (quotes removed) with their start index. */
export function stringLiterals(code: string): { index: number; value: string }[] {
  return matchIndexes(code, /(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/).map(({ index, m }) => ({ index, value: m[2] ?? '' }));
}

/** 1-based line of `index` in `code`. */
export function lineOf(code: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < code.length; i++) if (code.charCodeAt(i) === 10) line++;
  return line;
}
