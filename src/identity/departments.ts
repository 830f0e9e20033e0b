/**
 * The org tree of the directory: department paths as imported, and `actor_department_path`
 * from a contact's department (R-DEPT-01..07).
 */
import { departmentPath, MAX_DEPARTMENT_DEPTH } from '../runtime/department.ts';
import type { Queryable } from '../store/db.ts';

/** Longest department name accepted by an import, in UTF-16 units. */
export const MAX_DEPARTMENT_NAME = 100;

/**
 * The segments of a department path as written (`/总部/销售中心/` or `总部/销售中心`): split on
 * `/`, each trimmed, blanks dropped. Top level first.
 */
export function parseDepartmentPath(text: string): string[] {
  return text
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The canonical stored form of a path from its segments: `/a/b/`. */
export function canonicalPath(segments: readonly string[]): string {
  return `/${segments.join('/')}/`;
}

/** What {@link ensureDepartmentPath} did. */
export interface EnsuredDepartment {
  /** The id of the last (own) department. */
  id: string;
  name: string;
  /** How many departments of the chain were created. */
  inserted: number;
}

/**
 * Create every missing department of the chain `segments` (top first) in `orgId`, each
 * linked to the previous one, keyed by its path; existing ones are reused as they are.
 * `disabled`, when given, is set on the last department only (undefined: new ones are
 * enabled, existing ones keep their flag). Pass a transaction client.
 * @throws Error when `segments` is empty; the database error otherwise.
 */
export async function ensureDepartmentPath(
  q: Queryable,
  orgId: string,
  segments: readonly string[],
  disabled?: boolean,
): Promise<EnsuredDepartment> {
  if (segments.length === 0) throw new Error('a department path needs at least one segment');
  let parent: string | null = null;
  let inserted = 0;
  for (let i = 0; i < segments.length; i++) {
    const name = segments[i]!;
    const path = canonicalPath(segments.slice(0, i + 1));
    const last = i === segments.length - 1;
    const created: { rows: { id: string }[] } = await q.query<{ id: string }>(
      `INSERT INTO skillgate.departments (org_id, name, parent_id, path, disabled)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (org_id, path) DO NOTHING
       RETURNING id::text AS id`,
      [orgId, name, parent, path, last && disabled === true],
    );
    let id: string | undefined = created.rows[0]?.id;
    if (id !== undefined) {
      inserted++;
    } else {
      const found = await q.query<{ id: string }>('SELECT id::text AS id FROM skillgate.departments WHERE org_id = $1 AND path = $2', [
        orgId,
        path,
      ]);
      id = found.rows[0]!.id;
      if (last && disabled !== undefined) {
        await q.query(
          'UPDATE skillgate.departments SET disabled = $3, updated_at = now() WHERE org_id = $1 AND id = $2::bigint AND disabled <> $3',
          [orgId, id, disabled],
        );
      }
    }
    parent = id;
  }
  return { id: parent!, name: segments[segments.length - 1]!, inserted };
}

/** A department found by its bare name. */
export interface DepartmentByName {
  id: string;
  name: string;
  path: string;
  /** True when several departments carry the name (the first by path was taken). */
  ambiguous: boolean;
}

/** The department named `name` in `orgId` (several: the first by path in code point order, the same on every server collation), or null. */
export async function findDepartmentByName(q: Queryable, orgId: string, name: string): Promise<DepartmentByName | null> {
  const { rows } = await q.query<{ id: string; name: string; path: string }>(
    `SELECT id::text AS id, name, path FROM skillgate.departments
      WHERE org_id = $1 AND name = $2 ORDER BY path COLLATE "C", id LIMIT 2`,
    [orgId, name],
  );
  const first = rows[0];
  return first ? { ...first, ambiguous: rows.length > 1 } : null;
}

/**
 * `actor_department_path` of a contact:
 * - department node known → its names walking parents up, top first, own last (R-DEPT-01/02),
 *   disabled nodes kept (R-DEPT-06), at most 20 levels counted from the own department —
 *   a cyclic parent chain yields 20 segments ending with self (R-DEPT-07);
 * - no node but a department text → the single segment `/<text>/` (R-DEPT-05);
 * - neither → "" (R-DEPT-04).
 * There is no org-root node in the tree, so the org name never appears (R-DEPT-03).
 */
export async function departmentPathFor(q: Queryable, orgId: string, departmentId: string | null, departmentText: string): Promise<string> {
  if (departmentId !== null) {
    const { rows } = await q.query<{ name: string }>(
      `WITH RECURSIVE chain (id, name, parent_id, depth) AS (
         SELECT id, name, parent_id, 1 FROM skillgate.departments WHERE org_id = $1 AND id = $2::bigint
         UNION ALL
         SELECT d.id, d.name, d.parent_id, c.depth + 1
           FROM chain c JOIN skillgate.departments d ON d.id = c.parent_id AND d.org_id = $1
          WHERE c.depth < $3
       )
       SELECT name FROM chain ORDER BY depth DESC`,
      [orgId, departmentId, MAX_DEPARTMENT_DEPTH],
    );
    if (rows.length > 0) return departmentPath(rows.map((r) => r.name));
  }
  return departmentPath([departmentText]);
}
