/**
 * Envelope builders shared by the datatable modules (README.md "The skillgate command"):
 * failures are returned, never thrown, as `{success:false, error, error_type, user_message,
 * need_param?, non_retriable?}`; successes carry `success:true` plus the action's own shape.
 */
import { AMBIGUOUS_URL_FIELDS, EXPLICIT_URL_FIELDS } from '../../envelope/artifacts/url-scan.ts';
import { ENVELOPE_CONTROL_KEYS, type Envelope, type ErrorType } from '../../envelope/types.ts';

/** Language of user-facing texts (zh-CN default). */
export type DtLang = 'zh-CN' | 'en';

/** A text in both languages; {@link pick} chooses one. */
export interface Bilingual {
  zh: string;
  en: string;
}

/** The text of `t` in `lang`. */
export function pick(t: Bilingual, lang: DtLang): string {
  return lang === 'en' ? t.en : t.zh;
}

/** Extra keys of a failure envelope. */
export interface FailExtras {
  need_param?: string | string[];
  non_retriable?: boolean;
  redirect?: string;
  [key: string]: unknown;
}

/**
 * A failure envelope. `error` is the English technical text (for logs and the model),
 * `user_message` the text in `lang` for the chat user.
 * @param errorType `recoverable` (the caller can fix the input), `config` (the line or the
 *   table is misconfigured), `transient` (retry later).
 */
export function dtFail(errorType: ErrorType, message: Bilingual, lang: DtLang, extras: FailExtras = {}): Envelope {
  return { success: false, error: message.en, error_type: errorType, user_message: pick(message, lang), ...extras };
}

/** A success envelope: `{success:true, ...body}`. */
export function dtOk(body: Record<string, unknown>): Envelope {
  return { success: true, ...body };
}

/**
 * The envelope for an empty or unusable `org_id` (R-DT-12, R-ORG-04): `error_type: config`,
 * `non_retriable: true`; no schema is ever derived from a pseudo org.
 */
export function emptyOrgEnvelope(lang: DtLang): Envelope {
  return dtFail(
    'config',
    {
      zh: '当前线路没有配置组织（org_id 为空），不能使用数据表。请联系管理员为该角色配置 org_id。',
      en: 'org_id is empty (or has no letters or digits): data tables need an organisation; configure org_id for this role',
    },
    lang,
    { non_retriable: true },
  );
}

/**
 * A recoverable `need_param` failure for one missing or invalid parameter.
 * @param param the payload key (e.g. `table_name`, `fields`).
 */
export function needParam(param: string, message: Bilingual, lang: DtLang, extras: FailExtras = {}): Envelope {
  return dtFail('recoverable', message, lang, { need_param: param, ...extras });
}

/** Chinese descriptions of SQLSTATE classes / codes (the zh message never quotes the driver's English text). */
const SQLSTATE_ZH: Readonly<Record<string, string>> = {
  '22001': '文本超出字段长度',
  '22003': '数值超出范围',
  '22007': '日期时间格式无效',
  '22008': '日期时间超出范围',
  '22012': '除数为零',
  '22021': '文本含有非法字符',
  '22P02': '值的格式无效',
  '23503': '违反引用约束',
  '23514': '违反检查约束',
  '42501': '数据库权限不足',
  '42601': 'SQL 语法错误',
  '42703': '列不存在',
  '42P01': '表不存在',
  '42883': '函数或运算符不适用于这些类型',
  '42804': '类型不匹配',
  '42P07': '对象已存在',
  '42701': '列名重复',
  '42P16': '表定义无效',
};

/**
 * Map an error to an envelope (R-DT-100): by SQLSTATE, never by message text.
 * - No `code` means the statement never reached the database (parameter encoding): recoverable.
 * - A Node file-system error (it has a `syscall`, e.g. EISDIR, ENOENT, EACCES) concerns a
 *   path the caller gave: recoverable, and the message names only the error code — never the
 *   server's absolute path (callers with a path name it relative to the workspace).
 * - 57014 (statement timeout / cancel): recoverable — the same statement would time out again;
 *   the caller must narrow it (filters, LIMIT, aggregation).
 * - Class 23 (constraint), 22 (data), 42 (syntax/undefined object/permission): recoverable.
 * - 40/53/57/08 (serialization, resources, cancel, connection) and anything else: transient.
 * `error` carries the driver's English detail; `user_message` is single-language per `lang`
 * (the zh text describes the SQLSTATE in Chinese and does not quote the English detail).
 * @param what a short description of the operation for the message, e.g. `create_table`.
 */
