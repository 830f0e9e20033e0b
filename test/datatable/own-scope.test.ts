import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { grant } from '../../src/datatable/access/grants.ts';
import { getTable } from '../../src/datatable/catalog/metadata.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { rowsEnv, type RowsEnv } from './rows-env.ts';

/** Role `sales` has row scope own on 客户 (owner field 负责人工号); role `default` is open. */
describeEachEngine('own row scope through the row actions', (db) => {
  let t: RowsEnv;
  let id: string;
  const e1 = { role_id: 'sales', actor_emp_no: 'E1', team_role: 'member' };
  const e2 = { role_id: 'sales', actor_emp_no: 'E2', team_role: 'member' };
  const ownersInDb = async () => {
    const { rows } = await db().query<{ o: string; n: string }>(
      `SELECT "负责人工号" AS o, count(*)::text AS n FROM org_data_acme."客户" GROUP BY 1 ORDER BY 1`,
    );
    return Object.fromEntries(rows.map((r) => [r.o, Number(r.n)]));
  };
  beforeAll(async () => {
    t = await rowsEnv(db());
    id = await t.table('客户', [
      { title: '名称', uidt: '文本' },
      { title: '负责人工号', uidt: '文本' },
      { title: '级别', uidt: '整数' },
    ]);
    const table = (await getTable(db(), 'acme', id))!;
    expect((await grant(db(), table, { tableId: id, roleId: 'sales', rowScope: 'own', ownerField: '负责人工号' })).ok).toBe(true);
    const seed = [
      ...Array.from({ length: 3 }, (_, i) => ({ 名称: `e1-${i}`, 负责人工号: 'E1', 级别: 1 })),
      ...Array.from({ length: 12 }, (_, i) => ({ 名称: `e2-${i}`, 负责人工号: 'E2', 级别: 1 })),
    ];
    // the admin line (role default, open) seeds rows for both owners
    expect(await t.call({ action: 'insert_batch', payload: { table_id: id, records: seed } })).toMatchObject({ inserted: 15 });
  });

  it("R-DT-16/R-DT-22 (acceptance): query and its totals show only the operator's rows", async () => {
    const r = await t.call({ action: 'query', payload: { table_id: id } }, e1);
    expect((r.list as Array<Record<string, unknown>>).every((x) => x.负责人工号 === 'E1')).toBe(true);
    expect(r.pageInfo).toMatchObject({ totalRows: 3 });
    const other = await t.call(
      { action: 'query', payload: { table_id: id, filters: [{ field: '负责人工号', op: 'eq', value: 'E2' }] } },
      e1,
    );
    expect(other.pageInfo).toMatchObject({ totalRows: 0 });
  });

  it('R-DT-22 (acceptance): aggregate counts are restricted too', async () => {
    const r = await t.call(
      {
        action: 'aggregate',
        payload: {
          table_id: id,
          metrics: [
            { op: 'count', alias: 'n' },
            { field: '级别', op: 'sum', alias: 's' },
          ],
        },
      },
      e1,
    );
    expect(r.rows).toEqual([{ n: 3, s: 3 }]);
    const g = await t.call(
      { action: 'aggregate', payload: { table_id: id, group_by: '负责人工号', metrics: [{ op: 'count', alias: 'n' }] } },
      e2,
    );
    expect(g.rows).toEqual([{ 负责人工号: 'E2', n: 12 }]);
  });

  it('R-DT-16 (acceptance): update_by touches only own rows', async () => {
    const r = await t.call(
      { action: 'update_by', payload: { table_id: id, filters: [{ field: '级别', op: 'eq', value: 1 }], data: { 级别: 2 } } },
      e1,
    );
    expect(r).toMatchObject({ success: true, updated: 3 });
    const { rows } = await db().query<{ n: string }>(`SELECT count(*)::text AS n FROM org_data_acme."客户" WHERE "级别" = 2`);
    expect(rows[0]!.n).toBe('3');
  });

  it('R-DT-17: id-based update / delete / delete_batch of a foreign row find nothing', async () => {
    const { rows } = await db().query<{ id: string }>(
      `SELECT id::text FROM org_data_acme."客户" WHERE "负责人工号" = 'E2' ORDER BY id LIMIT 2`,
    );
    const foreign = rows.map((r) => Number(r.id));
    expect(await t.call({ action: 'update', payload: { table_id: id, row_id: foreign[0], data: { 级别: 9 } } }, e1)).toMatchObject({
      success: false,
      not_found: true,
    });
    expect(await t.call({ action: 'delete', payload: { table_id: id, row_id: foreign[0] } }, e1)).toMatchObject({
      success: false,
      not_found: true,
    });
    expect(await t.call({ action: 'delete_batch', payload: { table_id: id, row_ids: foreign } }, e1)).toMatchObject({
      success: true,
      deleted: 0,
      requested: 2,
    });
    expect((await ownersInDb()).E2).toBe(12);
  });

  it('R-DT-18: inserts stamp the owner field; a forged value is overwritten (insert, batch, file, upsert)', async () => {
    const one = await t.call({ action: 'insert', payload: { table_id: id, data: { 名称: 'forged', 负责人工号: 'E2' } } }, e1);
    expect(one).toMatchObject({ success: true, 负责人工号: 'E1' });
    await t.call({ action: 'insert_batch', payload: { table_id: id, records: [{ 名称: 'b1', 负责人工号: 'E9' }, { 名称: 'b2' }] } }, e1);
    writeFileSync(join(t.ws, 'own.json'), JSON.stringify([{ 名称: 'f1', 负责人工号: 'E2' }]));
    const file = await t.call({ action: 'insert_from_file', payload: { table_id: id, file: 'own.json' } }, e1);
    expect(file).toMatchObject({ inserted: 1, verified_total: 7 }); // R-DT-22: verified_total counts own rows
    const up = await t.call(
      { action: 'upsert', payload: { table_id: id, key_fields: ['名称'], data: { 名称: 'e2-0', 负责人工号: 'E2', 级别: 5 } } },
      e1,
    );
    expect(up).toMatchObject({ inserted: 1, updated: 0 }); // E2's row of that name is not matched: a new own row
    expect(await ownersInDb()).toEqual({ E1: 8, E2: 12 });
  });

  it('R-DT-21: the owner field cannot be changed by update / update_by', async () => {
    const mine = await t.call({ action: 'query', payload: { table_id: id, limit: 1 } }, e1);
    const rowId = (mine.list as Array<{ id: number }>)[0]!.id;
    expect(await t.call({ action: 'update', payload: { table_id: id, row_id: rowId, data: { 负责人工号: 'E2' } } }, e1)).toMatchObject({
      success: false,
      error_type: 'recoverable',
    });
    expect(
      await t.call({ action: 'update_by', payload: { table_id: id, filters: { 名称: 'b1' }, data: { 负责人工号: 'E2' } } }, e1),
    ).toMatchObject({ success: false });
    expect((await ownersInDb()).E1).toBe(8);
  });

  it('R-DT-16 (acceptance): delete_by deletes only own rows (and counts only own rows for the token)', async () => {
    const r = await t.call(
      { action: 'delete_by', payload: { table_id: id, filters: [{ field: '名称', op: 'contains', value: 'e' }] } },
      e2,
    );
    expect(r).toMatchObject({ need_confirm: true, affected: 12 });
    const done = await t.call(
      {
        action: 'delete_by',
        payload: { table_id: id, filters: [{ field: '名称', op: 'contains', value: 'e' }], confirm_token: r.confirm_token },
      },
      e2,
    );
    expect(done).toMatchObject({ success: true, deleted: 12 });
    expect(await ownersInDb()).toEqual({ E1: 8 });
  });

  it('R-DT-20 (acceptance): own scope fails closed without actor_emp_no, for reads and writes', async () => {
    for (const action of ['query', 'aggregate', 'insert', 'update_by', 'delete_by', 'delete', 'upsert', 'insert_batch']) {
      const r = await t.call(
        {
          action,
          payload: {
            table_id: id,
            metrics: [{ op: 'count' }],
            data: { 名称: 'x' },
            records: [{ 名称: 'x' }],
            key_fields: ['名称'],
            filters: { 名称: 'x' },
            row_id: 1,
          },
        },
        { role_id: 'sales', actor_emp_no: '', team_role: 'member' },
      );
      expect(r, action).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
    }
    expect((await ownersInDb()).E1).toBe(8);
  });

  it('R-DT-24/D-09: the employee number comes from the context (legacy emp_no fallback), never from input', async () => {
    const viaInput = await t.call(
      { action: 'query', payload: { table_id: id }, actor_emp_no: 'E1' },
      { role_id: 'sales', actor_emp_no: '' },
    );
    expect(viaInput).toMatchObject({ success: false, error_type: 'config' });
    const legacy = await t.call({ action: 'query', payload: { table_id: id } }, { role_id: 'sales', actor_emp_no: '', emp_no: 'E1' });
    expect(legacy.pageInfo).toMatchObject({ totalRows: 8 });
  });

  it('R-DT-19: an own grant whose owner field is missing fails closed', async () => {
    const t2 = await t.table('配置错', [{ title: '名称', uidt: '文本' }]);
    await db().query(
      `INSERT INTO skillgate.dt_grants (table_id, role_id, row_scope, owner_field) VALUES ($1::uuid, 'sales', 'own', '不存在')`,
      [t2],
    );
    const r = await t.call({ action: 'query', payload: { table_id: t2 } }, e1);
    expect(r).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
  });
});
