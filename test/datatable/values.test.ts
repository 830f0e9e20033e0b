import { describe, expect, it } from 'vitest';
import { coerceRecord, coerceValue, toHalfWidth } from '../../src/datatable/values/coerce.ts';
import { canonicalDateTime, isCanonicalDate, isCanonicalTime } from '../../src/datatable/values/scalar.ts';
import type { FieldMeta, LogicalType } from '../../src/datatable/model/types.ts';

function f(uidt: LogicalType, over: Partial<FieldMeta> = {}): FieldMeta {
  return {
    title: `f_${uidt}`,
    uidt,
    required: false,
    unique: false,
    options: [],
    precision: uidt === '数字' ? 38 : null,
    scale: uidt === '数字' ? 2 : null,
    position: 0,
    ...over,
  };
}
const ok = (field: FieldMeta, v: unknown) => {
  const r = coerceValue(field, v);
  if (!r.ok) throw new Error(`expected ok for ${JSON.stringify(v)}: ${r.error}`);
  return r.value;
};
const err = (field: FieldMeta, v: unknown, lang: 'zh-CN' | 'en' = 'zh-CN') => {
  const r = coerceValue(field, v, lang);
  if (r.ok) throw new Error(`expected refusal for ${JSON.stringify(v)}, got ${JSON.stringify(r.value)}`);
  return r.error;
};

