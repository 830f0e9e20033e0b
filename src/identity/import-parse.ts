/**
 * Reading a directory file (docs/configuration.md) into validated rows: CSV through csv-parse
 * (header row), JSON `{contacts, departments}` or a bare array of contacts. Nothing here
 * touches the database.
 */
import { createRequire } from 'node:module';
import type * as csvSync from 'csv-parse/sync';
import { MAX_DEPARTMENT_DEPTH } from '../runtime/department.ts';
import { MAX_DEPARTMENT_NAME, parseDepartmentPath } from './departments.ts';
import type { IssueKind, RowOrigin } from './import-messages.ts';
import type { ImportIssue, TeamRole } from './types.ts';

/** csv-parse, loaded at the first CSV read, not by every start (docs/performance.md "Start-up"). */
let csv: typeof csvSync | undefined;
const parse: typeof csvSync.parse = ((...args: Parameters<typeof csvSync.parse>) =>
  (csv ??= createRequire(import.meta.url)('csv-parse/sync') as typeof csvSync).parse(...args)) as typeof csvSync.parse;

/** The whole file cannot be read as a directory (bad JSON, malformed CSV, wrong shape). */
export class DirectoryFormatError extends Error {
  override name = 'DirectoryFormatError';
}

/** Longest text field accepted, in UTF-16 units. */
export const MAX_FIELD = 256;
/** Most tags per contact, and the longest tag. */
export const MAX_TAGS = 50;
export const MAX_TAG = 64;

/** The contact columns of an import (besides the channel columns). */
export const CONTACT_FIELDS = [
  'contact_key',
  'name',
  'emp_no',
  'department',
  'position',
  'title',
  'phone',
  'email',
  'tags',
  'team',
  'team_role',
  'is_admin',
] as const;

/** One raw input row: the 1-based row number and its values by lower-cased column. */
export interface RawRow {
  row: number;
  values: Record<string, unknown>;
}

/** A file split into rows. */
export interface RawDirectory {
  origin: RowOrigin;
  contacts: RawRow[];
  departments: RawRow[];
  /** Columns / keys that are not part of the format (reported as warnings). */
  unknownColumns: { section: ImportIssue['section']; row: number; column: string }[];
}

/** A validated contact row; a field left undefined was not in the file (kept on update). */
export interface ContactInput {
  row: number;
  contactKey: string;
  name?: string;
  empNo?: string;
  /** As written: a path (has `/`) or a bare name; "" clears. */
  department?: string;
  position?: string;
  title?: string;
  phone?: string;
  email?: string;
  tags?: string[];
  team?: string;
  teamRole?: TeamRole;
  isAdmin?: boolean;
  /** The channels present in the file, each with its ids ([] clears). */
  channelIds: Record<string, string[]>;
}

/** A validated department row. */
export interface DepartmentInput {
  row: number;
  segments: string[];
  disabled?: boolean;
}

/** A problem found while validating: row, column and kind (texts are made by the caller). */
export interface RowProblem {
  row: number;
  column: string;
  kind: IssueKind;
  detail?: string;
}

/** The columns of a contact row: its fields, one per directory channel, and `channels`. */
const contactColumns = (channels: readonly string[]) => new Set<string>([...CONTACT_FIELDS, ...channels, 'channels']);
const DEPARTMENT_KNOWN = new Set(['path', 'disabled']);

function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k.trim().toLowerCase()] = v;
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Decode file bytes as UTF-8 (a leading BOM dropped). */
export function decodeText(data: Buffer | string): string {
  const text = typeof data === 'string' ? data : new TextDecoder('utf-8').decode(data);
  return text.replace(/^\uFEFF/, '');
}

/**
 * Split CSV text into rows. A header with `contact_key` is a contact list; a header with
 * `path` and no `contact_key` a department list (`path`, `disabled`).
 * @throws DirectoryFormatError on malformed CSV or a header with neither column.
 */
export function readCsv(text: string, channels: readonly string[]): RawDirectory {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as unknown as typeof records;
  } catch (err) {
    throw new DirectoryFormatError(`the CSV cannot be read: ${(err as Error).message}`);
  }
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const header =
    firstLine === '' ? [] : ((parse(firstLine, { bom: true, to_line: 1 }) as string[][])[0]?.map((h) => h.trim().toLowerCase()) ?? []);
  const isContacts = header.includes('contact_key');
  if (!isContacts && !header.includes('path')) {
    throw new DirectoryFormatError('the CSV header needs a contact_key column (contacts) or a path column (departments)');
  }
  const known = isContacts ? contactColumns(channels) : DEPARTMENT_KNOWN;
  const section: ImportIssue['section'] = isContacts ? 'contacts' : 'departments';
  const unknownColumns = header.filter((h) => h !== '' && !known.has(h)).map((column) => ({ section, row: 1, column }));
  const rows: RawRow[] = records.map(({ record, info }) => {
    const values: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) if (known.has(k) && k !== 'channels') values[k] = v;
    return { row: info.lines, values };
  });
  return { origin: 'csv', contacts: isContacts ? rows : [], departments: isContacts ? [] : rows, unknownColumns };
}

