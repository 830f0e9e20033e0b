/**
 * `importDirectory`: contacts and departments from a CSV or JSON file into the directory of
 * one org (docs/configuration.md; docs/directory.md), in one transaction, each row under its own
 * savepoint so a refused row is reported and skipped while the others are imported.
 */
import { announceChange, DIRECTORY_CHANNEL } from '../store/invalidated-cache.ts';
import type { Db, Tx } from '../store/db.ts';
import { ensureDepartmentPath, findDepartmentByName, parseDepartmentPath } from './departments.ts';
import { ambiguousDetail, duplicateDetail, issueMessage, takenDetail, type IssueKind, type RowOrigin } from './import-messages.ts';
import {
  decodeText,
  readCsv,
  readJson,
  validateContact,
  validateDepartment,
  type ContactInput,
  type RawDirectory,
} from './import-parse.ts';
import { directoryOrgId } from './org.ts';
import type { ImportIssue, ImportReport, Lang } from './types.ts';

export { DirectoryFormatError } from './import-parse.ts';

/** Arguments of {@link importDirectory}. */
export interface ImportDirectoryArgs {
  /** The role's raw org id; "" falls back to `r_<roleId>` (R-ORG-02). */
  orgId: string;
  roleId: string;
  /** The file's bytes (UTF-8) or text. */
  data: Buffer | string;
  format: 'csv' | 'json';
  /** Language of the row messages (default zh-CN). */
  lang?: Lang;
  /** The channels with an id column: `directoryChannels(channelDeclarations)` (src/channel/declaration.ts). */
  channels: readonly string[];
}

/** A row refused while writing (rolls its savepoint back). */
class RowRefused extends Error {
  constructor(
    readonly column: string,
    readonly kind: IssueKind,
    readonly detail: string,
  ) {
    super(`${column}: ${kind}`);
  }
}

/**
 * Import a directory file into `directoryOrgId(orgId, roleId)`.
 *
 * - Departments (JSON `departments`, or a CSV with a `path` header): each path creates its
 *   whole chain; `disabled` sets the flag of the last node.
 * - Contacts: upsert by `contact_key` — a new key is inserted, a known one updated; a column
 *   absent from the file (CSV header / JSON key) leaves the stored value as it is, a present
 *   empty one clears it. `department` with `/` is a path (its chain is created), a bare name
 *   takes the existing department of that name (several: the first by path, warned; none:
 *   kept as text, warned — its path degrades to `/<name>/`, R-DEPT-05). Channel columns
 *   replace the contact's ids on that channel; an id held by another contact refuses the row.
 * - A refused row (invalid value, repeated key, taken id) is reported with row and column
 *   and skipped; the others are imported. All in one transaction.
 * @throws DirectoryFormatError when the file as a whole cannot be read; the database error
 *   when the transaction itself fails.
 */
export async function importDirectory(db: Db, args: ImportDirectoryArgs): Promise<ImportReport> {
  const lang: Lang = args.lang === 'en' ? 'en' : 'zh-CN';
  const orgId = directoryOrgId(args.orgId, args.roleId);
  const text = decodeText(args.data);
  const raw: RawDirectory = args.format === 'json' ? readJson(text, args.channels) : readCsv(text, args.channels);
  const origin: RowOrigin = raw.origin;
  const report: ImportReport = { orgId, contacts: { inserted: 0, updated: 0 }, departments: { inserted: 0 }, errors: [], warnings: [] };
  const issue = (section: ImportIssue['section'], row: number, column: string, kind: IssueKind, detail = ''): ImportIssue => ({
    row,
    column,
    message: issueMessage(lang, origin, section, row, column, kind, detail),
    section,
  });
  for (const u of raw.unknownColumns) report.warnings.push(issue(u.section, u.row, u.column, 'unknown_column'));

  await db.transaction(async (tx) => {
    for (const rawRow of raw.departments) {
      const v = validateDepartment(rawRow);
      if (!v.ok) {
        report.errors.push(issue('departments', v.problem.row, v.problem.column, v.problem.kind, v.problem.detail));
        continue;
      }
      try {
        const d = await tx.savepoint((sp) => ensureDepartmentPath(sp, orgId, v.input.segments, v.input.disabled));
        report.departments.inserted += d.inserted;
      } catch (err) {
        report.errors.push(issue('departments', v.input.row, 'path', 'failed', (err as Error).message));
      }
    }

    const seen = new Map<string, number>();
    for (const rawRow of raw.contacts) {
      const v = validateContact(rawRow, args.channels);
      if (!v.ok) {
        report.errors.push(issue('contacts', v.problem.row, v.problem.column, v.problem.kind, v.problem.detail));
        continue;
      }
      const c = v.input;
      const first = seen.get(c.contactKey);
      if (first !== undefined) {
        report.errors.push(issue('contacts', c.row, 'contact_key', 'duplicate_key', duplicateDetail(lang, origin, c.contactKey, first)));
        continue;
      }
      seen.set(c.contactKey, c.row);
      const warnings: ImportIssue[] = [];
      try {
        const r = await tx.savepoint((sp) =>
          writeContact(sp, orgId, c, lang, (column, kind, detail) => warnings.push(issue('contacts', c.row, column, kind, detail))),
        );
        if (r.inserted) report.contacts.inserted++;
        else report.contacts.updated++;
        report.departments.inserted += r.departmentsInserted;
        report.warnings.push(...warnings);
      } catch (err) {
        if (err instanceof RowRefused) report.errors.push(issue('contacts', c.row, err.column, err.kind, err.detail));
        else report.errors.push(issue('contacts', c.row, 'contact_key', 'failed', (err as { code?: string }).code ?? 'database error'));
      }
    }
  });
  await announceChange(db, DIRECTORY_CHANNEL);
  return report;
}