describe('datatable values', () => {
  it('R-DT-68: full-width digits become half-width and thousands commas are accepted', () => {
    expect(toHalfWidth('１２，３４５．５')).toBe('12,345.5');
    expect(ok(f('整数'), '１２,３４５')).toBe('12345');
    expect(ok(f('整数'), '1,234,567')).toBe('1234567');
    expect(ok(f('数字'), '－1,234.50')).toBe('-1234.5');
    expect(ok(f('数字'), 12.25)).toBe('12.25');
    expect(ok(f('数字'), 1.5e-7)).toBe('0.00000015');
    expect(ok(f('整数'), 1e21 / 1e6)).toBe('1000000000000000');
  });

  it('R-DT-68: commas that are not thousands groups are refused (no guessing)', () => {
    err(f('数字'), '1,23');
    err(f('数字'), '12,34.5');
    err(f('整数'), '1e3');
    err(f('数字'), '¥100');
    err(f('数字'), '12%');
  });

  it('R-DT-69: magnitude words 万 亿 千 k M bn are refused, never converted', () => {
    for (const v of ['3万', '1.2亿', '5千', '5k', '2M', '1bn', '３万', '10 K', '3w']) {
      expect(err(f('数字'), v)).toMatch(/数量级/);
      expect(err(f('整数'), v)).toMatch(/数量级/);
    }
    expect(err(f('数字'), '3万', 'en')).toMatch(/magnitude word/);
  });

  it('R-DT-70: an integer field refuses a decimal (1.5 and "1.5"); an integral "2.00" is fine', () => {
    expect(err(f('整数'), 1.5)).toMatch(/小数/);
    expect(err(f('整数'), '1.5')).toMatch(/小数/);
    expect(ok(f('整数'), '2.00')).toBe('2');
    expect(ok(f('整数'), -7)).toBe('-7');
    expect(ok(f('整数'), '0')).toBe('0');
  });

  it('R-DT-70: integers stay exact: beyond 2^53 only as strings, within the bigint range', () => {
    // biome-ignore lint/correctness/noPrecisionLoss: a number past 2^53 on purpose
    err(f('整数'), 9007199254740993);
    expect(ok(f('整数'), '9223372036854775807')).toBe('9223372036854775807');
    err(f('整数'), '9223372036854775808');
    err(f('整数'), true);
  });

  it('R-DT-67: 数字 values must fit precision − scale integer digits (金额 18,2)', () => {
    const money = f('数字', { precision: 18, scale: 2 });
    expect(ok(money, '9999999999999999.99')).toBe('9999999999999999.99');
    expect(err(money, '10000000000000000')).toMatch(/精度/);
    expect(ok(money, '1.005')).toBe('1.005'); // rounded to the scale by the database
  });

  it('R-DT-71, A-35: dates, date-times and times in ISO only', () => {
    expect(ok(f('日期'), '2026-01-02')).toBe('2026-01-02');
    err(f('日期'), '2026/1/2');
    err(f('日期'), '2026-02-30');
    err(f('日期'), '02-01-2026');
    err(f('日期'), 20260102);
    expect(ok(f('日期时间'), '2026-01-02T09:30')).toBe('2026-01-02 09:30:00');
    expect(ok(f('日期时间'), '2026-01-02 09:30:15.250')).toBe('2026-01-02 09:30:15.250');
    // timestamptz: an offset names the instant and is kept (PostgreSQL's form); none = the caller's zone
    expect(ok(f('日期时间'), '2026-01-02T09:30:15+08:00')).toBe('2026-01-02 09:30:15+08:00');
    expect(ok(f('日期时间'), '2026-01-02T09:30:15Z')).toBe('2026-01-02 09:30:15+00:00');
    expect(ok(f('日期时间'), '2026-01-02 09:30:15-0330')).toBe('2026-01-02 09:30:15-03:30');
    expect(ok(f('日期时间'), '2026-01-02')).toBe('2026-01-02 00:00:00');
    err(f('日期时间'), '2026-01-02 25:00');
    err(f('日期时间'), '2026年1月2日');
    expect(ok(f('时间'), '09:30')).toBe('09:30:00');
    expect(ok(f('时间'), '23:59:59')).toBe('23:59:59');
    expect(ok(f('时间'), '０９：３０')).toBe('09:30:00');
    err(f('时间'), '9:30');
    err(f('时间'), '24:00');
  });

  it('R-DT-72: 单选 / 多选 values must be among the configured options', () => {
    const single = f('单选', { title: '状态', options: ['待处理', '已完成'] });
    expect(ok(single, '已完成')).toBe('已完成');
    expect(err(single, '进行中')).toMatch(/不在「状态」的选项内/);
    const multi = f('多选', { title: '标签', options: ['红', '绿', '蓝'] });
    expect(ok(multi, ['红', '蓝', '红'])).toEqual(['红', '蓝']);
    expect(ok(multi, '红，绿')).toEqual(['红', '绿']);
    expect(ok(multi, '["绿"]')).toEqual(['绿']);
    expect(ok(multi, [])).toBeNull();
    expect(err(multi, ['红', '紫'])).toMatch(/紫/);
    err(multi, { a: 1 });
  });

  it('R-DT-74: an empty string becomes NULL for every type', () => {
    for (const t of ['文本', '整数', '数字', '日期', '日期时间', '时间', '勾选', '单选', '多选', '邮箱', '电话', '链接', 'JSON'] as const) {
      expect(coerceValue(f(t), '')).toEqual({ ok: true, value: null });
    }
    expect(ok(f('整数'), '   ')).toBeNull();
    expect(ok(f('文本'), null)).toBeNull();
  });

  it('R-DT-85b: JSON values given as objects are serialised by the platform; bad JSON text is refused', () => {
    expect(ok(f('JSON'), { value: 0.85, note: 'a:b' })).toBe('{"value":0.85,"note":"a:b"}');
    expect(ok(f('JSON'), [1, 2])).toBe('[1,2]');
    expect(ok(f('JSON'), '{"a": 1}')).toBe('{"a": 1}');
    expect(ok(f('JSON'), false)).toBe('false');
    err(f('JSON'), '{bad');
  });

  it('R-DT-66: 勾选, 邮箱, 电话, 链接 and text values are checked by type', () => {
    expect(ok(f('勾选'), true)).toBe(true);
    expect(ok(f('勾选'), '是')).toBe(true);
    expect(ok(f('勾选'), 0)).toBe(false);
    err(f('勾选'), 'maybe');
    expect(ok(f('邮箱'), ' a.b@example.com ')).toBe('a.b@example.com');
    err(f('邮箱'), 'not-an-email');
    expect(ok(f('电话'), '+86 138-0000-0000')).toBe('+86 138-0000-0000');
    expect(ok(f('电话'), '１３８００００００００')).toBe('13800000000');
    err(f('电话'), 'call me');
    expect(ok(f('链接'), 'https://example.com/a?b=1')).toBe('https://example.com/a?b=1');
    expect(ok(f('链接'), 'example.com/x')).toBe('example.com/x');
    err(f('链接'), 'javascript:alert(1)');
    err(f('链接'), 'not a link');
    expect(ok(f('文本'), 42)).toBe('42');
    expect(ok(f('长文本'), 'MA20偏离%')).toBe('MA20偏离%');
    err(f('文本'), { a: 1 });
  });

  const table = {
    fields: [
      f('文本', { title: '客户名', required: true }),
      f('整数', { title: '数量' }),
      f('单选', { title: '状态', options: ['新', '旧'], required: true }),
    ],
  };

  it('R-DT-73, R-DT-08: unknown fields and the system columns are dropped silently (listed in dropped)', () => {
    const r = coerceRecord(table, { 客户名: '甲', 数量: '3', 状态: '新', 备注: 'x', id: 99, created_at: 'now' }, { mode: 'insert' });
    expect(r.errors).toEqual([]);
    expect(r.values).toEqual({ 客户名: '甲', 数量: '3', 状态: '新' });
    expect(r.dropped.sort()).toEqual(['created_at', 'id', '备注'].sort());
  });

  it('R-DT-75: required fields are checked on insert only, not on update', () => {
    const ins = coerceRecord(table, { 数量: 1, 客户名: '' }, { mode: 'insert' });
    expect(ins.errors.map((e) => e.field).sort()).toEqual(['客户名', '状态'].sort());
    const upd = coerceRecord(table, { 数量: 1, 客户名: '' }, { mode: 'update' });
    expect(upd.errors).toEqual([]);
    expect(upd.values).toEqual({ 数量: '1', 客户名: null });
  });

  it('R-DT-70, R-DT-72: every refused field is reported with its value; the record is not partially accepted', () => {
    const r = coerceRecord(table, { 客户名: '甲', 数量: 1.5, 状态: '中' }, { mode: 'insert', lang: 'en' });
    expect(r.errors).toHaveLength(2);
    expect(r.errors.find((e) => e.field === '数量')).toMatchObject({ value: 1.5 });
    expect(r.errors.find((e) => e.field === '状态')?.error).toMatch(/not an option/);
  });

  it('R-DT-59: data that is not one object is refused', () => {
    expect(coerceRecord(table, [{ 客户名: '甲' }], { mode: 'insert' }).errors[0]?.field).toBe('');
    expect(coerceRecord(table, 'x', { mode: 'update' }).errors).toHaveLength(1);
  });
});

