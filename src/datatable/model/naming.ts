/**
 * Names of the datatable storage model: the per-organisation schema, the
 * identifier rule for table and field titles, and safe quoting. Pure functions, no I/O.
 */

/** Prefix of every organisation's data schema (R-DT-06). */
export const ORG_SCHEMA_PREFIX = 'org_data_';

/**
 * System columns the platform creates on every table (R-DT-08): users may neither define nor
 * write them. Compared case-insensitively by {@link isSystemColumn}.
 */
export const SYSTEM_COLUMNS = ['id', 'created_at'] as const;

/**
 * PostgreSQL's identifier limit (NAMEDATALEN − 1): longer names are silently truncated by the
 * server, so two long titles could land on one table. Counted in UTF-8 bytes.
 */
export const MAX_IDENTIFIER_BYTES = 63;

/** Longest title in code points (R-DT-10, A-32). */
export const MAX_IDENTIFIER_CHARS = 50;

/** Thrown by {@link orgSchemaName} for an org id that cannot name a schema (R-DT-12, A-31). */
export class OrgSchemaError extends Error {
  constructor(
    message: string,
    /** `empty`: "" or nothing alphanumeric left; `too_long`: the schema name exceeds 63 bytes. */
    readonly reason: 'empty' | 'too_long',
  ) {
    super(message);
    this.name = 'OrgSchemaError';
  }
}

/**
 * The schema of an organisation's data tables: `org_data_` + the org id with every character
 * outside ASCII `[A-Za-z0-9]` removed, lower-cased (R-DT-06; org "Ab-9" ⇒ `org_data_ab9`).
 * Never falls back to a pseudo org (R-ORG-04).
 * @throws OrgSchemaError `empty` when the id is empty or normalises to nothing (R-DT-12, A-31:
 *   no schema named just `org_data_`); `too_long` when the name would exceed 63 bytes (the
 *   server would truncate it and two orgs could share a schema).
 */
export function orgSchemaName(orgId: string): string {
  const normalized = (orgId ?? '').replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  if (normalized === '') {
    throw new OrgSchemaError(`org_id ${JSON.stringify(orgId ?? '')} has no letters or digits: no data schema can be derived`, 'empty');
  }
  const name = ORG_SCHEMA_PREFIX + normalized;
  if (name.length > MAX_IDENTIFIER_BYTES) {
    throw new OrgSchemaError(
      `org_id ${JSON.stringify(orgId)} is too long: the schema name would exceed ${MAX_IDENTIFIER_BYTES} bytes`,
      'too_long',
    );
  }
  return name;
}

/** Why a title is not a valid identifier; see {@link identifierProblem}. */
export type IdentifierProblem = 'not_string' | 'empty' | 'too_long' | 'too_many_bytes' | 'starts_with_digit' | 'bad_character';

const ALLOWED_CHAR = /^[\u4e00-\u9fa5A-Za-z0-9_]$/u;

/**
 * Check a table or field title against the identifier rule (R-DT-10):
 * Chinese characters `\u4e00-\u9fa5`, ASCII letters, digits, underscore; 1–50 code
 * points; not starting with a digit. Additionally at most 63 UTF-8 bytes (PostgreSQL's limit:
 * about 21 Chinese characters), because a longer name would be truncated silently by the server.
 * @returns null when valid, else the first problem found.
 */
export function identifierProblem(name: unknown): IdentifierProblem | null {
  if (typeof name !== 'string') return 'not_string';
  const chars = Array.from(name);
  if (chars.length === 0) return 'empty';
  if (chars.length > MAX_IDENTIFIER_CHARS) return 'too_long';
  if (/^[0-9]/.test(name)) return 'starts_with_digit';
  if (!chars.every((c) => ALLOWED_CHAR.test(c))) return 'bad_character';
  if (Buffer.byteLength(name, 'utf8') > MAX_IDENTIFIER_BYTES) return 'too_many_bytes';
  return null;
}

/** True when `name` satisfies the identifier rule of {@link identifierProblem} (R-DT-10). */
export function isValidIdentifier(name: unknown): name is string {
  return identifierProblem(name) === null;
}

/**
 * A user-facing explanation of an identifier problem (zh-CN default, en available), naming
 * the offending title, e.g. 「容差%」含不允许的字符….
 */
export function describeIdentifierProblem(name: unknown, problem: IdentifierProblem, lang: 'zh-CN' | 'en' = 'zh-CN'): string {
  const shown = typeof name === 'string' ? name : JSON.stringify(name);
  if (lang === 'en') {
    const why: Record<IdentifierProblem, string> = {
      not_string: 'is not a string',
      empty: 'is empty',
      too_long: `is longer than ${MAX_IDENTIFIER_CHARS} characters`,
      too_many_bytes: `is longer than ${MAX_IDENTIFIER_BYTES} bytes in UTF-8 (PostgreSQL's limit, about 21 Chinese characters)`,
      starts_with_digit: 'starts with a digit',
      bad_character:
        'contains a character other than Chinese characters, letters, digits and underscore (e.g. write 容差百分比 instead of 容差%)',
    };
    return `name "${shown}" ${why[problem]}`;
  }
  const why: Record<IdentifierProblem, string> = {
    not_string: '不是字符串',
    empty: '为空',
    too_long: `超过 ${MAX_IDENTIFIER_CHARS} 个字符`,
    too_many_bytes: `超过 ${MAX_IDENTIFIER_BYTES} 字节（PostgreSQL 标识符上限，约 21 个汉字）`,
    starts_with_digit: '不能以数字开头',
    bad_character: '只能包含中文、字母、数字和下划线（例如把「容差%」写成「容差百分比」）',
  };
  return `名称「${shown}」${why[problem]}`;
}

/** True for the platform's system columns `id` / `created_at`, any letter case (R-DT-08). */
export function isSystemColumn(name: string): boolean {
  const lower = name.toLowerCase();
  return (SYSTEM_COLUMNS as readonly string[]).includes(lower);
}

/**
 * Quote an identifier for SQL text: `"` + name with `"` doubled + `"` (reserved words and
 * Chinese titles work; R-DT-104).
 * @throws Error on an empty name or one containing NUL (not representable in PostgreSQL).
 */
export function quoteIdent(name: string): string {
  if (typeof name !== 'string' || name === '' || name.includes('\u0000')) {
    throw new Error(`cannot quote identifier ${JSON.stringify(name)}`);
  }
  return `"${name.replace(/"/g, '""')}"`;
}

/** `"schema"."name"` — a fully qualified, quoted relation name (R-DT-104). */
export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/** The canonical text form of a UUID accepted as a table id (R-DT-03). */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when `value` is a UUID in the 8-4-4-4-12 hex form. Checked before a uuid parameter is
 * sent, so a title passed as table_id never raises 22P02 inside a transaction (R-DT-99).
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}
