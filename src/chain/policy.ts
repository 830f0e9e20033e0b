/**
 * The per-step run policy of chains and scheduled runs
 * (R-CHAIN-05, R-CHAIN-46, R-CHAIN-49; D-05, D-06).
 *
 * In-chain behaviour changes live here, never in skills: the `chat_mode` every step sees
 * (false on the non-interactive lines, D-05) and the step wall (the skill's own declared
 * wall, else `CHAIN_STEP_WALL_SEC`, always cut by what is left of the chain wall, D-06).
 */
import { skillWallSec, type WallSettings } from '../config/walls.ts';
import type { SkillRecord } from '../registry/types.ts';

/** What a line imposes on every step it runs (the original's `SkillRunPolicy`). */
export interface SkillRunPolicy {
  /**
   * `chat_mode` of every step's runtime_context (R-PCTX-04, D-05): false on chains and
   * schedules, so a protected delete executes (and backs up) instead of waiting for a
   * confirmation nobody can give.
   */
  chatMode: boolean;
  /** Step wall in seconds for skills that declare none; undefined → `CHAIN_STEP_WALL_SEC`. */
  stepWallSec?: number;
}

/** The policy of chain steps (`CHAIN_POLICY`, R-CHAIN-46, D-05). */
export const CHAIN_POLICY: Readonly<SkillRunPolicy> = Object.freeze({ chatMode: false });

/** The policy of scheduled runs and their chain steps (D-05). */
export const SCHEDULE_POLICY: Readonly<SkillRunPolicy> = Object.freeze({ chatMode: false });

/** The policy of a non-interactive line. */
export function policyForLine(line: 'chain' | 'schedule'): Readonly<SkillRunPolicy> {
  return line === 'schedule' ? SCHEDULE_POLICY : CHAIN_POLICY;
}

/**
 * A skill's own wall inside a chain (R-CHAIN-05, D-06): its declared `wall_sec` /
 * `timeout_sec` (the larger, capped at `SKILL_WALL_HARDCAP`), or undefined when it declares
 * none (then the policy's / `CHAIN_STEP_WALL_SEC` applies).
 * @returns seconds, or undefined
 */
export function declaredStepWallSec(walls: WallSettings, skill: Pick<SkillRecord, 'frontmatter'> | undefined): number | undefined {
  if (!skill) return undefined;
  const { wallSec, timeoutSec } = skill.frontmatter;
  const declared = [wallSec, timeoutSec].some((v) => typeof v === 'number' && Number.isFinite(v) && v > 0);
  return declared ? skillWallSec(walls, { wallSec, timeoutSec }) : undefined;
}

/**
 * A step output that asks for a confirmation (`need_confirm: true`, e.g. a datatable delete
 * when a deployment keeps `chat_mode` true on a chain) becomes an immediate step failure:
 * nobody can confirm inside a chain, and the step must never hang or pass as done (D-05).
 * Any other output is returned unchanged.
 */
export function confirmationAsFailure(
  output: Record<string, unknown>,
  alias: string,
  lang: 'zh-CN' | 'en' = 'zh-CN',
): Record<string, unknown> {
  if (output.need_confirm !== true) return output;
  const en = `step "${alias}" asks for a confirmation (confirm_token), which nobody can give inside a chain; nothing was executed`;
  const zh = `步骤「${alias}」需要用户确认（confirm_token），链内无人能确认，未执行`;
  return { ...output, success: false, error: en, user_message: lang === 'en' ? `${en}.` : `${zh}。` };
}
