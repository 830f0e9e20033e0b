/**
 * Comment stripping for the danger scan (`danger-scan.ts`): comments are replaced by spaces
 * (new lines kept, so offsets and line numbers stay those of the original file) while string
 * literals stay intact — a URL's `//` or a `#` inside a string is not a comment.
 *
 * A lexer-lite, not a parser: JS/TS regular-expression literals are not recognised (a `//`
 * inside one may blank the rest of that line), which only makes the scan miss, never invent.
 */

/** Languages the danger scan reads. */
export type ScanLang = 'js' | 'py' | 'sh';

/** Replace `text[from, to)` by spaces, keeping new lines. */
function blank(chars: string[], from: number, to: number): void {
  for (let i = from; i < to; i++) if (chars[i] !== '\n' && chars[i] !== '\r') chars[i] = ' ';
}

/** Index just past a quoted string starting at `i` (quote `q`, backslash escapes), or the end. */
function skipQuoted(text: string, i: number, q: string, multiline: boolean): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else if (c === q) return j + 1;
    else if (c === '\n' && !multiline) return j;
    else j++;
  }
  return text.length;
}

function stripJs(text: string): string {
  const out = text.split(''); // UTF-16 units, so indexes match `text`
  /** Stack of template-literal brace depths: > 0 while inside `${ … }` code. */
  const tpl: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const n = text[i + 1];
    if (c === '/' && n === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(out, i, stop);
      i = stop;
    } else if (c === '/' && n === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      blank(out, i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      i = skipQuoted(text, i, c, false);
    } else if (c === '`' || (c === '}' && tpl.length > 0 && tpl[tpl.length - 1] === 1)) {
      if (c === '}') tpl.pop();
      // inside template text until the closing backtick or `${`
      let j = i + 1;
      while (j < text.length) {
        if (text[j] === '\\') j += 2;
        else if (text[j] === '`') {
          j++;
          break;
        } else if (text[j] === '$' && text[j + 1] === '{') {
          tpl.push(1);
          j += 2;
          break;
        } else j++;
      }
      i = j;
    } else {
      if (tpl.length > 0) {
        if (c === '{') tpl[tpl.length - 1]! += 1;
        else if (c === '}') tpl[tpl.length - 1]! -= 1;
      }
      i++;
    }
  }
  return out.join('');
}

function stripPy(text: string): string {
  const out = text.split('');
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '#') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(out, i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      if (triple) {
        const end = text.indexOf(c.repeat(3), i + 3);
        i = end === -1 ? text.length : end + 3;
      } else i = skipQuoted(text, i, c, false);
    } else i++;
  }
  return out.join('');
}

function stripSh(text: string): string {
  const out = text.split('');
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const prev = i === 0 ? '\n' : (text[i - 1] ?? '');
    if (c === '#' && /\s|;|\(|\)|&|\|/.test(prev)) {
      if (i === 0 && text.startsWith('#!')) {
        i = text.indexOf('\n') === -1 ? text.length : text.indexOf('\n');
        continue;
      }
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      blank(out, i, stop);
      i = stop;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      i = end === -1 ? text.length : end + 1;
    } else if (c === '"') {
      i = skipQuoted(text, i, '"', true);
    } else if (c === '\\') i += 2;
    else i++;
  }
  return out.join('');
}

/**
 * `text` with every comment of `lang` replaced by spaces (same length, same line breaks).
 * JS/TS: `//` and `/* … *\/`; Python: `#`; shell: `#` at the start of a word (the `#!` line kept).
 */
export function stripComments(text: string, lang: ScanLang): string {
  switch (lang) {
    case 'js':
      return stripJs(text);
    case 'py':
      return stripPy(text);
    case 'sh':
      return stripSh(text);
  }
}
