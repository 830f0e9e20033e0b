/**
 * Reading contacts of the directory (web sign-in, the console, actor resolution).
 */
import { toTeamRole } from '../runtime/coerce.ts';
import type { Queryable } from '../store/db.ts';
import type { Contact } from './types.ts';

/** A `skillgate.contacts` row as selected by {@link CONTACT_COLUMNS}. */
export interface ContactRow {
  id: string;
  org_id: string;
  contact_key: string;
  name: string;
  emp_no: string;
  department: string;
  department_id: string | null;
  position: string;
  title: string;
  phone: string;
  email: string;
  tags: string[];
  team_id: string;
  team_role: string;
  is_admin: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The select list of a contact (prefix `c.`). */
export const CONTACT_COLUMNS = `c.id::text AS id, c.org_id, c.contact_key, c.name, c.emp_no, c.department,
  c.department_id::text AS department_id, c.position, c.title, c.phone, c.email, c.tags, c.team_id,
  c.team_role, c.is_admin, c.created_at, c.updated_at`;

/** Map a row and its platform ids to a {@link Contact}. */
export function toContact(r: ContactRow, ids: readonly { channel: string; platform_id: string }[]): Contact {
  const channelIds: Record<string, string[]> = {};
  for (const { channel, platform_id } of ids) (channelIds[channel] ??= []).push(platform_id);
  return {
    id: r.id,
    orgId: r.org_id,
    contactKey: r.contact_key,
    name: r.name,
    empNo: r.emp_no,
    department: r.department,
    departmentId: r.department_id,
    position: r.position,
    title: r.title,
    phone: r.phone,
    email: r.email,
    tags: [...(r.tags ?? [])],
    team: r.team_id,
    teamRole: toTeamRole(r.team_role),
    isAdmin: r.is_admin === true,
    channelIds,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/**
 * The contact `contactKey` of the directory org `orgId` (already resolved with
 * directoryOrgId — R-ORG-02), or null when absent.
 */
export async function findContact(q: Queryable, orgId: string, contactKey: string): Promise<Contact | null> {
  const { rows } = await q.query<ContactRow>(
    `SELECT ${CONTACT_COLUMNS} FROM skillgate.contacts c WHERE c.org_id = $1 AND c.contact_key = $2`,
    [orgId, contactKey],
  );
  const row = rows[0];
  if (!row) return null;
  const ids = await q.query<{ channel: string; platform_id: string }>(
    `SELECT channel, platform_id FROM skillgate.contact_channel_ids
      WHERE org_id = $1 AND contact_key = $2 ORDER BY channel COLLATE "C", platform_id COLLATE "C"`,
    [orgId, contactKey],
  );
  return toContact(row, ids.rows);
}

/** Every contact of the directory org `orgId`, ordered by contact key (code point order). */
export async function listContacts(q: Queryable, orgId: string): Promise<Contact[]> {
  const { rows } = await q.query<ContactRow>(
    `SELECT ${CONTACT_COLUMNS} FROM skillgate.contacts c WHERE c.org_id = $1 ORDER BY c.contact_key COLLATE "C"`,
    [orgId],
  );
  const ids = await q.query<{ contact_key: string; channel: string; platform_id: string }>(
    `SELECT contact_key, channel, platform_id FROM skillgate.contact_channel_ids
      WHERE org_id = $1 ORDER BY contact_key COLLATE "C", channel COLLATE "C", platform_id COLLATE "C"`,
    [orgId],
  );
  const byKey = new Map<string, { channel: string; platform_id: string }[]>();
  for (const r of ids.rows) {
    const list = byKey.get(r.contact_key) ?? [];
    list.push(r);
    byKey.set(r.contact_key, list);
  }
  return rows.map((r) => toContact(r, byKey.get(r.contact_key) ?? []));
}
