import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/db.ts';
import { createTableAction } from '../../src/datatable/structure/table-actions.ts';
import { getTable } from '../../src/datatable/catalog/metadata.ts';
import { grant, revoke, validateGrant } from '../../src/datatable/access/grants.ts';
import {
  accessFromGrants,
  checkAction,
  checkSqlAccess,
  checkStructuralRole,
  effectiveAccess,
  guardOwnerPatch,
  isActionAllowed,
  ownerCondition,
  ownFilter,
  stampOwner,
} from '../../src/datatable/access/permissions.ts';
import type { EffectiveAccess, Grant, TableMeta } from '../../src/datatable/model/types.ts';
import { makeCaller, makeEnv } from './structure-helpers.ts';

const g = (roleId: string, over: Partial<Grant> = {}): Grant => ({
  tableId: 't',
  roleId,
  actions: null,
  rowScope: 'all',
  ownerField: null,
  ...over,
});
const OWN: EffectiveAccess = { actions: 'all', rowScope: 'own', ownerField: '负责人工号' };
const TABLE = {
  title: '工单',
  fields: [
    { title: '负责人工号', uidt: '文本' as const, required: false, unique: false, options: [], precision: null, scale: null, position: 0 },
  ],
};

describe('datatable permissions (pure)', () => {
  it('R-DT-13: a table without grant rows is open to every role', () => {
    expect(accessFromGrants([], ['anyone'])).toMatchObject({ actions: 'all', rowScope: 'all' });
  });

  it('R-DT-14: several roles: actions are the union, row scope the widest', () => {
    const grants = [
      g('a', { actions: ['query'], rowScope: 'own', ownerField: '负责人工号' }),
      g('b', { actions: ['insert'], rowScope: 'all' }),
    ];
    const both = accessFromGrants(grants, ['a', 'b']);
    expect(both.rowScope).toBe('all');
    expect(isActionAllowed(both, 'query') && isActionAllowed(both, 'insert')).toBe(true);
    expect(isActionAllowed(both, 'delete')).toBe(false);
    const onlyA = accessFromGrants(grants, ['a']);
    expect(onlyA).toMatchObject({ rowScope: 'own', ownerField: '负责人工号' });
    expect(isActionAllowed(onlyA, 'insert')).toBe(false);
    expect(accessFromGrants([g('a', { actions: ['query'] }), g('b')], ['a', 'b']).actions).toBe('all');
  });

  it('R-DT-15, A-26: a role of the operator without a grant row on the table makes it open', () => {
    const grants = [g('a', { actions: ['query'], rowScope: 'own', ownerField: 'x' })];
    expect(accessFromGrants(grants, ['a', 'unconfigured'])).toMatchObject({ actions: 'all', rowScope: 'all' });
    expect(accessFromGrants(grants, ['unconfigured'])).toMatchObject({ actions: 'all', rowScope: 'all' });
  });

  it('R-DT-13: grant rows exist and the operator has no role at all ⇒ nothing allowed (fail closed)', () => {
    const a = accessFromGrants([g('a')], ['', '  ']);
    expect(isActionAllowed(a, 'query')).toBe(false);
    expect(checkAction(a, 'query', 'zh-CN', '工单')).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
  });

  it('R-DT-14: own grants of two roles naming different owner fields: a row owned through either is visible', () => {
    const a = accessFromGrants([g('a', { rowScope: 'own', ownerField: 'f1' }), g('b', { rowScope: 'own', ownerField: 'f2' })], ['a', 'b']);
    expect(a.ownerFields).toEqual(['f1', 'f2']);
    const table = { title: 't', fields: ['f1', 'f2'].map((title, position) => ({ ...TABLE.fields[0]!, title, position })) };
    const scope = ownFilter(a, makeCaller(), table);
    expect(scope.ok && scope.owner && ownerCondition(scope.owner, 3)).toEqual({
      sql: '("f1"::text = $3 OR "f2"::text = $3)',
      values: ['E001'],
    });
  });

  it('R-DT-19: own scope with an owner field missing from the table is refused (config)', () => {
    const r = ownFilter({ ...OWN, ownerField: '不存在' }, makeCaller(), TABLE);
    expect(r).toMatchObject({ ok: false, envelope: { success: false, error_type: 'config', non_retriable: true } });
  });

  it('R-DT-20, R-DT-24: own scope without actor_emp_no fails closed', () => {
    for (const empNo of ['', '  ']) {
      const r = ownFilter(OWN, makeCaller({ empNo }), TABLE);
      expect(r).toMatchObject({ ok: false, envelope: { success: false, error_type: 'config' } });
      expect(stampOwner({ a: 1 }, OWN, makeCaller({ empNo }), TABLE)).toMatchObject({ ok: false });
    }
    expect(ownFilter({ actions: 'all', rowScope: 'all', ownerField: null }, makeCaller({ empNo: '' }), TABLE)).toEqual({
      ok: true,
      owner: null,
    });
  });

  it("R-DT-18: stamping overwrites a forged owner value with the operator's employee number", () => {
    expect(stampOwner({ 负责人工号: 'E999', 描述: 'x' }, OWN, makeCaller(), TABLE)).toEqual({
      ok: true,
      record: { 负责人工号: 'E001', 描述: 'x' },
    });
    const all: EffectiveAccess = { actions: 'all', rowScope: 'all', ownerField: null };
    expect(stampOwner({ 负责人工号: 'E999' }, all, makeCaller(), TABLE)).toEqual({ ok: true, record: { 负责人工号: 'E999' } });
  });

  it("R-DT-21: an update may not change the owner field (repeating one's own number is allowed)", () => {
    expect(guardOwnerPatch({ 负责人工号: 'E999' }, OWN, makeCaller())).toMatchObject({ success: false, error_type: 'recoverable' });
    expect(guardOwnerPatch({ 负责人工号: null }, OWN, makeCaller())).toMatchObject({ success: false });
    expect(guardOwnerPatch({ 负责人工号: 'E001', 描述: 'y' }, OWN, makeCaller())).toBeNull();
    expect(guardOwnerPatch({ 描述: 'y' }, OWN, makeCaller())).toBeNull();
    expect(guardOwnerPatch({ 负责人工号: 'E999' }, { actions: 'all', rowScope: 'all', ownerField: null }, makeCaller())).toBeNull();
  });

  it('R-DT-25, D-01: structural actions need team_role owner or admin; the switch turns the rule off', () => {
    expect(checkStructuralRole(makeCaller({ teamRole: 'owner' }))).toBeNull();
    expect(checkStructuralRole(makeCaller({ teamRole: 'admin' }))).toBeNull();
    expect(checkStructuralRole(makeCaller({ teamRole: 'member', isAdmin: true }))).toMatchObject({ success: false, error_type: 'config' });
    expect(checkStructuralRole(makeCaller({ teamRole: 'member', lang: 'en' }))?.user_message).toMatch(/owner or admin/);
    expect(checkStructuralRole(makeCaller({ teamRole: 'member' }), { enforce: false })).toBeNull();
  });

  it('R-DT-19: a grant is validated: known actions, own needs an existing owner field, all takes none', () => {
    const t = { id: 't', fields: TABLE.fields };
    expect(validateGrant(t, { tableId: 't', roleId: 'r', actions: ['query', 'query', 'insert'] })).toMatchObject({
      ok: true,
      grant: { actions: ['query', 'insert'] },
    });
    expect(validateGrant(t, { tableId: 't', roleId: 'r', actions: ['select'] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/unknown action/),
    });
    expect(validateGrant(t, { tableId: 't', roleId: 'r', rowScope: 'own' })).toMatchObject({ ok: false });
    expect(validateGrant(t, { tableId: 't', roleId: 'r', rowScope: 'own', ownerField: '工号' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/does not exist/),
    });
    expect(validateGrant(t, { tableId: 't', roleId: 'r', ownerField: '负责人工号' })).toMatchObject({ ok: false });
    expect(validateGrant(t, { tableId: 't', roleId: ' ' })).toMatchObject({ ok: false });
    expect(validateGrant(t, { tableId: 't', roleId: 'r', rowScope: 'mine' as never })).toMatchObject({ ok: false });
  });
});

