/**
 * actor_department_path from the directory: format, order, disabled nodes,
 * unknown departments, the 20-level cap on a cyclic parent chain, no department.
 */
import { beforeAll, expect, it } from 'vitest';
import { resolveActor } from '../../src/identity/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { importJson } from './helpers.ts';

const ORG = 'deptorg';

describeEachEngine('identity: department path', (db) => {
  const actor = (id: string) =>
    resolveActor(db(), { orgId: ORG, roleId: 'default', channel: 'telegram', platformId: id, nickname: 'nick' });

  beforeAll(async () => {
    await migrate(db());
    const r = await importJson(db(), ORG, {
      departments: [{ path: '/总部/销售中心/销售一部/' }, { path: '/总部/研发中心/平台组/' }, { path: '/总部/研发中心/', disabled: true }],
      contacts: [
        { contact_key: 'sales1', name: '甲', department: '/总部/销售中心/销售一部/', telegram: '1' },
        { contact_key: 'platform', name: '乙', department: '平台组', telegram: '2' },
        { contact_key: 'orphan', name: '丙', department: '外包团队', telegram: '3' },
        { contact_key: 'nodept', name: '丁', telegram: '4' },
        { contact_key: 'cyclic', name: '戊', telegram: '5' },
      ],
    });
    expect(r.errors).toEqual([]);
    // Dirty data: A → C → B → A (each the parent of the previous), the contact sits in C.
    const ins = async (name: string, path: string) =>
      (
        await db().query<{ id: string }>(
          `INSERT INTO skillgate.departments (org_id, name, path) VALUES ($1, $2, $3) RETURNING id::text AS id`,
          [ORG, name, path],
        )
      ).rows[0]!.id;
    const a = await ins('环A', '/环A/');
    const b = await ins('环B', '/环A/环B/');
    const c = await ins('环C', '/环A/环B/环C/');
    await db().query('UPDATE skillgate.departments SET parent_id = $2::bigint WHERE id = $1::bigint', [b, a]);
    await db().query('UPDATE skillgate.departments SET parent_id = $2::bigint WHERE id = $1::bigint', [c, b]);
    await db().query('UPDATE skillgate.departments SET parent_id = $2::bigint WHERE id = $1::bigint', [a, c]);
    await db().query(
      `UPDATE skillgate.contacts SET department_id = $2::bigint, department = '环C' WHERE org_id = $1 AND contact_key = 'cyclic'`,
      [ORG, c],
    );
  });

  it('R-DEPT-01, R-DEPT-02, R-DEPT-03: a 3-level tree gives /top/…/own/, own last, no org root', async () => {
    const a = await actor('1');
    expect(a.fields.actor_department_path).toBe('/总部/销售中心/销售一部/');
    expect(a.fields.actor_department).toBe('销售一部');
    const segs = a.fields.actor_department_path.split('/').filter(Boolean);
    expect(segs.at(-1)).toBe(a.fields.actor_department);
    expect(segs[0]).toBe('总部');
    expect(a.fields.actor_department_path).not.toContain(ORG);
  });

  it('R-DEPT-06: a disabled middle department stays in the path', async () => {
    const { rows } = await db().query<{ disabled: boolean }>(
      `SELECT disabled FROM skillgate.departments WHERE org_id = $1 AND path = '/总部/研发中心/'`,
      [ORG],
    );
    expect(rows[0]!.disabled).toBe(true);
    expect((await actor('2')).fields.actor_department_path).toBe('/总部/研发中心/平台组/');
  });

  it('R-DEPT-05: a department not in the org tree degrades to /<name>/', async () => {
    const a = await actor('3');
    expect(a.fields.actor_department).toBe('外包团队');
    expect(a.fields.actor_department_path).toBe('/外包团队/');
  });

  it('R-DEPT-04: no department gives ""', async () => {
    const a = await actor('4');
    expect(a.known).toBe(true);
    expect(a.fields.actor_department).toBe('');
    expect(a.fields.actor_department_path).toBe('');
  });

  it('R-DEPT-07: a cyclic parent chain is cut at 20 segments, ending with the own department', async () => {
    const segs = (await actor('5')).fields.actor_department_path.split('/').filter(Boolean);
    expect(segs).toHaveLength(20);
    expect(segs.at(-1)).toBe('环C');
    // walking up from 环C: 环C, 环B, 环A, 环C, … — the 20th ancestor is 环B, now the top
    expect(segs.slice(-4)).toEqual(['环C', '环A', '环B', '环C']);
    expect(segs[0]).toBe('环B');
  });
});