type Warn = (column: string, kind: IssueKind, detail: string) => void;

/** Upsert one contact and its channel ids inside a savepoint. @throws RowRefused, DB errors. */
async function writeContact(
  tx: Tx,
  orgId: string,
  c: ContactInput,
  lang: Lang,
  warn: Warn,
): Promise<{ inserted: boolean; departmentsInserted: number }> {
  // Platform ids already held by another contact refuse the row before anything is written.
  for (const [channel, ids] of Object.entries(c.channelIds)) {
    if (!ids || ids.length === 0) continue;
    const { rows } = await tx.query<{ platform_id: string; contact_key: string }>(
      `SELECT platform_id, contact_key FROM skillgate.contact_channel_ids
        WHERE org_id = $1 AND channel = $2 AND platform_id = ANY($3::text[]) AND contact_key <> $4
        ORDER BY platform_id LIMIT 1`,
      [orgId, channel, ids, c.contactKey],
    );
    const taken = rows[0];
    if (taken) throw new RowRefused(channel, 'id_taken', takenDetail(lang, taken.platform_id, taken.contact_key));
  }

  let departmentsInserted = 0;
  let departmentId: string | null | undefined;
  let departmentText: string | undefined;
  if (c.department !== undefined) {
    if (c.department === '') {
      departmentId = null;
      departmentText = '';
    } else if (c.department.includes('/')) {
      const d = await ensureDepartmentPath(tx, orgId, parseDepartmentPath(c.department));
      departmentsInserted = d.inserted;
      departmentId = d.id;
      departmentText = d.name;
    } else {
      const d = await findDepartmentByName(tx, orgId, c.department);
      departmentId = d?.id ?? null;
      departmentText = c.department;
      if (!d) warn('department', 'unknown_department', c.department);
      else if (d.ambiguous) warn('department', 'ambiguous_department', ambiguousDetail(lang, c.department, d.path));
    }
  }

  if (c.team !== undefined && c.team !== '') {
    await tx.query('INSERT INTO skillgate.teams (org_id, id, name) VALUES ($1, $2, $2) ON CONFLICT (org_id, id) DO NOTHING', [
      orgId,
      c.team,
    ]);
  }

  // Column → value of the fields present in the file.
  const set: [string, unknown, string?][] = [];
  const add = (column: string, value: unknown, cast?: string): void => {
    if (value !== undefined) set.push([column, value, cast]);
  };
  add('name', c.name);
  add('emp_no', c.empNo);
  add('department_id', departmentId, 'bigint');
  add('department', departmentText);
  add('position', c.position);
  add('title', c.title);
  add('phone', c.phone);
  add('email', c.email);
  add('tags', c.tags, 'text[]');
  add('team_id', c.team);
  add('team_role', c.teamRole);
  add('is_admin', c.isAdmin, 'boolean');

  const values: unknown[] = [orgId, c.contactKey, ...set.map((s) => s[1])];
  const params = set.map((s, i) => `$${i + 3}${s[2] ? `::${s[2]}` : ''}`);
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO skillgate.contacts (org_id, contact_key${set.map((s) => `, ${s[0]}`).join('')})
     VALUES ($1, $2${params.map((p) => `, ${p}`).join('')})
     ON CONFLICT (org_id, contact_key) DO NOTHING
     RETURNING id::text AS id`,
    values,
  );
  const isNew = inserted.rows.length > 0;
  if (!isNew) {
    await tx.query(
      `UPDATE skillgate.contacts SET ${set.map((s, i) => `${s[0]} = ${params[i]}, `).join('')}updated_at = now()
        WHERE org_id = $1 AND contact_key = $2`,
      values,
    );
  }

  for (const [channel, ids] of Object.entries(c.channelIds)) {
    if (!ids) continue;
    await tx.query(
      `DELETE FROM skillgate.contact_channel_ids
        WHERE org_id = $1 AND contact_key = $2 AND channel = $3 AND NOT (platform_id = ANY($4::text[]))`,
      [orgId, c.contactKey, channel, ids],
    );
    if (ids.length > 0) {
      await tx.query(
        `INSERT INTO skillgate.contact_channel_ids (org_id, channel, platform_id, contact_key)
         SELECT $1, $2, unnest($3::text[]), $4
         ON CONFLICT (org_id, channel, platform_id) DO NOTHING`,
        [orgId, channel, ids, c.contactKey],
      );
    }
  }
  return { inserted: isNew, departmentsInserted };
}
