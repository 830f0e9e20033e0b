/**
 * Normalization for the danger scan (R-PRE-07;; docs/danger-scan.md
 * "Normalization"): a comment-stripped JS/TS or Python source is rewritten so a module or
 * function name split across literals or hidden behind an encoding is seen whole —
 *
 * - string literals re-emitted in one canonical form `'…'` with their escapes decoded
 *   (`'\x63hild_process'`, `"\u0065xec"`, templates without `${`); Python `r`/`b`/`u` prefixes dropped,
 *   f-strings left alone;
 * - `\uXXXX` / `\u{…}` escapes in JS identifiers decoded (`\u0065val` → `eval`);
 * - adjacent literals folded: `'child' + '_process'`, `'ex'.concat('ec')`, `['a','b'].join('')`,
 *   Python `'a' 'b'`, `''.join(['a','b'])`, `'cba'[::-1]`, `'cba'.split('').reverse().join('')`;
 * - literal decoders evaluated: `String.fromCharCode(99, 0x68, …)`, `Buffer.from('…', 'base64'|'hex')[.toString()]`,
 *   `atob('…')`, `decodeURIComponent('…')`, `unescape('…')`; Python `chr(n)`, `bytes.fromhex('…')`,
 *   `base64.b64decode('…')`, `.decode()` of a literal.
 *
 * Every rewrite keeps line breaks (a rewritten span is followed by the new lines it covered), so
 * line numbers stay those of the original file. Nothing is executed. A guard, not a parser: code the
 * normalizer cannot read is left as written.
 */
import type { ScanLang } from './strip-comments.ts';

/** A literal as the normalizer emits it: single quotes, backslash, quote and control characters escaped. */
export function emitLiteral(value: string): string {
  let out = "'";
  for (const ch of value) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '\\' || ch === "'") out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + "'";
}

/** The value of the body of a quoted literal with JS/Python escapes decoded (unknown escapes keep the character). */
export function decodeEscapes(body: string): string {
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v', 0: '\0', a: '\x07' };
  return body.replace(
    /\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|([0-7]{1,3})|\r?\n|(.))/gs,
    (all, x, ub, u, U, oct, ch) => {
      const hex = x ?? ub ?? u ?? U;
      if (hex !== undefined) {
        const cp = parseInt(hex, 16);
        return cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
      }
      if (oct !== undefined) return oct === '0' ? '\0' : String.fromCharCode(parseInt(oct, 8) & 0xff);
      if (ch !== undefined) return simple[ch] ?? ch;
      return ''; // line continuation
    },
  );
}

/** Rewrite every match of `re` (global) with `fn` (null keeps the match), line breaks kept. */
function rewrite(code: string, re: RegExp, fn: (m: RegExpExecArray) => string | null): string {
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
  let out = '';
  let last = 0;
  for (let m = g.exec(code); m !== null; m = g.exec(code)) {
    if (m[0] === '') {
      g.lastIndex++;
      continue;
    }
    const r = fn(m);
    if (r === null) continue;
    out += code.slice(last, m.index) + r + '\n'.repeat((m[0].match(/\n/g) ?? []).length);
    last = m.index + m[0].length;
  }
  return out + code.slice(last);
}

/** Canonical literal, as a regex source: `'…'` with escapes. */
const LIT = String.raw`(?<![\w$])'(?:[^'\\\n]|\\.)*'`;
/** The value of a canonical literal. */
const val = (lit: string): string => decodeEscapes(lit.slice(1, -1));

