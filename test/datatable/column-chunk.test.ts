/**
 * The column-wise bulk path (R-DT-66..75, R-DT-98, R-DT-35): the column encoder gives exactly
 * what coerceRecord + elementOf give, and the chunked JSON reader gives exactly JSON.parse's
 * records, refusing broken structure before anything is written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileColumnEncoder } from '../../src/datatable/bulk/column-chunk.ts';
import { elementOf } from '../../src/datatable/values/literal.ts';
import { openImportRecords } from '../../src/datatable/import/file.ts';
import { jsonSource, UNPARSABLE, type RecordSource } from '../../src/datatable/import/source.ts';
import type { FieldMeta, LogicalType } from '../../src/datatable/model/types.ts';
import { coerceRecord } from '../../src/datatable/values/coerce.ts';

const f = (title: string, uidt: LogicalType, extra: Partial<FieldMeta> = {}): FieldMeta => ({
  title,
  uidt,
  required: false,
  unique: false,
  options: [],
  precision: null,
  scale: null,
  position: 0,
  ...extra,
});
const FIELDS: FieldMeta[] = [
  f('文本', '文本', { required: true }),
  f('长文本', '长文本'),
  f('整数', '整数'),
  f('数字', '数字', { precision: 18, scale: 2 }),
  f('小数', '数字', { precision: 5, scale: 2 }),
  f('日期', '日期'),
  f('日期时间', '日期时间'),
  f('时间', '时间'),
  f('勾选', '勾选'),
  f('单选', '单选', { options: ['A', 'B', 'a"b'] }),
  f('多选', '多选', { options: ['x', 'y', 'a,b'] }),
  f('邮箱', '邮箱'),
  f('电话', '电话'),
  f('链接', '链接'),
  f('JSON', 'JSON'),
  f('constructor', '文本'),
];
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  'abc',
  'NULL',
  'a"b',
  'a\\b',
  '{x}',
  'a,b',
  '１２',
  '1,234',
  '12.50',
  '1.5',
  '3万',
  0,
  -0,
  1,
  -7,
  1.5,
  123.456,
  1e-7,
  1e21,
  999,
  1000,
  99999.99,
  // biome-ignore lint/correctness/noPrecisionLoss: a number past 2^53 on purpose
  9007199254740993,
  Number.NaN,
  true,
  false,
  'true',
  '否',
  '2026-01-02',
  '2026/1/2',
  '2026-02-30',
  '2026-01-02 09:30',
  '2026-01-02T09:30:00+08:00',
  '09:30',
  '2026-01-02 09:30:00',
  '2026-01-02T09:30:00',
  '2026-01-02 24:00:00',
  '2026-01-02 23:59:60',
  '2024-02-29',
  '2023-02-29 00:00:00',
  '1900-02-29',
  '0000-01-01 00:00:00',
  '2026-13-01',
  '09:30:59',
  '24:00:00',
  'A',
  'C',
  ' A ',
  ['x'],
  ['x', 'z'],
  'x,y',
  ['a,b'],
  { a: 1 },
  [1, 2],
  'a@b.co',
  '+86 138-0000-0000',
  'https://x.cn/a',
  '{"a": 1}',
  '{bad',
  'x\u0000y',
];

describe('column encoder (R-DT-66..75, R-DT-18)', () => {
  it('R-DT-66..75: appends exactly the elements of coerceRecord’s values, or returns exactly its errors', () => {
    const table = { fields: FIELDS.map((x) => ({ ...x, unique: x.uidt !== '多选' })) };
    for (const lang of ['zh-CN', 'en'] as const) {
      const enc = compileColumnEncoder(table, lang, null);
      expect(enc.unique.length).toBe(FIELDS.length - 1);
      for (const field of FIELDS) {
        for (const value of VALUES) {
          for (let rep = 0; rep < 2; rep++) {
            const rec = { 文本: 't', [field.title]: value, 未知: 1, id: 5 };
            const want = coerceRecord(table, rec, { mode: 'insert', lang });
            const chunk = enc.chunk();
            const got = enc.add(chunk, rec, 7);
            const what = `${field.title} ${JSON.stringify(value)} ${lang}`;
            if (want.errors.length) {
              expect(got, what).toEqual(want.errors);
              expect(chunk.rows, what).toEqual([]);
              continue;
            }
            expect(got, what).toBeNull();
            expect(chunk.rows).toEqual([7]);
            enc.fields.forEach((fm, j) => {
              const x = Object.hasOwn(want.values, fm.title) ? want.values[fm.title] : undefined;
              expect(chunk.cols[j], `${what} → ${fm.title}`).toEqual([elementOf(fm, x)]);
              expect(chunk.present[j], `${what} → ${fm.title} present`).toBe(Object.hasOwn(want.values, fm.title));
            });
            enc.unique.forEach((j, u) => {
              const fm = enc.fields[j]!;
              const x = Object.hasOwn(want.values, fm.title) ? want.values[fm.title] : undefined;
              const key = x === undefined || x === null ? null : fm.uidt === '文本' || fm.uidt === '长文本' ? String(x) : elementOf(fm, x);
              expect(chunk.keys[u], `${what} → key ${fm.title}`).toEqual([key]);
            });
            expect(enc.values(rec)).toEqual(want.values);
          }
        }
      }
      for (const bad of [null, 'x', [1], 3]) {
        expect(enc.add(enc.chunk(), bad, 1)).toEqual(coerceRecord(table, bad, { mode: 'insert', lang }).errors);
      }
    }
  });

  it('R-DT-18: owner fields take actor_emp_no whatever the record says', () => {
    const table = { fields: [f('名称', '文本'), f('负责人', '文本', { required: true })] };
    const enc = compileColumnEncoder(table, 'zh-CN', { field: '负责人', fields: ['负责人'], empNo: 'E7' });
    const chunk = enc.chunk();
    expect(enc.add(chunk, { 名称: 'a', 负责人: 'FORGED' }, 1)).toBeNull();
    expect(enc.add(chunk, { 名称: 'b' }, 2)).toBeNull();
    expect(chunk.cols).toEqual([
      ['"a"', '"b"'],
      ['"E7"', '"E7"'],
    ]);
    expect(enc.values({ 名称: 'c' })).toEqual({ 名称: 'c', 负责人: 'E7' });
  });
});

function drain(src: RecordSource, step: number): unknown[] {
  const out: unknown[] = [];
  for (;;) {
    const b = src.take(step);
    if (b.length === 0) return out;
    out.push(...b);
  }
}

describe('chunked import reading (R-DT-35)', () => {
  const tricky = [
    { a: '[{"x":1}]', b: 'q"uote', c: 'back\\slash', d: '中文，逗号,', e: [1, [2, { f: '}' }]] },
    { '{': ']' },
    {},
    [],
    'plain',
    12,
    null,
    { n: -1.5e3, t: true, emoji: '😀', nl: 'a\nb' },
  ];
  it('R-DT-35: gives JSON.parse’s records for every chunk size and take size, compact or indented', () => {
    for (const text of [JSON.stringify(tricky), JSON.stringify(tricky, null, 2), ` \r\n${JSON.stringify(tricky)}\n\n`]) {
      for (const every of [1, 2, 3, 8, 100]) {
        for (const step of [1, 3, 5000]) {
          const r = jsonSource(Buffer.from(text), every);
          if (!('source' in r)) throw new Error('refused');
          expect(r.source.length).toBe(tricky.length);
          expect(drain(r.source, step), `${every}/${step}`).toEqual(tricky);
        }
      }
    }
    const empty = jsonSource(Buffer.from(' [ ] '));
    expect('source' in empty && empty.source.length).toBe(0);
  });

  it('R-DT-35: broken structure is refused before anything is read; a bad token costs only its record', () => {
    for (const bad of ['[{"a":1},]', '[{"a":1} {"b":2}]', '[{"a":1}] x', '[{"a":"1}]', '[{"a":1}', '[{"a":1}]]', '[,{"a":1}]', 'nope']) {
      expect(jsonSource(Buffer.from(bad)), bad).toHaveProperty('error');
    }
    for (const every of [1, 2, 10]) {
      const r = jsonSource(Buffer.from('[{"a":1},{"a":tru},{"a":01},{"a":3}]'), every);
      if (!('source' in r)) throw new Error('refused');
      expect(drain(r.source, 2)).toEqual([{ a: 1 }, UNPARSABLE, UNPARSABLE, { a: 3 }]);
    }
  });

  it('R-DT-35: openImportRecords strips a BOM, keeps the wrapped-array and JSON Lines forms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-he1-src-'));
    try {
      writeFileSync(join(dir, 'a.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"x":1},{"x":2}]')]));
      writeFileSync(join(dir, 'b.json'), '{"records":[{"x":3}]}');
      writeFileSync(join(dir, 'c.jsonl'), '{"x":4}\n\n{"x":5}\n');
      writeFileSync(join(dir, 'd.json'), '{"x":1}');
      const read = (n: string) => {
        const r = openImportRecords(join(dir, n));
        return 'source' in r ? drain(r.source, 10) : r.error.en;
      };
      expect(read('a.json')).toEqual([{ x: 1 }, { x: 2 }]);
      expect(read('b.json')).toEqual([{ x: 3 }]);
      expect(read('c.jsonl')).toEqual([{ x: 4 }, { x: 5 }]);
      expect(read('d.json')).toMatch(/array of objects/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
