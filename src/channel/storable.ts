/**
 * Inbound text that PostgreSQL can store. A platform's JSON body may carry `\u0000` or a lone
 * surrogate escape (`\ud800`); JavaScript strings hold them, but PostgreSQL `jsonb`/`text`
 * refuse them ("unsupported Unicode escape sequence"), which would turn a hostile or corrupt
 * callback into a 5xx and endless redeliveries. Adapters pass each normalized
 * {@link InboundMessage} through {@link storableCopy} before `host.receive`. Valid Unicode is
 * never changed, so `raw_input` stays verbatim for every real message (R-CTX-04).
 */

/** NUL, or a surrogate half without its partner. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Where `JSON.stringify` output may hold an unstorable code unit: it writes NUL as `\u0000` and
 * a lone surrogate as `\udXXX` (a paired one stays raw). A hit may be a false alarm (an escaped
 * backslash before such letters); no hit means the value is storable.
 */
const MAYBE_UNSTORABLE_JSON = /\\u(?:0000|[dD][89abcdefABCDEF])/;

/** `s` with every unstorable code unit replaced by U+FFFD. */
export function storableText(s: string): string {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(s) ? s.replace(UNSTORABLE, '\uFFFD') : s;
}

/**
 * A JSON value whose strings (keys too) are {@link storableText}: `v` itself when every string
 * already is (nothing is copied), else a copy in which only the containers holding a changed
 * string are new.
 */
export function storableCopy<T>(v: T): T {
  if (typeof v === 'string') return storableText(v) as T;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const y = storableCopy(x);
      if (out) out.push(y);
      else if (y !== x) (out = v.slice(0, i)).push(y);
    }
    return (out ?? v) as T;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    let changed = false;
    const next = entries.map(([k, x]): [string, unknown] => {
      const k2 = storableText(k);
      const x2 = storableCopy(x);
      if (k2 !== k || x2 !== x) changed = true;
      return [k2, x2];
    });
    return changed ? (Object.fromEntries(next) as T) : v;
  }
  return v;
}

/**
 * {@link storableCopy} of `v` with its `JSON.stringify` text, stringified once: the value is
 * walked only when the text shows an escape that may be unstorable.
 */
export function storableJson<T>(v: T): { value: T; json: string } {
  const json = JSON.stringify(v);
  if (!MAYBE_UNSTORABLE_JSON.test(json)) return { value: v, json };
  const value = storableCopy(v);
  return { value, json: value === v ? json : JSON.stringify(value) };
}