/** JS: re-emit plain literals canonically and decode identifier escapes, skipping template `${…}` code. */
function canonJs(code: string): string {
  let out = '';
  let i = 0;
  let codeStart = 0;
  const flushCode = (to: number): void => {
    out += code
      .slice(codeStart, to)
      .replace(/\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})/g, (_, a, b) =>
        String.fromCodePoint(Math.min(parseInt(a ?? b, 16), 0x10ffff)),
      );
  };
  while (i < code.length) {
    const c = code[i];
    if (c !== '"' && c !== "'" && c !== '`') {
      i++;
      continue;
    }
    let j = i + 1;
    let plain = true;
    let depth = 0;
    while (j < code.length) {
      const d = code[j];
      if (d === '\\') j += 2;
      else if (depth === 0 && d === c) break;
      else if (c !== '`' && d === '\n') break;
      else if (c === '`' && d === '$' && code[j + 1] === '{' && depth === 0) {
        plain = false;
        depth = 1;
        j += 2;
      } else {
        if (depth > 0 && d === '{') depth++;
        else if (depth > 0 && d === '}') depth--;
        j++;
      }
    }
    const end = Math.min(j + 1, code.length);
    flushCode(i);
    const raw = code.slice(i, end);
    out += plain && code[j] === c ? emitLiteral(decodeEscapes(raw.slice(1, -1))) + '\n'.repeat((raw.match(/\n/g) ?? []).length) : raw;
    i = end;
    codeStart = end;
  }
  flushCode(code.length);
  return out;
}

