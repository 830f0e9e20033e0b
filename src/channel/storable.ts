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

/** `s` with every unstorable code unit replaced by U+FFFD. */
export function storableText(s: string): string {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(s) ? s.replace(UNSTORABLE, '\uFFFD') : s;
}

/** A deep copy of a JSON value whose strings (keys too) are {@link storableText}. */
export function storableCopy<T>(v: T): T {
  if (typeof v === 'string') return storableText(v) as T;
  if (Array.isArray(v)) return v.map((x: unknown) => storableCopy(x)) as T;
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [storableText(k), storableCopy(x)])) as T;
  }
  return v;
}