describe('one calendar for every date path (values/scalar.ts)', () => {
  // Oracle: the JavaScript calendar (proleptic Gregorian, any year ≥ 1).
  const real = (y: number, mo: number, d: number): boolean => {
    const dt = new Date(Date.UTC(2000, mo - 1, d));
    dt.setUTCFullYear(y, mo - 1, d);
    return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
  };
  const pad = (n: number, w: number) => String(n).padStart(w, '0');

  it('a canonical date, time or date-time takes the shortcut only when the full rule returns it unchanged', () => {
    const years = [1, 4, 100, 200, 400, 1900, 2000, 2023, 2024, 2100, 9999];
    for (const y of years)
      for (let mo = 0; mo <= 13; mo++)
        for (const d of [0, 1, 28, 29, 30, 31, 32]) {
          const v = `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`;
          const ok = mo >= 1 && mo <= 12 && real(y, mo, d);
          expect(isCanonicalDate(v), v).toBe(ok);
          expect(coerceValue(f('日期'), v), v).toEqual(ok ? { ok: true, value: v } : { ok: false, error: expect.any(String) });
          const t = `${v}T23:59:59`;
          expect(canonicalDateTime(t), t).toBe(ok ? `${v} 23:59:59` : null);
          const c = coerceValue(f('日期时间'), t);
          expect(c.ok ? c.value : null, t).toBe(ok ? `${v} 23:59:59` : null);
        }
    for (const t of ['00:00:00', '23:59:59', '24:00:00', '12:60:00', '12:00:60', '1:00:00', '12:00']) {
      const c = coerceValue(f('时间'), t);
      expect(isCanonicalTime(t), t).toBe(c.ok && c.value === t);
    }
  });
});
