/**
 * Datatable bulk import: `insert_from_file` of 100 000 rows (8 columns
 * of mixed types) through `runDatatable` against a raw `COPY` of the same rows into an
 * identical table, as a time ratio (subject / baseline; target ≤ 2, i.e. a throughput ratio
 * ≥ 0.5), and the same with 1% invalid rows — every one of them must come back in `errors`.
 * After the last case the throughput ratios (COPY time / import time, medians over the
 * rounds, warm-up excluded) are printed explicitly: `bench: datatable throughput ratio …`.
 *
 * Runs on the real server named by TEST_DATABASE_URL (in a database `<name>_bench`); without
 * it the cases are skipped with a message. Baseline: server-side `COPY … FROM '<file>'` (needs a
 * superuser on the same machine), else one multi-row `INSERT … SELECT FROM unnest(…)`.
 */
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runDatatable } from '../../src/datatable/index.ts';
import type { Db, Tx } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openServerDb } from '../../src/store/open.ts';
import type { BenchCase } from './harness.ts';

const ROWS = 100_000;
const COLS = ['编号', '名称', '数量', '金额', '日期', '时刻', '完成', '类别'] as const;
const FIELDS = [
  { title: '编号', uidt: '文本', unique: true },
  { title: '名称', uidt: '文本' },
  { title: '数量', uidt: '整数' },
  { title: '金额', uidt: '金额' },
  { title: '日期', uidt: '日期' },
  { title: '时刻', uidt: '日期时间' },
  { title: '完成', uidt: '勾选' },
  { title: '类别', uidt: '单选', options: ['A', 'B', 'C'] },
];

type Row = Record<(typeof COLS)[number], string | number | boolean>;

function makeRows(n: number): Row[] {
  const out: Row[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      编号: `NO-${String(i).padStart(6, '0')}`,
      名称: `商品 ${i} 号，规格 ${i % 97}`,
      数量: i % 5000,
      金额: ((i * 37) % 1_000_000) / 100,
      日期: `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`,
      时刻: `2026-03-${String((i % 28) + 1).padStart(2, '0')} ${String(i % 24).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00`,
      完成: i % 2 === 0,
      类别: ['A', 'B', 'C'][i % 3]!,
    });
  }
  return out;
}

/**
 * 1% invalid: 990 refused by validation (four kinds), 10 repeating the previous row's unique
 * 编号 — in-file duplicates, caught in the application (src/datatable/bulk/write-batch.ts uniqueTracker), so no
 * chunk fails in the database (the table is empty at the start of each run).
 */
function withInvalid(rows: Row[]): { rows: Array<Record<string, unknown>>; invalid: Set<number> } {
  const out: Array<Record<string, unknown>> = rows.map((r) => ({ ...r }));
  const invalid = new Set<number>();
  const step = Math.floor(rows.length / 1000);
  for (let k = 0; k < 1000; k++) {
    const i = k * step + 7;
    invalid.add(i);
    const r = out[i]!;
    if (k % 100 === 99)
      r.编号 = `NO-${String(i - 1).padStart(6, '0')}`; // duplicate of the row before
    else if (k % 4 === 0) r.数量 = 1.5;
    else if (k % 4 === 1) r.金额 = '3万';
    else if (k % 4 === 2) r.类别 = 'Z';
    else r.日期 = '2026/1/2';
  }
  return { rows: out, invalid };
}

function csv(rows: ReadonlyArray<Record<string, unknown>>): string {
  const cell = (v: unknown) => {
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => COLS.map((c) => cell(r[c])).join(',')).join('\n') + '\n';
}

async function benchDatabaseUrl(base: string): Promise<string> {
  const u = new URL(base);
  const name = `${u.pathname.replace(/^\//, '') || 'test'}_bench`.replace(/[^a-z0-9_]/gi, '_').toLowerCase();
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  u.pathname = `/${name}`;
  return u.toString();
}