/** Python: re-emit plain literals canonically (r/b/u prefixes; f-strings kept), triple quotes included. */
function canonPy(code: string): string {
  return code.replace(
    /(?<![\w])([rRbBuUfF]{0,2})('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")/g,
    (all: string, prefix: string, lit: string) => {
      if (/[fF]/.test(prefix)) return all;
      const q = lit.startsWith("'''") || lit.startsWith('"""') ? 3 : 1;
      const body = lit.slice(q, -q);
      const value = /[rR]/.test(prefix) ? body : decodeEscapes(body);
      return emitLiteral(value) + '\n'.repeat((lit.match(/\n/g) ?? []).length);
    },
  );
}

function b64(s: string): string | null {
  const t = s.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return null;
  return Buffer.from(t, 'base64').toString('latin1');
}
function hex(s: string): string | null {
  const t = s.replace(/\s+/g, '');
  return /^(?:[0-9a-fA-F]{2})*$/.test(t) ? Buffer.from(t, 'hex').toString('latin1') : null;
}
const num = (s: string): number =>
  /^0[xX]/.test(s)
    ? parseInt(s.slice(2), 16)
    : /^0[oO]/.test(s)
      ? parseInt(s.slice(2), 8)
      : /^0[bB]/.test(s)
        ? parseInt(s.slice(2), 2)
        : parseInt(s, 10);
const NUM = String.raw`(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|\d+)`;
const lits = (list: string): string[] => [...list.matchAll(new RegExp(LIT, 'g'))].map((m) => val(m[0]));
const LIST = String.raw`\[\s*(?:${LIT}\s*,\s*)*(?:${LIT}\s*)?,?\s*\]`;
const TUPLE = String.raw`\(\s*(?:${LIT}\s*,\s*)*(?:${LIT}\s*)?,?\s*\)`;

/** One pass of folding and literal decoding; returns the rewritten code. */
function foldOnce(code: string, lang: ScanLang): string {
  let c = code;
  const sub = (re: string, fn: (m: RegExpExecArray) => string | null): void => {
    c = rewrite(c, new RegExp(re), fn);
  };
  const both = (v: string | null): string | null => (v === null ? null : emitLiteral(v));
  sub(String.raw`(${LIT})\s*\+\s*(${LIT})`, (m) => emitLiteral(val(m[1]!) + val(m[2]!)));
  sub(String.raw`(${LIT})\s*\.\s*split\s*\(\s*''\s*\)\s*\.\s*reverse\s*\(\s*\)\s*\.\s*join\s*\(\s*''\s*\)`, (m) =>
    emitLiteral([...val(m[1]!)].reverse().join('')),
  );
  sub(String.raw`(${LIST})\s*\.\s*join\s*\(\s*(${LIT})?\s*\)`, (m) =>
    emitLiteral(lits(m[1]!).join(m[2] ? val(m[2]) : lang === 'js' ? ',' : '')),
  );
  if (lang === 'js') {
    sub(String.raw`(${LIT})\s*\.\s*concat\s*\(\s*(${LIT})\s*\)`, (m) => emitLiteral(val(m[1]!) + val(m[2]!)));
    sub(String.raw`(?<![\w$])String\s*\.\s*fromCharCode\s*\(\s*((?:${NUM}\s*,\s*)*${NUM})\s*,?\s*\)`, (m) =>
      emitLiteral(
        m[1]!
          .split(',')
          .map((n) => String.fromCharCode(num(n.trim())))
          .join(''),
      ),
    );
    sub(
      String.raw`(?<![\w$])Buffer\s*\.\s*from\s*\(\s*(${LIT})\s*(?:,\s*'(base64|base64url|hex|utf-?8|latin1|binary|ascii)'\s*)?\)(?:\s*\.\s*toString\s*\(\s*(?:'[\w-]*'\s*)?\))?`,
      (m) => both(/^base64/.test(m[2] ?? '') ? b64(val(m[1]!)) : m[2] === 'hex' ? hex(val(m[1]!)) : val(m[1]!)),
    );
    sub(String.raw`(?<![\w$.])(?:atob|(?:globalThis|window|self)\s*\.\s*atob)\s*\(\s*(${LIT})\s*\)`, (m) => both(b64(val(m[1]!))));
    sub(String.raw`(?<![\w$.])(?:decodeURIComponent|decodeURI|unescape)\s*\(\s*(${LIT})\s*\)`, (m) => {
      try {
        return emitLiteral(decodeURIComponent(val(m[1]!)));
      } catch {
        return null;
      }
    });
  } else if (lang === 'py') {
    sub(String.raw`(${LIT})[ \t]+(${LIT})`, (m) => emitLiteral(val(m[1]!) + val(m[2]!)));
    sub(String.raw`(${LIT})\s*\[\s*:\s*:\s*-1\s*\]`, (m) => emitLiteral([...val(m[1]!)].reverse().join('')));
    sub(String.raw`(${LIT})\s*\.\s*join\s*\(\s*(${LIST}|${TUPLE})\s*\)`, (m) => emitLiteral(lits(m[2]!).join(val(m[1]!))));
    sub(String.raw`(?<![\w.])chr\s*\(\s*(${NUM})\s*\)`, (m) => emitLiteral(String.fromCodePoint(Math.min(num(m[1]!), 0x10ffff))));
    sub(String.raw`(?<![\w])(?:bytes|bytearray)\s*\.\s*fromhex\s*\(\s*(${LIT})\s*\)`, (m) => both(hex(val(m[1]!))));
    sub(
      String.raw`(?<![\w])(?:(?:base64|binascii)\s*\.\s*)?(?:b64decode|urlsafe_b64decode|a2b_base64|decodebytes)\s*\(\s*(${LIT})\s*\)`,
      (m) => both(b64(val(m[1]!))),
    );
    sub(String.raw`(?<![\w])(?:binascii\s*\.\s*)?(?:unhexlify|a2b_hex)\s*\(\s*(${LIT})\s*\)`, (m) => both(hex(val(m[1]!))));
    sub(String.raw`(${LIT})\s*\.\s*(?:decode|encode)\s*\(\s*(?:'[\w-]*'\s*)?\)`, (m) => m[1]!);
  }
  return c;
}

/**
 * The normalized form of comment-stripped `code` of language `lang` (see the file comment):
 * same number of lines, literals canonical and folded, literal decoders evaluated. Shell code
 * is returned unchanged. At most 6 folding passes.
 */
export function normalizeCode(code: string, lang: ScanLang): string {
  if (lang === 'sh') return code;
  let c = lang === 'js' ? canonJs(code) : canonPy(code);
  if (lang === 'py') {
    // `import subprocess as sp` → `sp.run` is read as `subprocess.run`
    // `__import__('os').system` / `importlib.import_module('os').system` are read as `os.system`
    c = c.replace(
      /(?<![\w.])(?:__import__|importlib\s*\.\s*import_module)\s*\(\s*'(os|subprocess|pty|posix|builtins|sys|shutil|asyncio|importlib|ctypes)'\s*\)(?=\s*\.)/g,
      '$1',
    );
    for (const m of c.matchAll(/\bimport\s+(os|subprocess|pty|posix|importlib|builtins|sys|shutil|asyncio)\s+as\s+(\w+)/g)) {
      c = c.replace(new RegExp(String.raw`(?<![\w.])${m[2]}(?=\s*\.)`, 'g'), m[1]!);
    }
  }
  for (let pass = 0; pass < 6; pass++) {
    const next = foldOnce(c, lang);
    if (next === c) break;
    c = next;
  }
  return c;
}