export function dbErrorEnvelope(err: unknown, what: string, lang: DtLang): Envelope {
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : undefined;
  const detail = err instanceof Error ? err.message : String(err);
  if (code !== undefined && typeof (err as { syscall?: unknown }).syscall === 'string') {
    const zh =
      code === 'EISDIR'
        ? '给出的路径是目录，不是文件'
        : code === 'ENOENT'
          ? '文件不存在'
          : code === 'EACCES' || code === 'EPERM'
            ? '没有读取权限'
            : '文件无法读取';
    const en =
      code === 'EISDIR'
        ? 'the given path is a directory, not a file'
        : code === 'ENOENT'
          ? 'the file does not exist'
          : 'the file cannot be read';
    return dtFail('recoverable', { zh: `${what} 失败：${zh}（${code}）`, en: `${what} failed: ${en} (${code})` }, lang, {
      file_error: code,
    });
  }
  if (code === undefined) {
    return dtFail(
      'recoverable',
      { zh: `${what} 失败：参数无法编码，请检查传入的值`, en: `${what} failed before reaching the database: ${detail}` },
      lang,
    );
  }
  const cls = code.slice(0, 2);
  if (code === '57014') {
    return dtFail(
      'recoverable',
      {
        zh: `${what} 执行超时，已被数据库取消；请缩小范围（加筛选条件、LIMIT 或改用聚合）后再试`,
        en: `${what} exceeded the statement time limit and was cancelled (SQLSTATE 57014); narrow it (filters, LIMIT, aggregation) and try again`,
      },
      lang,
      { sqlstate: code, timeout: true },
    );
  }
  if (code === '23505') {
    return dtFail(
      'recoverable',
      { zh: `${what} 失败：违反唯一约束（重复值）`, en: `${what} failed: unique violation (SQLSTATE 23505): ${detail}` },
      lang,
      { sqlstate: code },
    );
  }
  if (code === '23502') {
    return dtFail(
      'recoverable',
      { zh: `${what} 失败：必填列为空`, en: `${what} failed: not-null violation (SQLSTATE 23502): ${detail}` },
      lang,
      { sqlstate: code },
    );
  }
  if (cls === '23' || cls === '22' || cls === '42') {
    const zh = SQLSTATE_ZH[code] ?? (cls === '22' ? '数据值无效' : cls === '23' ? '违反约束' : 'SQL 或对象无效');
    return dtFail(
      'recoverable',
      { zh: `${what} 失败：${zh}（SQLSTATE ${code}）`, en: `${what} failed (SQLSTATE ${code}): ${detail}` },
      lang,
      { sqlstate: code },
    );
  }
  return dtFail(
    'transient',
    { zh: `${what} 暂时失败，请稍后重试（SQLSTATE ${code}）`, en: `${what} failed (SQLSTATE ${code}), retry later: ${detail}` },
    lang,
    { sqlstate: code },
  );
}

/**
 * The names a write error is reported with (R-DT-101): captured from the table's metadata as
 * plain strings BEFORE the statement runs, so they are still at hand after the rollback (the
 * failed transaction is gone by then; nothing is read back from it).
 */
export interface ErrorNames {
  /** The table's title. */
  table: string;
  /** Every field of the table (title, unique flag). */
  fields: ReadonlyArray<{ title: string; unique: boolean }>;
  /** The fields the statement wrote (a unique conflict is narrowed to these). */
  written?: readonly string[];
}

/** The fields a database error concerns: the driver's `column` when it is a field of the table, else for 23505 the written unique fields. */
export function errorFields(err: unknown, names: ErrorNames): string[] {
  const column = (err as { column?: unknown } | null)?.column;
  if (typeof column === 'string' && names.fields.some((f) => f.title === column)) return [column];
  if (sqlState(err) === '23505') {
    const unique = names.fields.filter((f) => f.unique).map((f) => f.title);
    const written = names.written ? unique.filter((t) => names.written!.includes(t)) : unique;
    return written.length ? written : unique;
  }
  return [];
}

/**
 * {@link dbErrorEnvelope} for an error on a known table (R-DT-101, R-DT-100): the envelope also
 * carries `table` (its title) and, when the error concerns particular fields, `fields`; both
 * are named in `user_message` and `error`. Example (zh):
 * `表「客户」：insert 失败：违反唯一约束（重复值）（字段：编号）`.
 */
export function tableDbErrorEnvelope(err: unknown, what: string, lang: DtLang, names: ErrorNames): Envelope {
  const base = dbErrorEnvelope(err, what, lang);
  const fields = errorFields(err, names);
  const zhFields = fields.length ? `（字段：${fields.join('、')}）` : '';
  const enFields = fields.length ? ` (field${fields.length > 1 ? 's' : ''}: ${fields.join(', ')})` : '';
  const user = String(base.user_message ?? '');
  return {
    ...base,
    error: `table "${names.table}": ${String(base.error ?? '')}${enFields}`,
    user_message: lang === 'en' ? `table "${names.table}": ${user}${enFields}` : `表「${names.table}」：${user}${zhFields}`,
    table: names.table,
    ...(fields.length ? { fields } : {}),
  };
}

/** The SQLSTATE of a driver error, or undefined (R-DT-100). */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Keys a skill result uses to steer the platform (envelope, display, confirmation, artifacts,
 * URLs to download). A table field may carry any of these names; its value must never act as
 * one, so a written record is spread at the top level without them (and always kept whole
 * under `record`).
 */
const RESERVED_RESULT_KEYS: ReadonlySet<string> = new Set([
  ...ENVELOPE_CONTROL_KEYS,
  'executed',
  'partial',
  'record',
  'filename',
  'media',
  'images',
  'videos',
  'files',
  'audios',
  ...EXPLICIT_URL_FIELDS,
  ...AMBIGUOUS_URL_FIELDS,
  'download_url',
  'abs_url',
]);

/**
 * The success envelope of a single written record (insert / update: "the complete record
 * after writing", R-DT-33, R-DT-37): `record` holds every field; the fields are also at the
 * top level except those named like a result key ({@link RESERVED_RESULT_KEYS}).
 */
export function recordEnvelope(record: Record<string, unknown>): Envelope {
  const top: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!RESERVED_RESULT_KEYS.has(k)) top[k] = v;
  return { ...top, success: true, record };
}
