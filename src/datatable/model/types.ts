/**
 * Shared types of the built-in `datatable` skill (R-DT-*). Every module of
 * src/datatable/ speaks these; field names stay as the specification spells them.
 */
import type { Queryable, Tx } from '../../store/db.ts';
import type { Envelope } from '../../envelope/types.ts';
import type { Logger } from '../../log/logger.ts';

/** The 20 actions, exactly (R-DT-28). */
export const DATATABLE_ACTIONS = [
  'list_tables',
  'list_columns',
  'query',
  'aggregate',
  'insert',
  'insert_batch',
  'insert_from_file',
  'upsert',
  'update',
  'update_by',
  'delete',
  'delete_batch',
  'delete_by',
  'sql_query',
  'sql_execute',
  'create_table',
  'add_field',
  'update_field',
  'delete_field',
  'delete_table',
] as const;
export type DatatableAction = (typeof DATATABLE_ACTIONS)[number];

/** Structural actions: team_role owner/admin only (R-DT-25, D-01). */
export const STRUCTURAL_ACTIONS: readonly DatatableAction[] = ['create_table', 'add_field', 'update_field', 'delete_field', 'delete_table'];

/** The 14 logical types (R-DT-66). */
export const LOGICAL_TYPES = [
  '文本',
  '长文本',
  '整数',
  '数字',
  '日期',
  '日期时间',
  '时间',
  '勾选',
  '单选',
  '多选',
  '邮箱',
  '电话',
  '链接',
  'JSON',
] as const;
export type LogicalType = (typeof LOGICAL_TYPES)[number];

/** Input aliases stored as 数字 with preset precision (R-DT-67). */
export const TYPE_ALIASES: Readonly<Record<string, { uidt: '数字'; precision: number; scale: number }>> = {
  金额: { uidt: '数字', precision: 18, scale: 2 },
  百分比: { uidt: '数字', precision: 12, scale: 4 },
  高精度数字: { uidt: '数字', precision: 38, scale: 18 },
};

/**
 * A field definition as `create_table.fields`, `add_field.field` and `list_columns` share it.
 */
export interface FieldDef {
  title: string;
  uidt: LogicalType;
  required?: boolean;
  unique?: boolean;
  /** 单选 / 多选 options. */
  options?: string[];
  /** 数字: total digits (default 38). */
  precision?: number;
  /** 数字: digits after the point (default 2). */
  scale?: number;
}

/** A field as stored in the platform's metadata (R-DT-09); the column name is the title. */
export interface FieldMeta {
  title: string;
  uidt: LogicalType;
  required: boolean;
  unique: boolean;
  options: string[];
  precision: number | null;
  scale: number | null;
  /** Order of the field in the table (0-based). */
  position: number;
}

/** A logical table (R-DT-06/07). */
export interface TableMeta {
  /** UUID (R-DT-03). */
  id: string;
  orgId: string;
  /** `org_data_<normalized org>`. */
  schema: string;
  /** The table's real name in that schema: its (Chinese) title. */
  title: string;
  fields: FieldMeta[];
}

/** Row scope of a grant (R-DT-16..22). */
export type RowScope = 'all' | 'own';

/** One grant row: an exception for (table, role) (R-DT-13). */
export interface Grant {
  tableId: string;
  roleId: string;
  /** Allowed actions; null = every action. */
  actions: DatatableAction[] | null;
  rowScope: RowScope;
  /** The owner field holding the operator's employee number when rowScope is `own`. */
  ownerField: string | null;
}

/** What the current operator may do on one table, after the union over roles (R-DT-14, A-26). */
export interface EffectiveAccess {
  /** Allowed actions; `all` when the table is open for this operator. */
  actions: 'all' | ReadonlySet<DatatableAction>;
  rowScope: RowScope;
  /** Set when rowScope is `own`. */
  ownerField: string | null;
  /**
   * With rowScope `own`: every owner field of the operator's own grants (several roles may
   * name different fields; a row owned through any of them is visible). Absent = [ownerField].
   * Added by Engineer A.
   */
  ownerFields?: readonly string[];
}

/** The operator and line a datatable call runs for, taken from runtime_context only (R-ID-01). */
export interface DtCaller {
  /** Raw org id; "" is refused (R-DT-12). */
  orgId: string;
  /** The roles whose grants apply (the context's role_id; more when the line supplies them). */
  roleIds: string[];
  /** actor_emp_no (R-DT-24); "" when unknown (own scope then fails closed, R-DT-20). */
  empNo: string;
  teamRole: 'owner' | 'admin' | 'member';
  allowSql: boolean;
  chatMode: boolean;
  sessionId: string;
  /** actor_key or "" — who was asked, for confirmation tokens. */
  actorKey: string;
  /** Absolute workspace (backups, insert_from_file). */
  workspaceDir: string;
  channel: string;
  isAdmin: boolean;
  lang: 'zh-CN' | 'en';
  /**
   * IANA zone of the caller's people: instants are shown and wall-clock input read in it
   * (docs/datatable.md); runDatatable always sets it, absent = the session's own zone.
   */
  timeZone?: string;
}

/** What every action receives. */
export interface DtEnv {
  caller: DtCaller;
  /** Opens a short transaction per use (db_factory, R-DT-96). */
  tx: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;
  /** For reads outside a transaction. */
  q: Queryable;
  /** Injectable clock (token expiry, backup file names). */
  now: () => Date;
  /** Where warnings go (a failed backup, R-DT-92); the process logger when absent. Added by Engineer C. */
  log?: Logger;
  /** Operator switches (absent = defaults). Added by Engineer A. */
  settings?: DtSettings;
  /**
   * The database engine behind `tx` when known (runtime_context.db.engine). The SQL channel
   * asks the server (`version()`) when absent. The embedded engine has no statement timeout,
   * so the SQL channel refuses unbounded constructs there (sql/embedded-guard.ts).
   */
  engine?: 'embedded' | 'server';
}

/** Operator switches of the datatable skill. */
export interface DtSettings {
  /** D-01/D-02: structural actions need team_role owner/admin (default true; false only for migration). */
  enforceStructuralRoles?: boolean;
}

/** An action handler: payload in, envelope out (never throws for the caller's mistakes). */
export type ActionHandler = (env: DtEnv, payload: Record<string, unknown>) => Promise<Envelope>;
