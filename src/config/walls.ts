/**
 * Wall clocks: one module read everywhere (D-06, R-WALL).
 * All values are in seconds.
 */
import { ConfigError } from './errors.ts';

/** Resolved wall-clock settings, seconds. */
export interface WallSettings {
  /** Chat-line tool wall, `TOOL_WALL_SEC` (default 1800). */
  toolWallSec: number;
  /** Skill wall when the skill declares none, `SKILL_WALL_DEFAULT` (default 600). */
  skillWallDefaultSec: number;
  /** Upper bound of a declared skill wall, `SKILL_WALL_HARDCAP` (default 1800). */
  skillWallHardcapSec: number;
  /** Whole-chain wall, `CHAIN_WALL_SEC` (default max(30, TOOL_WALL_SEC − 30)). */
  chainWallSec: number;
  /** Per-step wall inside a chain, `CHAIN_STEP_WALL_SEC` (default = chain wall). */
  chainStepWallSec: number;
  /** Parallel steps of one chain layer, `MAX_CONCURRENT_CHAIN_STEPS` (default 3). */
  maxConcurrentChainSteps: number;
  /** Subprocess timeout when the skill declares none (R-SUB-06): 60. */
  subprocessDefaultSec: number;
}

function positiveInt(env: NodeJS.ProcessEnv, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n <= 0) {
    throw new ConfigError(`${key} must be a positive whole number of seconds, got "${raw}"`, key);
  }
  return n;
}

/**
 * Resolve the wall clocks from the environment (D-06 defaults).
 * @throws ConfigError naming the variable when a value is not a positive integer.
 */
export function resolveWalls(env: NodeJS.ProcessEnv): WallSettings {
  const toolWallSec = positiveInt(env, 'TOOL_WALL_SEC', 1800);
  const skillWallDefaultSec = positiveInt(env, 'SKILL_WALL_DEFAULT', 600);
  const skillWallHardcapSec = positiveInt(env, 'SKILL_WALL_HARDCAP', 1800);
  if (skillWallDefaultSec > skillWallHardcapSec) {
    throw new ConfigError(
      `SKILL_WALL_DEFAULT (${skillWallDefaultSec}) must not exceed SKILL_WALL_HARDCAP (${skillWallHardcapSec})`,
      'SKILL_WALL_DEFAULT',
    );
  }
  const chainWallSec = positiveInt(env, 'CHAIN_WALL_SEC', Math.max(30, toolWallSec - 30));
  const chainStepWallSec = positiveInt(env, 'CHAIN_STEP_WALL_SEC', chainWallSec);
  const maxConcurrentChainSteps = positiveInt(env, 'MAX_CONCURRENT_CHAIN_STEPS', 3);
  return {
    toolWallSec,
    skillWallDefaultSec,
    skillWallHardcapSec,
    chainWallSec,
    chainStepWallSec,
    maxConcurrentChainSteps,
    subprocessDefaultSec: 60,
  };
}

/**
 * Effective wall of one skill call (D-06): the declared `wall_sec` / `timeout_sec`
 * (larger of the two when both are set) capped at the hard cap, else the default.
 * @returns seconds
 */
export function skillWallSec(walls: WallSettings, declared: { wallSec?: number; timeoutSec?: number }): number {
  const values = [declared.wallSec, declared.timeoutSec].filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0);
  if (values.length === 0) return walls.skillWallDefaultSec;
  return Math.min(Math.max(...values), walls.skillWallHardcapSec);
}
