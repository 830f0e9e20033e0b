/**
 * Chunked reading of an import file (R-DT-35): the file's
 * bytes are scanned once for the structure of the top-level JSON array — strings, nesting,
 * the commas between records — which counts the records and marks where every
 * {@link SOURCE_CHUNK}th one ends; each chunk is then decoded and `JSON.parse`d only when the
 * import reaches it. Parsing thus overlaps with the database inserting earlier chunks, and
 * the parsed records of a chunk die young instead of the whole file living through the
 * import (less copying in the garbage collector). UTF-8 multi-byte sequences never contain
 * ASCII bytes, so the scan works on bytes without decoding.
 *
 * A structural error (unbalanced brackets, an unterminated string, an empty element, text
 * after the array) refuses the file before anything is written, as a whole-file parse did. A
 * record that is structurally sound but not valid JSON (e.g. `tru`, `01`) is found when its
 * chunk is parsed: that chunk is parsed record by record and only that record is reported
 * (a row error), like any other invalid record.
 */
import type { Bilingual } from '../model/results.ts';

/** Records per parsed chunk (the scan marks a boundary after every this many). */
export const SOURCE_CHUNK = 5000;

/** Stands for a record that is not valid JSON; importRecords reports it as a row error. */
export const UNPARSABLE: unique symbol = Symbol('unparsable');

/** Records read chunk by chunk, in file order. */
export interface RecordSource {
  /** How many records the file holds (known before any record is parsed). */
  readonly length: number;
  /** The next up to `n` records (fewer at the end; [] when done); an invalid one is {@link UNPARSABLE}. */
  take(n: number): unknown[];
}

/** A source over records already in memory. */
export function arraySource(records: readonly unknown[]): RecordSource {
  let at = 0;
  return {
    length: records.length,
    take(n) {
      const out = records.slice(at, at + n);
      at += out.length;
      return out;
    },
  };
}

const REFUSED: Bilingual = {
  zh: '导入文件不是合法 JSON（需要对象数组）。',
  en: 'the import file is not valid JSON (an array of objects is expected)',
};

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Scan `buf` from `from` (just after the top-level `[`) to its closing `]`.
 * @returns the record count and `cuts` — byte offsets where records start: cuts[k] begins
 *   record k·`every`; the last entry is the offset of the closing `]` — or null when the
 *   structure is broken (unbalanced, unterminated string, empty element, trailing text).
 */
export function scanArray(buf: Uint8Array, from: number, every = SOURCE_CHUNK): { count: number; cuts: number[] } | null {
  const len = buf.length;
  const cuts: number[] = [];
  let depth = 0;
  let count = 0;
  let started = false; // the current record has begun
  let scalarEnd = -1; // the byte after a top-level number / true / false / null being read
  for (let i = from; i < len; i++) {
    const c = buf[i]!;
    if (isSpace(c)) continue;
    if (depth === 0) {
      const structural = c === 0x2c || c === 0x5d || c === 0x5b || c === 0x7b || c === 0x22 || c === 0x7d;
      if (!structural && scalarEnd === i) {
        scalarEnd = i + 1; // the same scalar goes on (JSON.parse judges its spelling)
        continue;
      }
      if (c === 0x2c) {
        if (!started) return null;
        started = false;
        continue;
      }
      if (c === 0x5d) {
        if (!started && count > 0) return null; // trailing comma
        for (let j = i + 1; j < len; j++) if (!isSpace(buf[j]!)) return null;
        cuts.push(i);
        return { count, cuts };
      }
      if (started) return null; // two values without a comma
      if (count % every === 0) cuts.push(i);
      count++;
      started = true;
      if (!structural) {
        scalarEnd = i + 1;
        continue;
      }
    }
    if (c === 0x22) {
      // a string: skip to its closing quote (a backslash escapes the next byte)
      for (i++; ; i++) {
        if (i >= len) return null;
        const d = buf[i]!;
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth < 0) return null;
    }
  }
  return null;
}

/** The end of bytes `from…to` with trailing spaces and one trailing comma removed. */
function trimComma(buf: Uint8Array, from: number, to: number): number {
  let e = to;
  while (e > from && isSpace(buf[e - 1]!)) e--;
  if (e > from && buf[e - 1] === 0x2c) e--;
  return e;
}

/** A source over a scanned JSON array: chunk k is bytes cuts[k]…cuts[k+1] (minus the trailing comma). */
function scannedSource(buf: Buffer, count: number, cuts: number[], every: number): RecordSource {
  let chunk = 0;
  let pending: unknown[] = [];
  let at = 0;
  const parseChunk = (k: number): unknown[] => {
    const end = trimComma(buf, cuts[k]!, cuts[k + 1]!);
    const n = Math.min(every, count - k * every);
    try {
      const v = JSON.parse(`[${buf.toString('utf8', cuts[k]!, end)}]`) as unknown[];
      if (v.length === n) return v;
    } catch {
      // parse record by record below
    }
    return parseEach(buf, cuts[k]!, end, n);
  };
  return {
    length: count,
    take(n) {
      const out: unknown[] = [];
      while (out.length < n) {
        if (at >= pending.length) {
          if (chunk >= cuts.length - 1) break;
          pending = parseChunk(chunk++);
          at = 0;
        }
        const m = Math.min(n - out.length, pending.length - at);
        for (let i = 0; i < m; i++) out.push(pending[at + i]);
        at += m;
      }
      if (at >= pending.length) pending = [];
      return out;
    },
  };
}

/** Parse the `n` comma-separated records in bytes `from…to` one at a time; an invalid one becomes {@link UNPARSABLE}. */
function parseEach(buf: Buffer, from: number, to: number, n: number): unknown[] {
  const bytes = Buffer.concat([buf.subarray(from, to), Buffer.from(']')]);
  const scan = scanArray(bytes, 0, 1);
  const out: unknown[] = [];
  if (scan) {
    for (let k = 0; k < scan.count && k < n; k++) {
      try {
        out.push(JSON.parse(bytes.toString('utf8', scan.cuts[k]!, trimComma(bytes, scan.cuts[k]!, scan.cuts[k + 1]!))) as unknown);
      } catch {
        out.push(UNPARSABLE);
      }
    }
  }
  while (out.length < n) out.push(UNPARSABLE);
  return out;
}

/**
 * The records of a JSON import file's text bytes (BOM already removed): a top-level array is
 * scanned and parsed chunk by chunk; an object (`{records|data|rows|items: [...]}`) is parsed
 * whole, as before. `every`: records per parsed chunk.
 * @returns the source, or a bilingual refusal (nothing written).
 */
export function jsonSource(buf: Buffer, every = SOURCE_CHUNK): { source: RecordSource } | { error: Bilingual } {
  let i = 0;
  while (i < buf.length && isSpace(buf[i]!)) i++;
  if (buf[i] === 0x5b) {
    const scan = scanArray(buf, i + 1, every);
    if (!scan) return { error: REFUSED };
    return { source: scannedSource(buf, scan.count, scan.cuts, every) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(buf.toString('utf8'));
  } catch {
    return { error: REFUSED };
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    for (const k of ['records', 'data', 'rows', 'items']) {
      const v = (parsed as Record<string, unknown>)[k];
      if (Array.isArray(v)) return { source: arraySource(v) };
    }
  }
  return { error: { zh: '导入文件应是对象数组 [{...}, {...}]。', en: 'the import file must hold an array of objects [{...}, {...}]' } };
}
