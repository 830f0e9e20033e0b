/**
 * Shapes of the directory and of a resolved sender (docs/configuration.md).
 */
import { ACTOR_KEYS } from '../runtime/keys.ts';
import type { FixedContext, TeamRole } from '../runtime/types.ts';

export type { TeamRole };

import type { Lang } from '../channel/types.ts';

export type { Lang };

/** One contact of the directory (a row of `skillgate.contacts` plus its platform ids). */
export interface Contact {
  /** Internal primary key as a decimal string (`actor_id`, R-CTX-08). */
  id: string;
  /** The directory org (never "": see directoryOrgId). */
  orgId: string;
  contactKey: string;
  name: string;
  empNo: string;
  /** Bare department text (`actor_department`, R-CTX-08). */
  department: string;
  /** The department's node id in the org tree, null when it is not in the tree. */
  departmentId: string | null;
  position: string;
  /** Rank (`actor_title`). */
  title: string;
  phone: string;
  email: string;
  tags: string[];
  /** Team id ("" when none). */
  team: string;
  teamRole: TeamRole;
  /** May fill in for others on the `web_admin` channel (R-ADM). */
  isAdmin: boolean;
  /** Platform ids per channel, e.g. `{telegram: ["42"], feishu: ["ou_…", "on_…"]}`. */
  channelIds: Record<string, string[]>;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The actor_* values of the fixed context (R-CTX-02/03, R-CTX-07/08). A type
 * alias (not an interface) so it is assignable to `Record<string, unknown>` (`given`).
 */
export type ActorFields = Pick<FixedContext, (typeof ACTOR_FIELD_KEYS)[number]>;

/** The actor_* keys a directory lookup fills: actor_id plus the spec's ACTOR_KEYS (not actor_is_admin). */
export const ACTOR_FIELD_KEYS = ['actor_id', ...ACTOR_KEYS] as const;

/** Who sent a message, as the directory knows them. */
export interface ResolvedActor {
  /** True when a contact of the directory matched. */
  known: boolean;
  /** The contact key, or `<channel>:<platformId>` when unknown. */
  contactKey: string;
  teamRole: TeamRole;
  /** May act as web_admin (fill in for others). */
  isAdmin: boolean;
  fields: ActorFields;
  /** The contact's team id ("" when none or unknown). */
  teamId?: string;
  /** The sender's channel and every platform id it came with (primary first). */
  channel?: string;
  platformIds?: string[];
}

/** One refused (or, in warnings, noted) input row of a directory import. */
export interface ImportIssue {
  /** CSV: the line number in the file (header = 1); JSON: 1-based index in its list. */
  row: number;
  /** The column / JSON key at fault (`email`, `department`, `telegram`, `path`…). */
  column: string;
  /** Localized text naming row and column, e.g. `第 3 行 email 无效：…`. */
  message: string;
  /** Which list the row belongs to (JSON `departments` or contacts). */
  section: 'contacts' | 'departments';
}

/** What {@link importDirectory} did. */
export interface ImportReport {
  orgId: string;
  contacts: { inserted: number; updated: number };
  departments: { inserted: number };
  /** Rows refused and skipped (the others were imported). */
  errors: ImportIssue[];
  /** Rows imported with a remark (ambiguous or unknown department name, unknown column). */
  warnings: ImportIssue[];
}