describeEachEngine('datatable permissions (database)', (getDb) => {
  let db: Db;
  let table: TableMeta;
  beforeAll(async () => {
    db = getDb();
    await migrate(db);
    const env = makeEnv(db);
    const r = await createTableAction(env, {
      table_name: '工单',
      fields: [
        { title: '负责人工号', uidt: '文本' },
        { title: '描述', uidt: '文本' },
      ],
    });
    table = (await getTable(db, 'acme', r.id as string))!;
    await db.query(
      `INSERT INTO "org_data_acme"."工单" ("负责人工号", "描述") VALUES ('E001', 'a'), ('E002', 'b'), ('E001', 'c'), (NULL, 'd')`,
    );
    await createTableAction(env, { table_name: '公开表', fields: [{ title: 'x', uidt: '文本' }] });
  });

  it('R-DT-13: no grant rows ⇒ any role gets full access', async () => {
    expect(await effectiveAccess(db, table, ['whoever'])).toMatchObject({ actions: 'all', rowScope: 'all', ownerField: null });
  });

  it("R-DT-16, R-DT-17, R-DT-22: the owner condition keeps only the operator's rows, also in counts and id conditions", async () => {
    expect(
      await grant(db, table, {
        tableId: table.id,
        roleId: 'sales',
        actions: ['query', 'update'],
        rowScope: 'own',
        ownerField: '负责人工号',
      }),
    ).toMatchObject({ ok: true });
    const access = await effectiveAccess(db, table, ['sales']);
    expect(access).toMatchObject({ rowScope: 'own', ownerField: '负责人工号' });
    expect(checkAction(access, 'delete_by')).toMatchObject({ success: false, permission_denied: true });
    expect(checkAction(access, 'query')).toBeNull();
    const scope = ownFilter(access, makeCaller({ roleIds: ['sales'], empNo: 'E001' }), table);
    if (!scope.ok || !scope.owner) throw new Error('expected an owner scope');
    const cond = ownerCondition(scope.owner, 2);
    const { rows } = await db.query<{ 描述: string }>(
      `SELECT "描述" FROM "org_data_acme"."工单" WHERE "描述" <> $1 AND ${cond.sql} ORDER BY id`,
      ['zzz', ...cond.values],
    );
    expect(rows.map((r) => r.描述)).toEqual(['a', 'c']);
    const count = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "org_data_acme"."工单" WHERE ${ownerCondition(scope.owner, 1).sql}`,
      [scope.owner.empNo],
    );
    expect(count.rows[0]!.n).toBe('2');
    const foreignId = (await db.query<{ id: string }>(`SELECT id FROM "org_data_acme"."工单" WHERE "负责人工号" = 'E002'`)).rows[0]!.id;
    const del = await db.query(
      `UPDATE "org_data_acme"."工单" SET "描述" = 'hacked' WHERE id = $1 AND ${ownerCondition(scope.owner, 2).sql}`,
      [foreignId, 'E001'],
    );
    expect(del.rowCount).toBe(0);
  });

  it('R-DT-14, A-26: the same operator with a second, unconfigured role sees the table open', async () => {
    expect(await effectiveAccess(db, table, ['sales', 'ops'])).toMatchObject({ actions: 'all', rowScope: 'all' });
    await grant(db, table, { tableId: table.id, roleId: 'ops', actions: ['insert'] });
    const both = await effectiveAccess(db, table, ['sales', 'ops']);
    expect(both.rowScope).toBe('all');
    expect(isActionAllowed(both, 'insert') && isActionAllowed(both, 'query') && !isActionAllowed(both, 'delete')).toBe(true);
    // A role that is not configured while others are: open.
    expect(await effectiveAccess(db, table, ['default'])).toMatchObject({ actions: 'all' });
  });

  it('R-DT-23, D-03, R-DT-26, D-04: SQL needs allow_sql and no own-scope table for the operator', async () => {
    expect(await checkSqlAccess(db, makeCaller({ roleIds: ['sales'] }))).toMatchObject({
      success: false,
      error_type: 'config',
      permission_denied: true,
    });
    expect((await checkSqlAccess(db, makeCaller({ roleIds: ['sales'] })))?.user_message).toContain('工单');
    // With a second role whose grant has row scope all, the widest scope wins: no own-scope table left.
    expect(await checkSqlAccess(db, makeCaller({ roleIds: ['sales', 'ops'] }))).toBeNull();
    expect(await checkSqlAccess(db, makeCaller({ roleIds: ['default'] }))).toBeNull();
    expect(await checkSqlAccess(db, makeCaller({ roleIds: ['default'], allowSql: false }))).toMatchObject({
      success: false,
      error_type: 'config',
    });
    // A role with own scope in another org is not affected here.
    expect(await checkSqlAccess(db, makeCaller({ orgId: 'elsewhere', roleIds: ['sales'] }))).toBeNull();
  });

  it('R-DT-13: revoking the last grant opens the table again', async () => {
    expect(await revoke(db, table.id, 'sales')).toBe(true);
    expect(await revoke(db, table.id, 'sales')).toBe(false);
    expect(await revoke(db, table.id, 'ops')).toBe(true);
    expect(await effectiveAccess(db, table, ['sales'])).toMatchObject({ actions: 'all', rowScope: 'all' });
    expect(await checkSqlAccess(db, makeCaller({ roleIds: ['sales'] }))).toBeNull();
  });

  it('R-DT-19: a grant naming a field that is not on the table is not stored', async () => {
    expect(await grant(db, table, { tableId: table.id, roleId: 'x', rowScope: 'own', ownerField: '工号' })).toMatchObject({ ok: false });
    expect((await db.query('SELECT 1 FROM skillgate.dt_grants WHERE role_id = $1', ['x'])).rowCount).toBe(0);
  });
});