/**
 * Split a JSON document into rows: `{contacts: [...], departments: [{path, disabled}]}` or
 * a bare array of contacts. Row numbers are 1-based item indexes.
 * @throws DirectoryFormatError on invalid JSON or another shape.
 */
export function readJson(text: string, channels: readonly string[]): RawDirectory {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new DirectoryFormatError(`the JSON cannot be read: ${(err as Error).message}`);
  }
  const contactsIn = Array.isArray(doc) ? doc : isPlainObject(doc) ? (doc.contacts ?? []) : undefined;
  const departmentsIn = isPlainObject(doc) ? (doc.departments ?? []) : [];
  if (!Array.isArray(contactsIn) || !Array.isArray(departmentsIn)) {
    throw new DirectoryFormatError('the JSON must be {"contacts": [...], "departments": [...]} or an array of contacts');
  }
  const unknownColumns: RawDirectory['unknownColumns'] = [];
  const rowsOf = (list: unknown[], section: ImportIssue['section'], known: Set<string>): RawRow[] =>
    list.map((item, i) => {
      const values = isPlainObject(item) ? lowerKeys(item) : { __not_object: item };
      for (const k of Object.keys(values))
        if (!known.has(k) && k !== '__not_object') unknownColumns.push({ section, row: i + 1, column: k });
      return { row: i + 1, values };
    });
  return {
    origin: 'json',
    contacts: rowsOf(contactsIn, 'contacts', contactColumns(channels)),
    departments: rowsOf(departmentsIn, 'departments', DEPARTMENT_KNOWN),
    unknownColumns,
  };
}

type Check<T> = { ok: true; value: T } | { ok: false; kind: IssueKind; detail?: string };

function text(v: unknown, max = MAX_FIELD): Check<string> {
  if (v === null || v === undefined) return { ok: true, value: '' };
  if (typeof v === 'number' && Number.isFinite(v)) return { ok: true, value: String(v) };
  if (typeof v !== 'string') return { ok: false, kind: 'invalid', detail: JSON.stringify(v) ?? '' };
  const s = v.trim();
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s)) return { ok: false, kind: 'invalid', detail: JSON.stringify(s) };
  if (s.length > max) return { ok: false, kind: 'too_long', detail: String(max) };
  return { ok: true, value: s };
}

function list(v: unknown, split: RegExp, maxItems: number, maxItem: number): Check<string[]> {
  const items: unknown[] = v === null || v === undefined ? [] : Array.isArray(v) ? v : typeof v === 'string' ? v.split(split) : [v];
  const out: string[] = [];
  for (const item of items) {
    const t = text(item, maxItem);
    if (!t.ok) return t;
    if (t.value !== '' && !out.includes(t.value)) out.push(t.value);
  }
  if (out.length > maxItems) return { ok: false, kind: 'too_long', detail: String(maxItems) };
  return { ok: true, value: out };
}

const TRUE = new Set(['true', '1', 'yes', 'y', '是']);
const FALSE = new Set(['false', '0', 'no', 'n', '否', '']);

function bool(v: unknown): Check<boolean> {
  if (typeof v === 'boolean') return { ok: true, value: v };
  if (v === null || v === undefined) return { ok: true, value: false };
  const s = String(v).trim().toLowerCase();
  if (TRUE.has(s)) return { ok: true, value: true };
  if (FALSE.has(s)) return { ok: true, value: false };
  return { ok: false, kind: 'invalid', detail: String(v) };
}

