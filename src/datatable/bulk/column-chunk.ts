/**
 * Column-wise encoding of bulk-write records (R-DT-66..75, R-DT-98):
 * each record is validated straight into per-column lists of PostgreSQL array-literal
 * elements, ready for the one `INSERT … SELECT … FROM unnest($1::<type>[], …)` of a chunk —
 * no per-row value objects on the common path. The result equals validating with
 * `coerceRecord` (values/coerce.ts) and encoding its values with `elementOf`
 * (values/literal.ts): each field's encoder is the value rules' shortcut
 * (values/record-validator.ts `fastPath`) finishing into the element; any other row — a
 * refused value, a missing required field, a non-object — goes through the compiled
 * validator, so error texts and their order are exactly the validator's.
 * test/datatable/column-chunk.test.ts pins that.
 */
import type { OwnerScope } from '../access/permissions.ts';
import { isSystemColumn } from '../model/naming.ts';
import type { DtLang } from '../model/results.ts';
import type { FieldMeta, TableMeta } from '../model/types.ts';
import type { DbValue } from '../values/coerce.ts';
import { elementOf } from '../values/literal.ts';
import { compileValidator, fastPath, SLOW, type RecordValidator } from '../values/record-validator.ts';

type Enc = (v: unknown) => string | typeof SLOW;

/** The encoder of one field: the element of `coerceValue(field, v)`, or SLOW when the value is refused or not certain. */
function fieldEncoder(field: FieldMeta, lang: DtLang): Enc {
  return fastPath(field, lang, (x) => elementOf(field, x));
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
