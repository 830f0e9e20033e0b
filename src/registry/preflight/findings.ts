/**
 * What a preflight check reports before the mode decides its severity (R-PRE-06,
 * README.md "The skillgate command").
 */
import type { SkillIssue } from '../types.ts';

/**
 * How a finding is graded:
 * - `problem`: a violation — `error` in create mode, `warning` in install mode;
 * - `advice`: information that never blocks, shown as a `warning` in both modes
 *   (D-15 defaulted context parameter, R-LOAD-17 length, python3 missing);
 * - `notice`: information shown as a `notice` in both modes ("will default", secrets, D-20);
 * - `fatal`: the folder cannot be checked at all — `error` in both modes.
 */
export type FindingKind = 'problem' | 'advice' | 'notice' | 'fatal';

/** One finding of a preflight check. */
export interface Finding {
  kind: FindingKind;
  /** Stable machine code, e.g. `handler.not_async`. */
  code: string;
  /** English, actionable, no "❌" prefix (R-PRE-06). */
  message: string;
}

/** Preflight mode: `create` (in-chat create/edit, strict) or `install` (zip/directory). */
export type PreflightMode = 'create' | 'install';

/** A violation (R-PRE-02..05, R-SCH-03, R-LOAD-15, R-ENTRY-09, D-14). */
export const problem = (code: string, message: string): Finding => ({ kind: 'problem', code, message });
/** Non-blocking warning (see {@link FindingKind}). */
export const advice = (code: string, message: string): Finding => ({ kind: 'advice', code, message });
/** Information (see {@link FindingKind}). */
export const notice = (code: string, message: string): Finding => ({ kind: 'notice', code, message });
/** The folder itself is missing or unreadable. */
export const fatal = (code: string, message: string): Finding => ({ kind: 'fatal', code, message });

/**
 * Adopt an issue reported by a shared registry reader (frontmatter, skill.toml, locate,
 * schema): its `notice`s stay notices, anything else is a problem.
 */
export function fromIssue(issue: SkillIssue): Finding {
  return { kind: issue.severity === 'notice' ? 'notice' : 'problem', code: issue.code, message: issue.message };
}

/** The severity of a finding in `mode` (R-PRE-06). */
export function severityOf(kind: FindingKind, mode: PreflightMode): SkillIssue['severity'] {
  switch (kind) {
    case 'fatal':
      return 'error';
    case 'problem':
      return mode === 'create' ? 'error' : 'warning';
    case 'advice':
      return 'warning';
    case 'notice':
      return 'notice';
  }
}
