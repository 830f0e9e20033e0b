/**
 * The executor's one entry point: run a loaded skill under its exec type and hand back a
 * {@link RawOutcome}.
 *
 * Source: README.md "The skillgate command",
 * §3. Requirement ids: R-FORM-05..09, R-FORM-11, R-ENTRY-01..07, R-SUB-01..07, R-SUBCMD-04,
 * R-WALL-01/02/05, R-OUT-09, A-04, A-05, A-06, A-47, D-06, D-15, D-16.
 */
import type { RawOutcome } from '../envelope/types.ts';
import type { Logger } from '../log/logger.ts';
import type { CallSkill, RuntimeContext } from '../runtime/types.ts';
import type { SkillRecord } from '../registry/types.ts';
import { runHttp } from './http.ts';
import { runInProcess } from './in-process.ts';
import { runPythonBridge } from './python-bridge.ts';
import { runSubprocess, SUBPROCESS_TYPES } from './subprocess.ts';
import {
  brokenSkill,
  documentSkillWithoutModel,
  noExecType,
  notExecutable,
  unsupportedExecMode,
  unsupportedExecType,
} from './unsupported.ts';

export { buildArgv, SUBCOMMAND_KEY, type ArgvOptions } from './argv.ts';
export { parseSubprocessStdout, mediaPathLine, mediaKindOf, MEDIA_EXTENSIONS, type StdoutParseOptions } from './stdout.ts';
export { childEnv, isGatewaySecretVar, secretScrubber } from './child-env.ts';
export { declaredParamCount, bindArgs, findEntry, type ResolvedEntry } from './binder.ts';
export { startWall, wallMs, FALLBACK_WALL_SEC, type CallWall, type StopCause } from './wall.ts';
export { PYTHON_BRIDGE_SCRIPT } from './python-bridge.ts';
export { HandlerExitError } from './exit-guard.ts';

/** Subprocess timeout when the skill declares none (R-SUB-06), seconds. */
export const SUBPROCESS_DEFAULT_SEC = 60;

/** Options of {@link executeSkill}. */
export interface ExecuteOptions {
  /** Effective wall of this call, seconds (resolved by the caller from src/config/walls.ts). Not positive/finite → 1800 (D-16). */
  wallSec: number;
  /** Subprocess timeout, seconds: declared wall_sec/timeout_sec else 60, never above wallSec (D-06, R-SUB-06); see {@link subprocessTimeoutFor}. */
  subprocessTimeoutSec: number;
  /** Aborts the run (user pressed stop, or a parent wall). */
  abortSignal?: AbortSignal;
  /** False in background (async) runs: in-process handlers get `abort_signal: null` (R-ASYNC-05). */
  exposeAbortSignal?: boolean;
  /** Environment variables added for subprocesses: the skill's secret parameters (R-SUB-07, R-CFG-09). Never put into argv. */
  secretEnv?: Record<string, string>;
  log: Logger;
  /** Python bridge only: services the bridge's call_skill requests (R-PCTX-11 for Python). */
  callSkill?: CallSkill;
  /** A model is configured (LLM_BASE_URL); default false. Without one a skill_md skill fails with `config`. */
  llmConfigured?: boolean;
  /** Progress notes of the running call (MCP progress notifications), for the chat's progress line. */
  onProgress?: (note: string) => void;
  /** Language of platform texts (default zh-CN). */
  lang?: 'zh-CN' | 'en';
  /** Runs a document (skill_md) skill when a model is configured (the turn layer's sub-agent). */
  runDocumentSkill?: (skill: SkillRecord, input: Record<string, unknown>, ctx: RuntimeContext) => Promise<RawOutcome>;
}

/**
 * The subprocess timeout of one call (D-06, R-SUB-06, A-55): the skill's declared
 * `wall_sec` / `timeout_sec` (the larger when both), else 60 s; never above `wallSec`.
 * @returns seconds
 */
export function subprocessTimeoutFor(skill: Pick<SkillRecord, 'frontmatter'>, wallSec: number): number {
  const declared = [skill.frontmatter.wallSec, skill.frontmatter.timeoutSec].filter(
    (v): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0,
  );
  const base = declared.length > 0 ? Math.max(...declared) : SUBPROCESS_DEFAULT_SEC;
  return Number.isFinite(wallSec) && wallSec > 0 ? Math.min(base, wallSec) : base;
}