/** A contact key: 1–128 characters, no whitespace, no control characters, no `:` (kept for `<channel>:<id>`). */
const CONTACT_KEY = /^[^\s:\u0000-\u001f\u007f]{1,128}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^[+0-9][0-9 ()+\-#*.,;xX转分机]{2,39}$/;
const TAG_SPLIT = /[,，、;；]/;
const ID_SPLIT = /[\s,;，；]+/;

/**
 * Validate one contact row: the first problem found, or the input. Absent columns stay
 * undefined; `team_role` "" means member; `department` keeps `/` paths as written.
 */
export function validateContact(
  raw: RawRow,
  channels: readonly string[],
): { ok: true; input: ContactInput } | { ok: false; problem: RowProblem } {
  const v = raw.values;
  const fail = (column: string, kind: IssueKind, detail?: string) => ({
    ok: false as const,
    problem: { row: raw.row, column, kind, detail },
  });
  if ('__not_object' in v) return fail('contact_key', 'invalid', JSON.stringify(v.__not_object) ?? '');
  const key = text(v.contact_key, 128);
  if (!key.ok) return fail('contact_key', key.kind, key.detail);
  if (key.value === '') return fail('contact_key', 'required');
  if (!CONTACT_KEY.test(key.value)) return fail('contact_key', 'invalid', key.value);
  const input: ContactInput = { row: raw.row, contactKey: key.value, channelIds: {} };

  const plain = [
    ['name', 'name'],
    ['emp_no', 'empNo'],
    ['position', 'position'],
    ['title', 'title'],
    ['team', 'team'],
  ] as const;
  for (const [column, prop] of plain) {
    if (!(column in v)) continue;
    const t = text(v[column]);
    if (!t.ok) return fail(column, t.kind, t.detail);
    input[prop] = t.value;
  }
  if ('department' in v) {
    const t = text(v.department, 2048);
    if (!t.ok) return fail('department', t.kind, t.detail);
    if (t.value.includes('/')) {
      const segs = parseDepartmentPath(t.value);
      if (segs.length > MAX_DEPARTMENT_DEPTH) return fail('department', 'too_deep', String(MAX_DEPARTMENT_DEPTH));
      if (segs.some((s) => s.length > MAX_DEPARTMENT_NAME)) return fail('department', 'too_long', String(MAX_DEPARTMENT_NAME));
    } else if (t.value.length > MAX_DEPARTMENT_NAME) return fail('department', 'too_long', String(MAX_DEPARTMENT_NAME));
    input.department = t.value;
  }
  if ('phone' in v) {
    const t = text(v.phone, 40);
    if (!t.ok) return fail('phone', t.kind, t.detail);
    if (t.value !== '' && !PHONE.test(t.value)) return fail('phone', 'invalid', t.value);
    input.phone = t.value;
  }
  if ('email' in v) {
    const t = text(v.email);
    if (!t.ok) return fail('email', t.kind, t.detail);
    if (t.value !== '' && !EMAIL.test(t.value)) return fail('email', 'invalid', t.value);
    input.email = t.value;
  }
  if ('tags' in v) {
    const t = list(v.tags, TAG_SPLIT, MAX_TAGS, MAX_TAG);
    if (!t.ok) return fail('tags', t.kind, t.detail);
    input.tags = t.value;
  }
  if ('team_role' in v) {
    const t = text(v.team_role);
    if (!t.ok) return fail('team_role', t.kind, t.detail);
    const r = t.value.toLowerCase();
    if (r !== '' && r !== 'owner' && r !== 'admin' && r !== 'member') return fail('team_role', 'invalid', t.value);
    input.teamRole = r === '' ? 'member' : r;
  }
  if ('is_admin' in v) {
    const b = bool(v.is_admin);
    if (!b.ok) return fail('is_admin', b.kind, b.detail);
    input.isAdmin = b.value;
  }
  const nested = isPlainObject(v.channels) ? lowerKeys(v.channels) : {};
  if (v.channels !== undefined && !isPlainObject(v.channels)) return fail('channels', 'invalid', JSON.stringify(v.channels) ?? '');
  for (const channel of channels) {
    const value = channel in v ? v[channel] : channel in nested ? nested[channel] : undefined;
    if (!(channel in v) && !(channel in nested)) continue;
    const ids = list(value, ID_SPLIT, 10, MAX_FIELD);
    if (!ids.ok) return fail(channel, ids.kind, ids.detail);
    input.channelIds[channel] = ids.value;
  }
  return { ok: true, input };
}

/** Validate one department row (`path` required, `disabled` optional). */
export function validateDepartment(raw: RawRow): { ok: true; input: DepartmentInput } | { ok: false; problem: RowProblem } {
  const v = raw.values;
  const fail = (column: string, kind: IssueKind, detail?: string) => ({
    ok: false as const,
    problem: { row: raw.row, column, kind, detail },
  });
  if ('__not_object' in v) return fail('path', 'invalid', JSON.stringify(v.__not_object) ?? '');
  const p = text(v.path, 4096);
  if (!p.ok) return fail('path', p.kind, p.detail);
  const segments = parseDepartmentPath(p.value);
  if (segments.length === 0) return fail('path', 'required');
  if (segments.length > MAX_DEPARTMENT_DEPTH) return fail('path', 'too_deep', String(MAX_DEPARTMENT_DEPTH));
  if (segments.some((s) => s.length > MAX_DEPARTMENT_NAME)) return fail('path', 'too_long', String(MAX_DEPARTMENT_NAME));
  const input: DepartmentInput = { row: raw.row, segments };
  if ('disabled' in v) {
    const b = bool(v.disabled);
    if (!b.ok) return fail('disabled', b.kind, b.detail);
    input.disabled = b.value;
  }
  return { ok: true, input };
}
