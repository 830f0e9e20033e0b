import { describe, expect, it } from 'vitest';
import { compileValidator } from '../../src/datatable/values/record-validator.ts';
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
  f('默认数字', '数字'),
  f('日期', '日期'),
  f('日期时间', '日期时间'),
  f('时间', '时间'),
  f('勾选', '勾选'),
  f('单选', '单选', { options: ['A', 'B'] }),
  f('多选', '多选', { options: ['x', 'y'] }),
  f('邮箱', '邮箱'),
  f('电话', '电话'),
  f('链接', '链接'),
  f('JSON', 'JSON'),
];
const VALUES: unknown[] = [
  undefined,
  null,
  '',
  ' ',
  'abc',
  '１２',
  '1,234',
  '12.50',
  '1.5',
  '3万',
  '1.2k',
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
  Infinity,
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
  '25:00',
  '2026-01-02 09:30:00',
  '2026-01-02T09:30:00',
  '2026-01-02 24:00:00',
  '2026-01-02 23:59:60',
  '2024-02-29',
  '2023-02-29',
  '1900-02-29',
  '2000-02-29',
  '0000-01-01',
  '2026-13-01',
  '2026-04-31',
  '09:30:59',
  '09:60:00',
  '23:59:59',
  '24:00:00',
  '2026-01-02 09:30:00.5',
  'A',
  'C',
  ' A ',
  ['x'],
  ['x', 'z'],
  'x,y',
  { a: 1 },
  [1, 2],
  'a@b.co',
  'not mail',
  '+86 138-0000-0000',
  'https://x.cn/a',
  'x.cn',
  '{"a": 1}',
  '{bad',
];

describe('compiled record validator (R-DT-66..75)', () => {
  it('gives exactly what coerceRecord gives, for every field and value, insert and update', () => {
    for (const lang of ['zh-CN', 'en'] as const) {
      const v = compileValidator({ fields: FIELDS }, lang);
      for (const field of FIELDS) {
        for (const value of VALUES) {
          for (const mode of ['insert', 'update'] as const) {
            const rec = { [field.title]: value, 未知: 1, id: 5 };
            expect(v.validate(rec, mode), `${field.title} ${String(value)} ${mode}`).toEqual(
              coerceRecord({ fields: FIELDS }, rec, { mode, lang }),
            );
          }
        }
      }
      for (const bad of [null, 'x', [1], 3])
        expect(v.validate(bad, 'insert')).toEqual(coerceRecord({ fields: FIELDS }, bad, { mode: 'insert', lang }));
      // memoised results stay right when a value repeats
      for (let i = 0; i < 3; i++)
        expect(v.validate({ 文本: 'a', 日期: '2026-01-02', 单选: 'Z' }, 'insert')).toEqual(
          coerceRecord({ fields: FIELDS }, { 文本: 'a', 日期: '2026-01-02', 单选: 'Z' }, { mode: 'insert', lang }),
        );
    }
  });
});