/** Bench cases of the datatable import; [] (with a message) when TEST_DATABASE_URL is unset. */
export function datatableCases(): BenchCase[] {
  const url = process.env.TEST_DATABASE_URL?.trim();
  if (!url) {
    process.stderr.write('bench: datatable skipped (set TEST_DATABASE_URL to a PostgreSQL server to run it)\n');
    return [];
  }
  let db!: Db;
  let ready = false;
  let dir: string;
  let useCopy = true;
  let valid: Row[];
  let bad: { rows: Array<Record<string, unknown>>; invalid: Set<number> };
  const ctx = (): Record<string, unknown> => ({
    org_id: 'bench',
    role_id: 'default',
    team_role: 'owner',
    chat_mode: false,
    session_id: 'bench',
    workspace_dir: dir,
    db_factory: <T>(fn: (tx: Tx) => Promise<T>) => db.transaction(fn),
  });
  const qcols = COLS.map((c) => `"${c}"`).join(', ');

  const setup = async () => {
    if (ready) return;
    ready = true;
    db = openServerDb(await benchDatabaseUrl(url), { max: 4, applicationName: 'skillgate-bench' });
    await migrate(db);
    dir = mkdtempSync(join(tmpdir(), 'sg-bench-dt-'));
    chmodSync(dir, 0o755);
    await db.query('DROP SCHEMA IF EXISTS org_data_bench CASCADE');
    await db.query("DELETE FROM skillgate.dt_tables WHERE org_id = 'bench'");
    const made = await runDatatable({ action: 'create_table', payload: { table_name: '导入', fields: FIELDS } }, ctx());
    if (made.success !== true) throw new Error(`create_table: ${JSON.stringify(made)}`);
    await db.query('CREATE TABLE org_data_bench."基准" (LIKE org_data_bench."导入" INCLUDING ALL)');
    valid = makeRows(ROWS);
    bad = withInvalid(valid);
    writeFileSync(join(dir, 'valid.json'), JSON.stringify(valid));
    writeFileSync(join(dir, 'invalid.json'), JSON.stringify(bad.rows));
    writeFileSync(join(dir, 'valid.csv'), csv(valid));
    writeFileSync(join(dir, 'valid99.csv'), csv(bad.rows.filter((_, i) => !bad.invalid.has(i))));
    for (const f of ['valid.csv', 'valid99.csv']) chmodSync(join(dir, f), 0o644);
    try {
      await db.query(`COPY org_data_bench."基准" (${qcols}) FROM '${join(dir, 'valid.csv')}' WITH (FORMAT csv)`);
    } catch (err) {
      useCopy = false;
      process.stderr.write(`bench: server-side COPY unavailable (${(err as Error).message}); baseline = one multi-row INSERT … unnest\n`);
    }
  };

  const baseline = (file: 'valid.csv' | 'valid99.csv', rows: () => ReadonlyArray<Record<string, unknown>>) => async () => {
    await db.query('TRUNCATE org_data_bench."基准"');
    if (useCopy) {
      await db.query(`COPY org_data_bench."基准" (${qcols}) FROM '${join(dir, file)}' WITH (FORMAT csv)`);
      return;
    }
    const r = rows();
    const arrays = COLS.map((c) => r.map((x) => String(x[c])));
    const types = ['text', 'text', 'bigint', 'numeric', 'date', 'timestamp', 'boolean', 'text'];
    await db.query(
      `INSERT INTO org_data_bench."基准" (${qcols}) SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`,
      arrays,
    );
  };

  const subject = (file: string, expectInserted: number, expectFailed: number) => async () => {
    await db.query('TRUNCATE org_data_bench."导入"');
    const r = await runDatatable({ action: 'insert_from_file', payload: { table_name: '导入', file } }, ctx());
    const errors = r.errors as unknown[] | undefined;
    if (
      r.inserted !== expectInserted ||
      r.failed !== expectFailed ||
      (errors?.length ?? 0) < expectFailed ||
      r.verified_total !== expectInserted
    ) {
      throw new Error(
        `insert_from_file ${file}: inserted ${String(r.inserted)}, failed ${String(r.failed)}, errors ${errors?.length}, verified_total ${String(r.verified_total)}`,
      );
    }
  };

  // Per case: the times of every call (ms), to print the throughput ratio after the last case.
  const times = [0, 1].map(() => ({ base: [] as number[], subj: [] as number[] }));
  const timed = (fn: () => Promise<void>, into: number[]) => async () => {
    const t0 = performance.now();
    await fn();
    into.push(performance.now() - t0);
  };
  const median = (xs: number[]): number => {
    const s = xs.slice(1).sort((a, b) => a - b); // the first call is the harness's warm-up
    const m = Math.floor(s.length / 2);
    return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const printThroughput = () => {
    const ratio = (k: number) => (median(times[k]!.base) / median(times[k]!.subj)).toFixed(3);
    process.stdout.write(
      `bench: datatable throughput ratio (COPY time / insert_from_file time, target ≥ 0.5): all valid ${ratio(0)}, 1% invalid ${ratio(1)}\n`,
    );
  };
  const teardown = async () => undefined;
  return [
    {
      name: `datatable insert_from_file ${ROWS} rows × 8 cols`,
      baselineName: 'raw COPY of the same rows',
      iterations: 1,
      rounds: 5,
      setup,
      baseline: timed(
        baseline('valid.csv', () => valid),
        times[0]!.base,
      ),
      subject: timed(subject('valid.json', ROWS, 0), times[0]!.subj),
      teardown,
      target: 2,
    },
    {
      name: `datatable insert_from_file, 1% invalid (1000 in errors)`,
      baselineName: 'raw COPY of the 99% valid rows',
      iterations: 1,
      rounds: 5,
      setup,
      baseline: timed(
        baseline('valid99.csv', () => bad.rows.filter((_, i) => !bad.invalid.has(i))),
        times[1]!.base,
      ),
      subject: timed(subject('invalid.json', ROWS - 1000, 1000), times[1]!.subj),
      teardown: async () => {
        printThroughput();
        await db.query('DROP SCHEMA IF EXISTS org_data_bench CASCADE');
        await db.query("DELETE FROM skillgate.dt_tables WHERE org_id = 'bench'");
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
      target: 2,
    },
  ];
}
