/**
 * The shape of `runtime_context` (R-CTX, R-PCTX, R-CFG-02). Field names stay
 * as the specification spells them.
 */
import type { Queryable, Tx } from '../store/db.ts';

/** The 17 fixed keys, always present (R-CTX-02). The single source of truth (R-CTX-11). */
export const FIXED_CTX_FIELDS = [
  'raw_input',
  'attachments',
  'actor_name',
  'actor_emp_no',
  'actor_department',
  'actor_department_path',
  'actor_position',
  'actor_title',
  'actor_phone',
  'actor_email',
  'actor_tags',
  'actor_key',
  'channel',
  'triggered_at',
  'triggered_at_str',
  'actor_id',
  'actor_is_admin',
] as const;
export type FixedCtxField = (typeof FIXED_CTX_FIELDS)[number];

/** Attachment media kinds. */
export type MediaKind = 'image' | 'video' | 'audio' | 'file';

/** One `attachments` item (R-CTX-06): `att_type` mirrors `type`; local_path / url may be "". */
export interface AttachmentItem {
  type: MediaKind;
  att_type: MediaKind;
  filename: string;
  local_path: string;
  url: string;
}

/** The fixed context section (empty values per R-CTX-03). */
export interface FixedContext {
  raw_input: string;
  attachments: AttachmentItem[];
  actor_name: string;
  actor_emp_no: string;
  actor_department: string;
  actor_department_path: string;
  actor_position: string;
  actor_title: string;
  actor_phone: string;
  actor_email: string;
  actor_tags: string[];
  actor_key: string;
  channel: string;
  /** Unix time in seconds (float), 0 when unknown (R-CTX-10). */
  triggered_at: number;
  /** `YYYY-MM-DD HH:MM` in UTC, "" when unknown (R-CTX-10). */
  triggered_at_str: string;
  actor_id: string;
  actor_is_admin: boolean;
}

/** `team_role` values (R-PCTX-02). */
export type TeamRole = 'owner' | 'admin' | 'member';

/**
 * `channel_registry` (issue: executor §4): a small typed object, present on the chat line
 * only (null elsewhere, R-PCTX-09).
 */
export interface ChannelRegistry {
  /** Send `message` to `to` (`<channel>[@<account>]:<recipient id>`). */
  send(to: string, message: { text?: string; display_md?: string; files?: string[] }): Promise<{ ok: boolean; error?: string }>;
  /** Channels that are on, e.g. `["web", "telegram"]`. */
  channels(): string[];
}

/** Options of `call_skill` beyond the input (R-CALL-01..04). */
export interface CallSkillOptions {
  source?: Record<string, unknown>;
  template?: Record<string, string>;
  passthrough?: boolean;
  [extra: string]: unknown;
}

/** `call_skill(name, input, options)`: never throws (R-CALL-10). */
export type CallSkill = (name: string, input?: Record<string, unknown>, options?: CallSkillOptions) => Promise<Record<string, unknown>>;

/** `db_factory`: opens a fresh short transaction per use (R-PCTX-07, A-44). */
export type DbFactory = <T>(fn: (session: Tx) => Promise<T>) => Promise<T>;

/** The platform-injected section (R-PCTX). */
export interface PlatformContext {
  org_id: string;
  role_id: string;
  session_id: string;
  user_id: string;
  team_id: string;
  team_role: TeamRole;
  is_admin: boolean;
  chat_mode: boolean;
  allow_sql: boolean;
  /** Absolute path of the session workspace (R-PCTX-06). */
  workspace_dir: string;
  /** `skill_config.sandbox` as a nested object. */
  skill_config: { sandbox?: Record<string, unknown> };
  /** In process only: the legacy pre-injected session (null for sync entries, R-FORM-09). */
  db?: Queryable | null;
  /** In process only. */
  db_factory?: DbFactory | null;
  /** In process only; null off the interactive line (R-PCTX-08). */
  abort_signal?: AbortSignal | null;
  /** In process only (R-PCTX-11). */
  call_skill?: CallSkill;
  channel_registry: ChannelRegistry | null;
  /** The inbound request object on the chat line, null elsewhere (R-PCTX-09). */
  request: unknown | null;
}

/** The config section (R-CFG-02): values appear here and as top-level flat copies. */
export interface ConfigContext {
  skill_configs: Record<string, unknown>;
  skill_args: Record<string, unknown>;
}

/** A built runtime_context: fixed + platform + config + flat config copies + `_`-keys. */
export type RuntimeContext = FixedContext & PlatformContext & ConfigContext & Record<string, unknown>;

/** Keys that never leave the process (R-SUB-02, R-FORM-07, R-CALL-13). */
export const IN_PROCESS_ONLY_KEYS = [
  'db',
  'db_factory',
  'call_skill',
  'abort_signal',
  'channel_registry',
  'request',
  'messaging',
  'await_reply',
  'lifecycle',
] as const;

/**
 * The JSON-safe copy of a context for `SKILL_CONTEXT` and the Python bridge: drops the
 * in-process-only keys, every `_`-prefixed key (R-PCTX-12) and every function value.
 */
export function toSubprocessContext(ctx: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx)) {
    if (k.startsWith('_')) continue;
    if ((IN_PROCESS_ONLY_KEYS as readonly string[]).includes(k)) continue;
    if (typeof v === 'function') continue;
    out[k] = v;
  }
  return out;
}
