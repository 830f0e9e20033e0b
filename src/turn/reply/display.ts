/**
 * Which display blocks a turn shows (R-DISP-01..05, A-16, D-22).
 */
import type { ToolInvocation } from '../planner.ts';

/** One shown part of the body, in order. */
export interface BodyPart {
  /** `display`: an invocation's display_md; `own`: text standing for the planner's own answer. */
  kind: 'display' | 'own';
  md: string;
  /** The invocation it came from (-1 for the planner text). */
  from: number;
}

/**
 * Apply the display rules to candidate parts in order:
 * - a `display` part without `display_only` is appended (R-DISP-01, R-DISP-03);
 * - the first `display_only` block clears everything before it — the planner's own text and
 *   the plain blocks (R-DISP-04, R-DISP-05); a later `display_only` block replaces the earlier
 *   one (last exclusive wins, A-16);
 * - anything after an exclusive block that is not itself exclusive is dropped.
 * `exclusive[i]` tells whether `parts[i]` is a display_only block.
 */
export function selectParts(parts: BodyPart[], exclusive: boolean[]): BodyPart[] {
  let shown: BodyPart[] = [];
  let exclusiveSeen = false;
  parts.forEach((p, i) => {
    if (exclusive[i]) {
      shown = [p];
      exclusiveSeen = true;
    } else if (!exclusiveSeen) shown.push(p);
  });
  return shown;
}

/** The display_md of an invocation when it is a non-empty string, else null. */
export function displayOf(inv: ToolInvocation): { md: string; exclusive: boolean } | null {
  const md = inv.envelope.display_md;
  if (typeof md !== 'string' || md.trim() === '') return null;
  return { md, exclusive: inv.envelope.display_only === true };
}
