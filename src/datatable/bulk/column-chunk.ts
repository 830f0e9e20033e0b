/**
 * Column-wise encoding of bulk-write records (spec 000 §7.5, §7.8(2); R-DT-66..75, R-DT-98):
 * each record is validated straight into per-column lists of PostgreSQL array-literal
 * elements, ready for the one `INSERT … SELECT … FROM unnest($1::<type>[], …)` of a chunk —
 * no per-row value objects on the common path. The result equals validating with
 * `coerceRecord` (values/coerce.ts) and encoding its values with {@link elementOf}: the fast
 * encoders below only take value shapes whose coercion is certain (a non-empty string into
 * 文本, a safe integer into 整数, a canonical ISO date …) or memoise `coerceValue` per
 * distinct primitive value; any other row — a refused value, a missing required field, a
 * non-object — goes through the compiled validator (values/record-validator.ts), so error texts
 * and their order are exactly the validator's. test/datatable/column-chunk.test.ts pins that.
 */
import { isSystemColumn } from '../model/naming.ts';
import type { OwnerScope } from '../access/permissions.ts';
import type { DtLang } from '../model/results.ts';
import { compileValidator, validYmd, type RecordValidator } from '../values/record-validator.ts';
import type { FieldMeta, TableMeta } from '../model/types.ts';
import { coerceValue, type DbValue } from '../values/coerce.ts';

/** Marks "the fast path does not decide this value". */
const SLOW: unique symbol = Symbol('slow');
type Enc = (v: unknown) => string | typeof SLOW;

/** Most memoised encodings per field. */
const MEMO_LIMIT = 50_000;

