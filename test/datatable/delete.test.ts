import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { backupTimestamp } from '../../src/datatable/write/delete-protection.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';

it('A-57: backup timestamps are UTC YYYYMMDD_HHMMSS', () => {
  expect(backupTimestamp(new Date('2026-03-01T02:04:05.678Z'))).toBe('20260301_020405');
});

describeEachEngine('datatable deletes and delete protection', (db) => {
  let t: RowsEnv;
  let id: string;
  const backups = () =>
    readdirSync(t.ws)
      .filter((f) => f.startsWith('del_backup_'))
      .sort();
  const fill = async (group: string, n: number) => {
    const records = Array.from({ length: n }, (_, i) => ({ 组: group, 序号: i + 1 }));
    const r = await t.call({ action: 'insert_batch', payload: { table_id: id, records } });
    expect(r.inserted).toBe(n);
  };
  const groupCount = async (group: string) => {
    const r = await t.call({ action: 'query', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: group }], limit: 1 } });
    return (r.pageInfo as { totalRows: number }).totalRows;
  };
  beforeAll(async () => {
    t = await rowsEnv(db());
    id = await t.table('任务', [
      { title: '组', uidt: '文本' },
      { title: '序号', uidt: '整数' },
    ]);
  });
  beforeEach(() => {
    t.clock.now = new Date(t.clock.now.getTime() + 3_600_000); // distinct backup names per test
  });

  it('R-DT-87/R-DT-88/R-DT-91 (acceptance): 11-row delete_by ⇒ token; same call + token deletes and leaves a backup', async () => {
    await fill('g11', 11);
    const call = { action: 'delete_by', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'g11' }] } };
    const first = await t.call(call);
    expect(first).toMatchObject({ need_confirm: true, executed: false, affected: 11, action: 'delete_by' });
    expect(first.success).toBeUndefined();
    expect(typeof first.confirm_token).toBe('string');
    expect(first.received).toEqual({ filters: [{ field: '组', op: 'eq', value: 'g11' }] }); // R-ACT-07 echo
    expect(await groupCount('g11')).toBe(11);
    expect(backups()).toEqual([]);
    const second = await t.call({ ...call, payload: { ...call.payload, confirm_token: first.confirm_token } });
    expect(second).toMatchObject({ success: true, deleted: 11 });
    expect(second.backup_file).toMatch(/^del_backup_任务_\d{8}_\d{6}\.json$/);
    expect(await groupCount('g11')).toBe(0);
    const saved = JSON.parse(readFileSync(join(t.ws, String(second.backup_file)), 'utf8')) as Array<Record<string, unknown>>;
    expect(saved).toHaveLength(11);
    expect(saved.map((r) => r.序号)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    expect(Object.keys(saved[0]!)).toEqual(['id', '组', '序号', 'created_at']);
    // single use
    await fill('g11', 11);
    const again = await t.call({ ...call, payload: { ...call.payload, confirm_token: first.confirm_token } });
    expect(again).toMatchObject({ success: false, token_refused: 'consumed' });
    expect(await groupCount('g11')).toBe(11);
  });

  it('A-29 (acceptance): a token with changed filters is refused (and not consumed); a fresh token is issued', async () => {
    await fill('gA', 12);
    await fill('gB', 12);
    const first = await t.call({ action: 'delete_by', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'gA' }] } });
    const token = first.confirm_token as string;
    const changed = await t.call({
      action: 'delete_by',
      payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'gB' }], confirm_token: token },
    });
    expect(changed).toMatchObject({ success: false, error_type: 'recoverable', token_refused: 'mismatch', need_confirm: true });
    expect(changed.confirm_token).not.toBe(token);
    expect(await groupCount('gB')).toBe(12);
    const ok = await t.call({ action: 'delete_by', payload: { table_id: id, filters: { 组: 'gA' }, confirm_token: token } });
    expect(ok).toMatchObject({ success: true, deleted: 12 }); // same parameters (field-map form) ⇒ still valid
  });

  it('R-DT-88 (acceptance): a token presented after 5 minutes is refused (injectable clock)', async () => {
    await fill('gT', 11);
    const call = { action: 'delete_by', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'gT' }] } };
    const first = await t.call(call);
    t.clock.now = new Date(t.clock.now.getTime() + 5 * 60_000 + 1000);
    const late = await t.call({ ...call, payload: { ...call.payload, confirm_token: first.confirm_token } });
    expect(late).toMatchObject({ success: false, token_refused: 'expired' });
    expect(await groupCount('gT')).toBe(11);
    const fresh = late.confirm_token as string;
    t.clock.now = new Date(t.clock.now.getTime() + 4 * 60_000 + 59_000);
    expect(await t.call({ ...call, payload: { ...call.payload, confirm_token: fresh } })).toMatchObject({ success: true, deleted: 11 });
  });

  it('R-DT-87: 10 rows delete without a token (still backed up); R-DT-41 shape', async () => {
    await fill('g10', 10);
    const r = await t.call({ action: 'delete_by', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'g10' }] } });
    expect(Object.keys(r).sort()).toEqual(['backup_file', 'deleted', 'display_md', 'success']);
    expect(r.display_md).toMatch(/中的 10 条记录。删除前的备份：del\\_backup\\_/);
    expect(r).toMatchObject({ success: true, deleted: 10 });
    expect(backups()).toContain(r.backup_file);
  });

  it('D-05: chat_mode false executes > 10 rows without a token, and still backs up', async () => {
    await fill('gC', 15);
    const r = await t.call(
      { action: 'delete_by', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'gC' }] } },
      { chat_mode: false },
    );
    expect(r).toMatchObject({ success: true, deleted: 15 });
    expect(JSON.parse(readFileSync(join(t.ws, String(r.backup_file)), 'utf8'))).toHaveLength(15);
  });

  it('R-DT-40/R-DT-89: delete_batch counts row_ids; > 10 ⇒ token; ≤ 10 deletes with a backup', async () => {
    await fill('gD', 12);
    const q = await t.call({ action: 'query', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'gD' }], sort: 'id' } });
    const ids = (q.list as Array<{ id: number }>).map((r) => r.id);
    const big = await t.call({ action: 'delete_batch', payload: { table_id: id, row_ids: ids.slice(0, 11) } });
    expect(big).toMatchObject({ need_confirm: true, affected: 11 });
    const small = await t.call({ action: 'delete_batch', payload: { table_id: id, row_ids: [...ids.slice(0, 3), 99999999] } });
    expect(small).toMatchObject({ success: true, deleted: 3, requested: 4 });
    expect(JSON.parse(readFileSync(join(t.ws, String(small.backup_file)), 'utf8')).map((r: { id: number }) => r.id)).toEqual(
      ids.slice(0, 3),
    );
    // the same ids (in any order) with the token: the rows still there are deleted
    const withToken = await t.call({
      action: 'delete_batch',
      payload: { table_id: id, row_ids: ids.slice(0, 11).reverse(), confirm_token: big.confirm_token },
    });
    expect(withToken).toMatchObject({ success: true, deleted: 8, requested: 11 });
    const other = await t.call({
      action: 'delete_batch',
      payload: { table_id: id, row_ids: ids.slice(0, 11), confirm_token: big.confirm_token },
    });
    expect(other).toMatchObject({ success: false, token_refused: 'consumed' });
  });

  it('R-DT-90/R-DT-39: single-row delete ⇒ true, no confirmation, no backup; a missing row ⇒ not found', async () => {
    await fill('gS', 1);
    const q = await t.call({ action: 'query', payload: { table_id: id, filters: [{ field: '组', op: 'eq', value: 'gS' }] } });
    const rowId = (q.list as Array<{ id: number }>)[0]!.id;
    const before = backups();
    expect(await t.call({ action: 'delete', payload: { table_id: id, row_id: rowId } })).toEqual({
      success: true,
      result: true,
      display_md: expect.stringContaining(`的记录 id ${rowId}。`),
    });
    expect(backups()).toEqual(before);
    expect(await t.call({ action: 'delete', payload: { table_id: id, row_id: rowId } })).toMatchObject({ success: false, not_found: true });
  });

  it('R-DT-93: empty filters / row_ids are refused', async () => {
    for (const payload of [{ filters: [] }, { filters: undefined }, { filters: {} }, { row_ids: [] }]) {
      const action = 'row_ids' in payload ? 'delete_batch' : 'delete_by';
      const r = await t.call({ action, payload: { table_id: id, ...payload } });
      expect(r, JSON.stringify(payload)).toMatchObject({ success: false, error_type: 'recoverable' });
    }
  });

  it('R-DT-92: a failed backup is logged and does not block the delete', async () => {
    await fill('gR', 2);
    // a workspace that is a file (writes fail even for root) and one that does not exist
    const ro = join(mkdtempSync(join(tmpdir(), 'sg-ro-')), 'file');
    writeFileSync(ro, 'x');
    const missing = join(tmpdir(), 'sg-no-such-dir', 'x');
    for (const ws of [missing, ro]) {
      const r = await t.call(
        {
          action: 'delete_by',
          payload: {
            table_id: id,
            filters: [
              { field: '组', op: 'eq', value: 'gR' },
              { field: '序号', op: 'eq', value: ws === ro ? 2 : 1 },
            ],
          },
        },
        { workspace_dir: ws },
      );
      expect(r).toMatchObject({ success: true, deleted: 1, backup_file: null });
      expect(typeof r.backup_error).toBe('string');
    }
    expect(t.logs()).toMatch(/delete backup failed/);
  });
});
