/**
 * Rows in COPY's text format, for {@link Db.copyFrom} / {@link Tx.copyFrom}: a tab between
 * fields, a newline after each row, `\N` for NULL, and `\`, tab, newline and carriage return
 * escaped inside a field. Values are written as node-postgres writes a text parameter, so a COPY
 * stores what the same values as `$n` parameters store.
 */

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_G = /[\\\t\n\r]/g;
const ARRAY_SPECIAL_G = /["\\]/g;

/** A field escaped for the text format (no NULL handling). */
function escapeField(s: string): string {
  return COPY_SPECIAL.test(s) ? s.replace(COPY_SPECIAL_G, (c) => COPY_ESCAPES[c]!) : s;
}

/**
 * One field: `null` / `undefined` → `\N`; a boolean → `t` / `f`; a number or bigint as
 * `String()` writes it; a Date as its ISO string; an array of strings as a `text[]` literal
 * (every element double-quoted, so empty strings, `NULL` and spaces stay text); a string as is.
 * @throws TypeError for any other value (an object, an array holding a non-string).
 */
export function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  switch (typeof v) {
    case 'string':
      return escapeField(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
    case 'bigint':
      return String(v);
  }
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) {
    const els = v.map((el) => {
      if (typeof el !== 'string') throw new TypeError('copy text: an array field holds strings only');
      return `"${el.replace(ARRAY_SPECIAL_G, '\\$&')}"`;
    });
    return escapeField(`{${els.join(',')}}`);
  }
  throw new TypeError(`copy text: cannot write a ${typeof v} field`);
}

/** Rows (each an array of field values, see {@link copyValue}) as COPY text-format data. */
export function copyRows(rows: readonly (readonly unknown[])[]): string {
  let out = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) out += (i === 0 ? '' : '\t') + copyValue(row[i]);
    out += '\n';
  }
  return out;
}
