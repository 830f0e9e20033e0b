/**
 * The demo directory of the embedded default (docs/configuration.md): two contacts so the
 * walkthrough needs no import.
 */
import type { Db } from '../store/db.ts';
import { ensureDepartmentPath } from './departments.ts';
import { directoryOrgId } from './org.ts';

/** One demo contact. */
interface DemoContact {
  contactKey: string;
  name: string;
  empNo: string;
  position: string;
  department: readonly string[];
}

/** The seeded contacts: a reporter (报修人) and a maintenance worker (维修工). */
export const DEMO_CONTACTS: readonly DemoContact[] = [
  { contactKey: 'demo_reporter', name: '张三', empNo: 'E1001', position: '报修人', department: ['总部', '行政部'] },
  { contactKey: 'demo_worker', name: '李四', empNo: 'E2001', position: '维修工', department: ['总部', '工程部', '维修班'] },
];

/**
 * Seed {@link DEMO_CONTACTS} into `directoryOrgId(orgId, roleId)`: team role `owner`, web
 * channel id = the contact key, departments `/总部/行政部/` and `/总部/工程部/维修班/`.
 * Idempotent: existing contacts (possibly edited by an operator) are left as they are.
 * @returns how many contacts were created (0 on a second call).
 * @throws the database error.
 */
export async function seedDemoDirectory(db: Db, orgId: string, roleId = 'default'): Promise<number> {
  const org = directoryOrgId(orgId, roleId);
  return db.transaction(async (tx) => {
    let created = 0;
    for (const c of DEMO_CONTACTS) {
      const dept = await ensureDepartmentPath(tx, org, c.department);
      const { rows } = await tx.query(
        `INSERT INTO skillgate.contacts (org_id, contact_key, name, emp_no, position, department, department_id, team_role)
         VALUES ($1, $2, $3, $4, $5, $6, $7::bigint, 'owner')
         ON CONFLICT (org_id, contact_key) DO NOTHING
         RETURNING id`,
        [org, c.contactKey, c.name, c.empNo, c.position, dept.name, dept.id],
      );
      if (rows.length === 0) continue;
      created++;
      await tx.query(
        `INSERT INTO skillgate.contact_channel_ids (org_id, channel, platform_id, contact_key)
         VALUES ($1, 'web', $2, $2) ON CONFLICT (org_id, channel, platform_id) DO NOTHING`,
        [org, c.contactKey],
      );
    }
    return created;
  });
}
