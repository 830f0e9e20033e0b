/**
 * 日期时间 is an instant (docs/datatable.md "Field types", docs/results.md "Times"): the column is
 * timestamptz, a wall-clock input is read in the caller's zone (`runtime_context._time_zone`),
 * an input with an offset names its instant, and people see every value in their own zone.
 * Migration 0038 turns an older timestamp column into timestamptz in the organisation's zone.
 */
import { beforeAll, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';

/** The display_md as a person reads it (markdown escapes dropped). */
const shown = (e: Record<string, unknown>): string => String(e.display_md).replace(/\\/g, '');

const SHANGHAI = { _time_zone: 'Asia/Shanghai' };
const LONDON = { _time_zone: 'Europe/London' };

describeEachEngine('datatable 日期时间 in the caller zone', (db) => {
  let t: RowsEnv;
  beforeAll(async () => {
    t = await rowsEnv(db(), { org_id: 'tzorg' });
    await t.table('班次', [
      { title: '名称', uidt: '文本' },
      { title: '开始', uidt: '日期时间' },
    ]);
  });

  async function utcOf(name: string): Promise<string> {
    const { rows } = await db().query<{ v: string }>(
      `SELECT to_char("开始" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS v FROM "org_data_tzorg"."班次" WHERE "名称" = $1`,
      [name],
    );
    return rows[0]!.v;
  }

  it('the column is timestamptz', async () => {
    const { rows } = await db().query<{ data_type: string }>(
      `SELECT data_type FROM information_schema.columns WHERE table_schema = 'org_data_tzorg' AND table_name = '班次' AND column_name = '开始'`,
    );
    expect(rows[0]!.data_type).toBe('timestamp with time zone');
  });

  it('a wall-clock input is that time in the caller zone; an offset names its own instant', async () => {
    const a = await t.call(
      { action: 'insert', payload: { table_name: '班次', record: { 名称: '早班', 开始: '2026-12-02 09:30' } } },
      SHANGHAI,
    );
    expect(a, JSON.stringify(a)).toMatchObject({ success: true });
    expect(await utcOf('早班')).toBe('2026-12-02 01:30:00');
    const b = await t.call(
      { action: 'insert', payload: { table_name: '班次', record: { 名称: '晚班', 开始: '2026-12-02T09:30:00Z' } } },
      SHANGHAI,
    );
    expect(b, JSON.stringify(b)).toMatchObject({ success: true });
    expect(await utcOf('晚班')).toBe('2026-12-02 09:30:00');
  });

  it('each caller reads and sees the same instant in its own zone', async () => {
    const sh = await t.call(
      { action: 'query', payload: { table_name: '班次', filters: [{ field: '名称', op: 'eq', value: '早班' }] } },
      SHANGHAI,
    );
    const ld = await t.call(
      { action: 'query', payload: { table_name: '班次', filters: [{ field: '名称', op: 'eq', value: '早班' }] } },
      LONDON,
    );
    const value = (e: Record<string, unknown>) => String((e.list as Record<string, unknown>[])[0]!.开始);
    expect(value(sh)).toBe('2026-12-02 09:30:00+08');
    expect(value(ld)).toBe('2026-12-02 01:30:00+00');
    expect(shown(sh)).toContain('2026-12-02 09:30:00');
    expect(shown(sh)).not.toContain('+08');
    expect(shown(ld)).toContain('2026-12-02 01:30:00');
  });

  it('a filter on a wall-clock time is read in the caller zone too', async () => {
    const filters = [{ field: '开始', op: 'lt', value: '2026-12-02 09:31' }];
    const sh = await t.call({ action: 'query', payload: { table_name: '班次', filters } }, SHANGHAI);
    const ld = await t.call({ action: 'query', payload: { table_name: '班次', filters } }, LONDON);
    const names = (e: Record<string, unknown>) => (e.list as Record<string, unknown>[]).map((r) => r.名称).sort();
    // 早班 is 01:30Z, 晚班 09:30Z: before 09:31 Shanghai (01:31Z) only 早班; before 09:31 London both
    expect(names(sh)).toEqual(['早班']);
    expect(names(ld)).toEqual(['早班', '晚班']);
  });

  it('migration 0038 turns an old timestamp column into the instants its wall-clock times meant', async () => {
    await t.table('旧表', [
      { title: '名称', uidt: '文本' },
      { title: '时刻', uidt: '日期时间' },
    ]);
    await db().query(`ALTER TABLE "org_data_tzorg"."旧表" ALTER COLUMN "时刻" TYPE timestamp USING "时刻" AT TIME ZONE 'UTC'`);
    await db().query(`INSERT INTO "org_data_tzorg"."旧表" ("名称", "时刻") VALUES ('x', '2026-01-02 10:00:00'::timestamp)`);
    await db().query('DELETE FROM skillgate.schema_migrations WHERE version = 38');
    const before = process.env.SKILLGATE_TIMEZONE;
    process.env.SKILLGATE_TIMEZONE = 'Asia/Shanghai';
    try {
      const r = await migrate(db(), readMigrations());
      expect(r.applied).toEqual([38]);
    } finally {
      if (before === undefined) delete process.env.SKILLGATE_TIMEZONE;
      else process.env.SKILLGATE_TIMEZONE = before;
    }
    const { rows } = await db().query<{ data_type: string; v: string }>(
      `SELECT c.data_type, (SELECT to_char("时刻" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM "org_data_tzorg"."旧表") AS v
         FROM information_schema.columns c
        WHERE c.table_schema = 'org_data_tzorg' AND c.table_name = '旧表' AND c.column_name = '时刻'`,
    );
    expect(rows[0]).toEqual({ data_type: 'timestamp with time zone', v: '2026-01-02 02:00:00' });
    const q = await t.call({ action: 'query', payload: { table_name: '旧表' } }, SHANGHAI);
    expect(shown(q)).toContain('2026-01-02 10:00:00');
  });
});
