/**
 * Who sent a message: the directory lookup that fills the actor_* keys of the fixed context
 * (R-CTX-07/08, R-ADM-01..03, R-DEPT-01..08, R-ORG-02).
 */
import { applyAdminProxyFill } from '../runtime/fixed.ts';
import type { Queryable } from '../store/db.ts';
import { CONTACT_COLUMNS, toContact, type ContactRow } from './contacts.ts';
import { departmentPathFor } from './departments.ts';
import { directoryOrgId } from './org.ts';
import { ACTOR_FIELD_KEYS, type ActorFields, type Lang, type ResolvedActor, type TeamRole } from './types.ts';
import { emptyFixedContext } from '../runtime/fixed.ts';

/** Arguments of {@link resolveActor}. */
export interface ResolveActorArgs {
  /** The role's raw org id; "" falls back to `r_<roleId>` (R-ORG-02). */
  orgId: string;
  roleId: string;
  /** `telegram`, `feishu`, `web`, `web_admin`… */
  channel: string;
  /** The primary platform id (on web: the contact key). */
  platformId: string;
  /** Every id the event carries (Feishu `{open_id, union_id, user_id}`); any may match. */
  platformIds?: Record<string, string>;
  /** The channel nickname (R-CTX-07 fallback). */
  nickname: string;
  lang?: Lang;
}

/** The actor_* fields with every value empty (R-CTX-03). */
export function emptyActorFields(): ActorFields {
  const empty = emptyFixedContext();
  return Object.fromEntries(ACTOR_FIELD_KEYS.map((k) => [k, empty[k]])) as ActorFields;
}

/** Channels whose platform id is the contact key itself (the web sign-in and MCP tokens are per contact). */
const KEYED_BY_CONTACT = new Set(['web', 'web_admin', 'mcp']);

/**
 * Resolve the sender against the directory of `directoryOrgId(orgId, roleId)`.
 *
 * A contact matches when one of its platform ids of `channel` equals `platformId` or any
 * value of `platformIds` (the primary id wins when several contacts match); on `web` and
 * `web_admin` the contact key itself also matches.
 *
 * Known: `actor_name` = profile name, else `nickname` (R-CTX-07); `actor_department` the bare
 * text (R-CTX-08); `actor_department_path` per R-DEPT-01..07; `actor_key` the contact key;
 * `actor_id` the internal id. Unknown: `known:false`, `contactKey` `<channel>:<platformId>`,
 * every field empty but `actor_name` = `nickname`, team role member, not admin.
 * @throws the database error.
 */
export async function resolveActor(q: Queryable, args: ResolveActorArgs): Promise<ResolvedActor> {
  const orgId = directoryOrgId(args.orgId, args.roleId);
  const primary = String(args.platformId ?? '').trim();
  const ids = [primary, ...Object.values(args.platformIds ?? {}).map((v) => String(v ?? '').trim())].filter(
    (v, i, a) => v !== '' && a.indexOf(v) === i,
  );
  const nickname = String(args.nickname ?? '');

  let row: ContactRow | undefined;
  if (ids.length > 0) {
    // One statement: the platform-id matches first (pri 0), then on web the contact keys (pri 1).
    const { rows } = await q.query<ContactRow & { matched: string; pri: number }>(
      `SELECT ${CONTACT_COLUMNS}, m.platform_id AS matched, 0 AS pri
         FROM skillgate.contact_channel_ids m
         JOIN skillgate.contacts c ON c.org_id = m.org_id AND c.contact_key = m.contact_key
        WHERE m.org_id = $1 AND m.channel = $2 AND m.platform_id = ANY($3::text[])
       UNION ALL
       SELECT ${CONTACT_COLUMNS}, c.contact_key AS matched, 1 AS pri
         FROM skillgate.contacts c
        WHERE $4::boolean AND c.org_id = $1 AND c.contact_key = ANY($3::text[])`,
      [orgId, args.channel, ids, KEYED_BY_CONTACT.has(args.channel)],
    );
    rows.sort((a, b) => a.pri - b.pri || ids.indexOf(a.matched) - ids.indexOf(b.matched));
    row = rows[0];
  }

  if (!row) {
    return {
      known: false,
      contactKey: `${args.channel}:${primary}`,
      teamRole: 'member',
      isAdmin: false,
      fields: { ...emptyActorFields(), actor_name: nickname },
      teamId: '',
      channel: args.channel,
      platformIds: ids,
    };
  }
  const c = toContact(row, []);
  return {
    known: true,
    contactKey: c.contactKey,
    teamRole: c.teamRole,
    isAdmin: c.isAdmin,
    fields: {
      actor_id: c.id,
      actor_name: c.name.trim() !== '' ? c.name : nickname,
      actor_emp_no: c.empNo,
      actor_department: c.department,
      actor_department_path: await departmentPathFor(q, orgId, c.departmentId, c.department),
      actor_position: c.position,
      actor_title: c.title,
      actor_phone: c.phone,
      actor_email: c.email,
      actor_tags: c.tags,
      actor_key: c.contactKey,
    },
    teamId: c.team,
    channel: args.channel,
    platformIds: ids,
  };
}

/** The `given` values of the runtime context builder for one sender (fixed keys + platform). */
export type ActorGiven = ActorFields & {
  actor_is_admin: boolean;
  team_role: TeamRole;
  team_id: string;
  user_id: string;
};

/**
 * The identity part of `given` for buildRuntimeContext: the actor_* keys, `actor_is_admin`,
 * `team_role`, `team_id` and `user_id` (the contact key; for an unknown sender the platform
 * id).
 *
 * `actor_is_admin` is true only when a contact with `isAdmin` fills in (`actingAsAdmin`) on
 * channel `web_admin`; then the 8 keys of R-ADM-01 are cleared here already (R-ADM-01..03,
 * R-DEPT-08), keeping actor_name / actor_phone / actor_email (R-ADM-02). Returns a fresh
 * object; `resolved` is not changed.
 */
export function actorFieldsFor(resolved: ResolvedActor, opts: { channel: string; actingAsAdmin: boolean }): ActorGiven {
  const isAdmin = opts.actingAsAdmin === true && resolved.known && resolved.isAdmin && opts.channel === 'web_admin';
  const fields = applyAdminProxyFill({ ...resolved.fields, actor_tags: [...resolved.fields.actor_tags], actor_is_admin: isAdmin });
  const unknownId = resolved.contactKey.includes(':')
    ? resolved.contactKey.slice(resolved.contactKey.indexOf(':') + 1)
    : resolved.contactKey;
  return {
    ...fields,
    team_role: resolved.teamRole,
    team_id: resolved.teamId ?? '',
    user_id: resolved.known ? resolved.contactKey : (resolved.platformIds?.[0] ?? unknownId),
  };
}