/** Dispatch by skill type / exec type. */
async function dispatch(
  skill: SkillRecord,
  input: Record<string, unknown>,
  ctx: RuntimeContext,
  opts: ExecuteOptions,
): Promise<RawOutcome> {
  if (skill.status === 'broken') return brokenSkill(skill);
  if (skill.skillType === 'skill_md') {
    if (!opts.llmConfigured) return documentSkillWithoutModel(skill);
    if (opts.runDocumentSkill) return opts.runDocumentSkill(skill, input, ctx);
    return {
      kind: 'failed',
      error: `skill "${skill.name}": document skills are run by the conversation layer, not the executor`,
      error_type: 'config',
      non_retriable: true,
    };
  }
  if (skill.skillType !== 'handler') return notExecutable(skill);
  const mode = skill.frontmatter.execMode?.trim().toLowerCase();
  if (mode === 'shell' || mode === 'runtime') return unsupportedExecMode(skill, mode);
  const type = skill.execType;
  const wallSec = opts.wallSec;
  switch (type) {
    case 'IN_PROCESS':
      return runInProcess(skill, input, ctx, {
        wallSec,
        abortSignal: opts.abortSignal,
        exposeAbortSignal: opts.exposeAbortSignal,
        log: opts.log,
      });
    case 'PYTHON_BRIDGE':
      return runPythonBridge(skill, input, ctx, {
        wallSec,
        abortSignal: opts.abortSignal,
        secretEnv: opts.secretEnv,
        log: opts.log,
        callSkill: opts.callSkill,
      });
    case 'HTTP':
      return runHttp(skill, input, ctx, { wallSec, abortSignal: opts.abortSignal, secretEnv: opts.secretEnv, log: opts.log });
    case 'MCP':
      // Tools of configured MCP servers carry their binding (src/mcp/); skill.toml ones do not.
      if (skill.mcp)
        return (await skill.mcp.run(input, ctx, {
          wallSec,
          abortSignal: opts.abortSignal,
          log: opts.log,
          onProgress: opts.onProgress,
          lang: opts.lang,
        })) as RawOutcome;
      return unsupportedExecType(skill, type);
    case 'BROWSER':
      return unsupportedExecType(skill, type);
    case null:
      return noExecType(skill);
    default:
      if (SUBPROCESS_TYPES.includes(type)) {
        const timeoutSec =
          Number.isFinite(wallSec) && wallSec > 0 ? Math.min(opts.subprocessTimeoutSec, wallSec) : opts.subprocessTimeoutSec;
        return runSubprocess(skill, input, ctx, { timeoutSec, abortSignal: opts.abortSignal, secretEnv: opts.secretEnv, log: opts.log });
      }
      return unsupportedExecType(skill, String(type));
  }
}

/**
 * Run `skill` with `input` and the runtime context `ctx`.
 *
 * - IN_PROCESS: the handler module's entry, bound by declared parameters (D-15), under the
 *   wall; `ctx.abort_signal` fires on timeout and caller abort (R-WALL-05); a sync entry
 *   sees `db`/`db_factory` null (R-FORM-09); `process.exit` is caught.
 * - PYTHON_BRIDGE: handler.py through the bundled bridge, under the wall.
 * - PYTHON / SHELL / INLINE_SHELL / NODE / RUBY / GO: a subprocess (argv,
 *   SKILL_INPUT / SKILL_CONTEXT, secrets as env), under `subprocessTimeoutSec` ≤ `wallSec`.
 * - HTTP: one request per the exec TOML (R-FORM-11, A-47).
 * - MCP: a configured MCP server's tool through its binding (docs/mcp.md).
 * - BROWSER / MCP without a binding, `exec_mode: shell|runtime`, skill_md without a model, knowledge, broken:
 *   `failed` with `error_type: 'config'`.
 *
 * @returns `{kind:'returned', value}` or `{kind:'failed', error, error_type?, …}` (R-OUT-09).
 *   Never throws for a skill's fault; an unexpected internal error is also returned as
 *   `failed` naming the skill.
 */
export async function executeSkill(
  skill: SkillRecord,
  input: Record<string, unknown>,
  ctx: RuntimeContext,
  opts: ExecuteOptions,
): Promise<RawOutcome> {
  try {
    return await dispatch(skill, input, ctx, opts);
  } catch (err) {
    opts.log.error({ err, skill: skill.name }, 'executor internal error');
    return { kind: 'failed', error: `skill "${skill.name}" could not be run: ${err instanceof Error ? err.message : String(err)}` };
  }
}
