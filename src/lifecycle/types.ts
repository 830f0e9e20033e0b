/**
 * The live skill set of a gateway: every source's skills, the per-role scope, hot
 * reload, install and per-role enablement. One object per process, shared by the turn, the
 * planners, `help`, the chat tools `create_skill`/`edit_skill` and the operators' console.
 *
 * Source: docs/skill-authoring.md (roles `skills:`,
 * "the console can change it per role"). Requirement ids: R-LOAD-04, R-PRE-*.
 */
import type { Registry } from '../registry/discover.ts';
import type { SkillIssue, SkillSource } from '../registry/types.ts';

/** What one reload changed (names), and the problems that kept a last good version serving. */
export interface ReloadReport {
  added: string[];
  changed: string[];
  removed: string[];
  /**
   * Skills whose new version on disk is broken: the last good version keeps serving
   * §4); `issues` says why. A skill broken from its first load is simply not served.
   */
  keptLastGood: Array<{ skill: string; dir: string; issues: SkillIssue[] }>;
}

/** One skill as a role sees it (console: skills per role). */
export interface RoleSkillState {
  skill: string;
  source: SkillSource;
  /** The role that owns it when `source` is `role`. */
  ownerRole?: string;
  /** Enabled for this role (config `skills:` list, then the console's override). */
  enabled: boolean;
  status: 'ok' | 'broken';
  issues: SkillIssue[];
  /** Absolute folder. */
  dir: string;
}

/** Result of installing a package (zip or folder). */
export interface InstallResult {
  ok: boolean;
  /** Registered name, when installed. */
  skill?: string;
  /** Absolute folder it now lives in. */
  dir?: string;
  /** Preflight in install mode: problems shown as warnings (README.md "The skillgate command"). */
  warnings: SkillIssue[];
  /** Why it was refused (path escape, symlink out, caps, unreadable), zh-CN first. */
  error?: string;
}

/** The live skill set. Implemented in `src/lifecycle/live.ts`. */
export interface SkillLifecycle {
  /** The current registry (built-in, shared roots, market, every role's own skills; chains added by the gateway). */
  registry(): Registry;
  /**
   * The names role `roleId` may call: built-in/shared/market skills its config `skills:` list
   * gives it (`*` = all), minus the ones the console disabled for it, plus the role's own
   * (`source: role`) skills; never another role's own skills.
   */
  skillsFor(roleId: string): readonly string[];
  /** Re-discover every root now; resolves once `registry()` and listeners reflect the disk. */
  reload(reason?: string): Promise<ReloadReport>;
  /** Persist a per-role override (console); takes effect for the next turn. */
  setEnabled(roleId: string, skill: string, enabled: boolean): Promise<void>;
  /** Every skill as `roleId` sees it, enabled or not (console). */
  roleState(roleId: string): Promise<RoleSkillState[]>;
  /**
   * Install a zip file or a folder: unpack safely, preflight in install mode, register, enable.
   * `roleId` given → a role skill of that role; else a shared skill (`<data>/skills/`).
   */
  install(source: string, opts?: { roleId?: string }): Promise<InstallResult>;
  /** Called after every reload that changed something (the gateway rebuilds chains, publishes the catalog). */
  onChange(listener: (report: ReloadReport) => void | Promise<void>): void;
  /** Stop watching. */
  close(): Promise<void>;
}