/** A PostgreSQL array-literal element holding the string `s`, always double-quoted (`"` and `\` escaped). */
export function quoteElement(s: string): string {
  return s.indexOf('"') < 0 && s.indexOf('\\') < 0 ? `"${s}"` : `"${s.replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * The array-literal element of a coerced value `x` of `field` (R-DT-98's set-wise insert):
 * `NULL` for null; 整数/数字/日期/时间 bare (their canonical text holds only digits, `-`,
 * `.`, `:`); 勾选 `true`/`false`; 多选 the quoted text of its own array literal (cast per row);
 * every other value a quoted string. Injective per field, so equal elements mean equal values.
 */
export function elementOf(field: Pick<FieldMeta, 'uidt'>, x: DbValue | undefined): string {
  if (x === undefined || x === null) return 'NULL';
  if (Array.isArray(x)) return quoteElement(`{${x.map(quoteElement).join(',')}}`);
  if (typeof x === 'boolean') return x ? 'true' : 'false';
  switch (field.uidt) {
    case '整数':
    case '数字':
    case '日期':
    case '时间':
      return x;
    default:
      return quoteElement(x);
  }
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const TIME_RE = /^\d{2}:\d{2}:\d{2}$/;

/** The two characters of `s` at `i` as a number 0–99, or -1 when they are not both ASCII digits. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DDTHH:MM:SS` naming a real day and time — the canonical
 * form `coerceDateLike` returns as is (after T → space); checked without a regular expression.
 */
function isIsoDateTime(v: string): boolean {
  if (v.length !== 19 || v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58)
    return false;
  const sep = v.charCodeAt(10);
  if (sep !== 32 && sep !== 84) return false;
  if (two(v, 0) < 0 || two(v, 2) < 0 || two(v, 5) < 0 || two(v, 8) < 0) return false;
  const h = two(v, 11);
  const mi = two(v, 14);
  const sec = two(v, 17);
  return h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 59 && validYmd(v);
}

/** The encoder of one field: the element of `coerceValue(field, v)`, or SLOW when the value is refused or not certain. */
function fieldEncoder(field: FieldMeta, lang: DtLang): Enc {
  const memo = new Map<unknown, string | typeof SLOW>();
  const cached: Enc = (v) => {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return SLOW;
    let r = memo.get(v);
    if (r === undefined) {
      const c = coerceValue(field, v, lang);
      r = c.ok ? elementOf(field, c.value) : SLOW;
      if (memo.size < MEMO_LIMIT) memo.set(v, r);
    }
    return r;
  };
  switch (field.uidt) {
    case '文本':
    case '长文本':
      return (v) => (typeof v === 'string' && v !== '' && v.indexOf('\u0000') < 0 ? quoteElement(v) : cached(v));
    case '整数':
      return (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : cached(v));
    case '数字': {
      const maxInt = (field.precision ?? 38) - (field.scale ?? 2);
      const bound = maxInt >= 15 ? 1e15 : 10 ** maxInt;
      return (v) => {
        if (typeof v === 'number' && Number.isFinite(v) && v < bound && v > -bound) {
          const s = String(v);
          if (s.indexOf('e') < 0) return s;
        }
        return cached(v);
      };
    }
    case '日期':
      return (v) => (typeof v === 'string' && v.length === 10 && DATE_RE.test(v) && validYmd(v) ? v : cached(v));
    case '日期时间':
      return (v) => {
        if (typeof v === 'string' && isIsoDateTime(v)) return v.charCodeAt(10) === 32 ? `"${v}"` : `"${v.slice(0, 10)} ${v.slice(11)}"`;
        return cached(v);
      };
    case '时间':
      return (v) =>
        typeof v === 'string' &&
        v.length === 8 &&
        TIME_RE.test(v) &&
        Number(v.slice(0, 2)) <= 23 &&
        Number(v.slice(3, 5)) <= 59 &&
        Number(v.slice(6, 8)) <= 59
          ? v
          : cached(v);
    case '勾选':
      return (v) => (v === true ? 'true' : v === false ? 'false' : cached(v));
    default:
      return cached;
  }
}

/** One refused row's problems, as the validator reports them. */
export interface EncodedRowError {
  field: string;
  error: string;
  value?: unknown;
}

/** The valid rows of one chunk, column by column. */
export interface ColumnChunk {
  /** 1-based row numbers (positions in records / the file), ascending. */
  rows: number[];
  /** The source records of those rows (for the per-row fallback). */
  records: unknown[];
  /** Per field (in `fields` order): the array-literal elements, one per row. */
  cols: string[][];
  /** Per field: true when at least one row carried the field (only those columns are written). */
  present: boolean[];
  /**
   * Per field of {@link ColumnEncoder.unique}: the value of each row as comparison text (the
   * coerced text for 文本/长文本, else the element), null for NULL — for in-file duplicate checks.
   */
  keys: Array<Array<string | null>>;
}

/** A compiled column encoder of one table for one import. */
export interface ColumnEncoder {
  /** The table's writable fields, in order (the order of `cols`). */
  readonly fields: readonly FieldMeta[];
  /** Indexes (into `fields`) of the unique fields other than 多选, in order (the order of `chunk.keys`). */
  readonly unique: readonly number[];
  /** The compiled validator (owner stamping not applied). */
  readonly validator: RecordValidator;
  /**
   * Validate `rec` (file row `row`) and, when valid, append it to `chunk`.
   * @returns null when appended, else the row's errors (exactly `coerceRecord`'s, owner stamped).
   */
  add(chunk: ColumnChunk, rec: unknown, row: number): EncodedRowError[] | null;
  /** The coerced values of a record as `coerceRecord` gives them (owner stamped); null when invalid. */
  values(rec: unknown): Record<string, DbValue> | null;
  /** An empty chunk. */
  chunk(): ColumnChunk;
}

/**
 * Compile the column encoder of `table`: owner fields (R-DT-18) take `owner.empNo` in every
 * object record, whatever the record says (a forged value is overwritten, as the row path
 * does); unknown keys and system columns are ignored (R-DT-73, R-DT-08); required fields are
 * checked (insert mode, R-DT-75).
 */
export function compileColumnEncoder(table: Pick<TableMeta, 'fields'>, lang: DtLang, owner: OwnerScope | null): ColumnEncoder {
  const validator = compileValidator(table, lang);
  const fields = table.fields.filter((f) => !isSystemColumn(f.title));
  const titles = fields.map((f) => f.title);
  const encs = fields.map((f) => fieldEncoder(f, lang));
  const required = fields.map((f) => f.required);
  // Titles that name an Object.prototype member are read only as own properties.
  const ownOnly = titles.map((t) => t in Object.prototype);
  const ownerSet = new Set(owner?.fields ?? []);
  // The owner value's element per field (SLOW when the validator must speak: every row then takes the exact path).
  const ownerEl: Array<string | typeof SLOW | undefined> = fields.map((f, j) =>
    ownerSet.has(f.title) ? encs[j]!(owner!.empNo) : undefined,
  );
  const n = fields.length;
  const scratch = new Array<string | undefined>(n);
  const unique = fields.flatMap((f, j) => (f.unique && f.uidt !== '多选' ? [j] : []));
  const uniqueAt = fields.map((_, j) => unique.indexOf(j));
  const textual = fields.map((f) => f.uidt === '文本' || f.uidt === '长文本');
  const keyScratch = new Array<string | null>(unique.length);

  const stamped = (rec: unknown): unknown => {
    if (!owner || !rec || typeof rec !== 'object' || Array.isArray(rec)) return rec;
    const copy: Record<string, unknown> = { ...(rec as Record<string, unknown>) };
    for (const f of owner.fields) copy[f] = owner.empNo;
    return copy;
  };

  const append = (chunk: ColumnChunk, rec: unknown, row: number): void => {
    chunk.rows.push(row);
    chunk.records.push(rec);
    for (let u = 0; u < unique.length; u++) chunk.keys[u]!.push(keyScratch[u]!);
    for (let j = 0; j < n; j++) {
      const e = scratch[j];
      if (e === undefined) chunk.cols[j]!.push('NULL');
      else {
        chunk.cols[j]!.push(e);
        chunk.present[j] = true;
      }
    }
  };

  const exact = (chunk: ColumnChunk, rec: unknown, row: number): EncodedRowError[] | null => {
    const c = validator.validate(stamped(rec), 'insert');
    if (c.errors.length > 0) return c.errors;
    for (let j = 0; j < n; j++) {
      const x = ownOnly[j] && !Object.hasOwn(c.values, titles[j]!) ? undefined : c.values[titles[j]!];
      scratch[j] = x === undefined ? undefined : elementOf(fields[j]!, x);
      const u = uniqueAt[j]!;
      if (u >= 0) keyScratch[u] = x === undefined || x === null ? null : textual[j] ? String(x) : scratch[j]!;
    }
    append(chunk, rec, row);
    return null;
  };

  return {
    fields,
    validator,
    unique,
    chunk: () => ({ rows: [], records: [], cols: fields.map(() => []), present: fields.map(() => false), keys: unique.map(() => []) }),
    values(rec) {
      const c = validator.validate(stamped(rec), 'insert');
      return c.errors.length > 0 ? null : c.values;
    },
    add(chunk, rec, row) {
      if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) return exact(chunk, rec, row);
      const r = rec as Record<string, unknown>;
      for (let j = 0; j < n; j++) {
        const o = ownerEl[j];
        let e: string | typeof SLOW | undefined;
        let v: unknown;
        if (o !== undefined) {
          e = o;
          v = owner!.empNo;
        } else {
          const t = titles[j]!;
          v = ownOnly[j] && !Object.hasOwn(r, t) ? undefined : r[t];
          // An own key holding undefined counts as given (NULL), as coerceRecord sees it.
          e = v === undefined ? (Object.hasOwn(r, t) ? 'NULL' : undefined) : v === null || v === '' ? 'NULL' : encs[j]!(v);
        }
        if (e === SLOW || (required[j] && (e === undefined || e === 'NULL'))) return exact(chunk, rec, row);
        scratch[j] = e;
        const u = uniqueAt[j]!;
        // A string into 文本/长文本 is stored as is; a number or boolean as its String().
        if (u >= 0) keyScratch[u] = e === undefined || e === 'NULL' ? null : textual[j] ? String(v) : e;
      }
      append(chunk, rec, row);
      return null;
    },
  };
}
