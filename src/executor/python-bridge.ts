/**
 * Python bridge runner: a handler.py with an entry function and no argparse + `__main__`
 * (`execType === 'PYTHON_BRIDGE'`, A-04) runs in a `python3 python_bridge.py <handler.py>`
 * process that imports it and calls the entry with the in-process binding rules (D-15).
 * The protocol is documented in `python_bridge.py` and docs/executors.md.
 *
 * Requirement ids: R-FORM-05, R-FORM-06, R-FORM-09, R-ENTRY-01..05, R-ENTRY-07, R-PCTX-11,
 * R-CALL-10, R-WALL-01, R-WALL-05, A-04, D-15.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { pythonExecutable } from '../config/python.ts';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RawOutcome } from '../envelope/types.ts';
import type { Logger } from '../log/logger.ts';
import { toSubprocessContext, type CallSkill, type RuntimeContext } from '../runtime/types.ts';
import type { SkillRecord } from '../registry/types.ts';
import { childEnv, secretScrubber } from './child-env.ts';
import { terminateTree, trackGroup, KILL_GRACE_MS } from './process-tree.ts';
import { stderrLog } from './stderr-log.ts';
import { startWall, stopMessage } from './wall.ts';

/** The bundled bridge script, next to this file. */
export const PYTHON_BRIDGE_SCRIPT = fileURLToPath(new URL('./python_bridge.py', import.meta.url));
/** Protocol output beyond this many bytes fails the call (bytes). */
export const BRIDGE_MAX_OUTPUT = 50 * 1024 * 1024;

/** Options of {@link runPythonBridge}. */
export interface PythonBridgeOptions {
  /** Wall clock of the call, seconds (the bridge stands for an in-process call: the skill wall applies). */
  wallSec: number;
  abortSignal?: AbortSignal;
  /** The skill's secret parameters as environment variables (R-SUB-07). */
  secretEnv?: Record<string, string>;
  log: Logger;
  /** Services the handler's `await runtime_context["call_skill"](…)` (R-PCTX-11). */
  callSkill?: CallSkill;
  /** Interpreter (default `python3`). */
  python?: string;
}

/** A message the bridge writes on its protocol channel. */
type BridgeMessage =
  | { type: 'call_skill'; id: number; name: string; input?: Record<string, unknown>; options?: Record<string, unknown> }
  | { type: 'result'; value: unknown }
  | { type: 'error'; error: string; traceback?: string; exit_code?: number | null; system_exit?: boolean };

/** Answer one call_skill request; never throws (R-CALL-10). */
async function answerCallSkill(
  callSkill: CallSkill | undefined,
  msg: Extract<BridgeMessage, { type: 'call_skill' }>,
): Promise<Record<string, unknown>> {
  if (!callSkill) return { ok: false, error: 'call_skill unavailable', skill: msg.name };
  try {
    return await callSkill(msg.name, msg.input ?? {}, msg.options ?? {});
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err), skill: msg.name };
  }
}

function send(child: ChildProcess, msg: unknown): void {
  if (child.stdin?.writable) child.stdin.write(JSON.stringify(msg) + '\n');
}

/**
 * Run a Python handler through the bridge: input and the JSON-safe context
 * (`toSubprocessContext`) go in on stdin; the bridge sets `db`/`db_factory` to None and
 * `call_skill` to an awaitable answered by `opts.callSkill`.
 *
 * @returns `returned` with the entry's value (non-JSON values stringified by the bridge);
 *   `failed` when python3 is missing (`config`), the handler fails to import, has no entry,
 *   raises (its `Type: message`), raises SystemExit (CLI-shaped, `config`), the process dies
 *   without a result (exit code + last stderr line), output exceeds {@link BRIDGE_MAX_OUTPUT},
 *   or the wall / a caller abort stops it (process tree killed). Never throws.
 */
export async function runPythonBridge(
  skill: SkillRecord,
  input: Record<string, unknown>,
  ctx: RuntimeContext,
  opts: PythonBridgeOptions,
): Promise<RawOutcome> {
  const file = skill.entryFile;
  if (!file) return { kind: 'failed', error: `skill "${skill.name}" has no handler.py`, error_type: 'config', non_retriable: true };
  const python = opts.python ?? (await pythonExecutable());
  const scrub = secretScrubber(Object.values(opts.secretEnv ?? {}));
  const log = opts.log.child({ skill: skill.name });
  const stderr = stderrLog(log, scrub);
  const env = childEnv(process.env, { secretEnv: opts.secretEnv, extra: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } });

  let child: ChildProcess;
  try {
    child = spawn(python, [PYTHON_BRIDGE_SCRIPT, file], { cwd: skill.dir, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (err) {
    return {
      kind: 'failed',
      error: `skill "${skill.name}": cannot start ${python}: ${(err as Error).message}`,
      error_type: 'config',
      non_retriable: true,
    };
  }
  const spawnError = new Promise<NodeJS.ErrnoException>((resolve) => child.once('error', resolve));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const untrack = child.pid ? trackGroup(child.pid) : () => undefined;
  child.stdin?.on('error', () => undefined); // EPIPE when the bridge exits early
  child.stderr?.on('data', (c: Buffer) => stderr.write(c));

  let final: Extract<BridgeMessage, { type: 'result' | 'error' }> | null = null;
  let outBytes = 0;
  let overflow = false;
  let resolveFinal!: () => void;
  const gotFinal = new Promise<'final'>((r) => (resolveFinal = () => r('final')));
  child.stdout?.on('data', (c: Buffer) => {
    outBytes += c.length;
    if (outBytes > BRIDGE_MAX_OUTPUT && !overflow) {
      overflow = true;
      resolveFinal();
    }
  });
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    if (overflow || line.trim() === '') return;
    let msg: BridgeMessage;
    try {
      msg = JSON.parse(line) as BridgeMessage;
    } catch {
      log.debug({ stdout: scrub(line.slice(0, 2000)) }, 'non-protocol line from the python bridge');
      return;
    }
    if (msg.type === 'call_skill') {
      void answerCallSkill(opts.callSkill, msg).then((result) => send(child, { type: 'call_skill_result', id: msg.id, result }));
    } else if ((msg.type === 'result' || msg.type === 'error') && !final) {
      final = msg;
      resolveFinal();
    }
  });
  send(child, { input, context: toSubprocessContext(ctx) });

  const wall = startWall(opts.wallSec, [opts.abortSignal, ctx.abort_signal ?? undefined]);
  try {
    const first = await Promise.race([
      spawnError.then((e) => ({ spawnError: e }) as const),
      gotFinal.then(() => ({ final: true }) as const),
      closed.then((c) => ({ closed: c }) as const),
      wall.stopped.then((cause) => ({ cause }) as const),
    ]);
    if ('spawnError' in first) {
      const e = first.spawnError;
      const what = e.code === 'ENOENT' ? `${python} not found on PATH` : `cannot start ${python}: ${e.message}`;
      return { kind: 'failed', error: `skill "${skill.name}": ${what}`, error_type: 'config', non_retriable: true };
    }
    if ('cause' in first) {
      if (child.pid) await terminateTree(child.pid, closed);
      const timeout = first.cause.kind === 'timeout';
      return {
        kind: 'failed',
        error: stopMessage(skill.name, first.cause),
        ...(timeout ? { error_type: 'transient' as const } : {}),
        details: timeout ? { timeout: true, wall_sec: first.cause.afterSec } : { aborted: true },
      };
    }
    if (overflow) {
      if (child.pid) await terminateTree(child.pid, closed);
      return { kind: 'failed', error: `skill "${skill.name}" produced more than ${BRIDGE_MAX_OUTPUT / 1024 / 1024} MB of output` };
    }
    // Let the bridge exit by itself after its final message; kill it if it lingers.
    const exit = await Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), KILL_GRACE_MS).unref())]);
    if (exit === null && child.pid) await terminateTree(child.pid, closed);
    stderr.end();
    const msg = final as Extract<BridgeMessage, { type: 'result' | 'error' }> | null;
    if (msg?.type === 'result') return { kind: 'returned', value: msg.value };
    if (msg?.type === 'error') {
      if (msg.traceback) log.warn({ traceback: scrub(msg.traceback) }, 'python handler raised');
      if (msg.system_exit)
        return {
          kind: 'failed',
          error: `skill "${skill.name}": ${scrub(msg.error)}; the handler looks like a command-line script (R-ENTRY-07). Define async def execute(input_data, runtime_context) returning a dict, or make it an argparse CLI`,
          error_type: 'config',
          non_retriable: true,
        };
      return { kind: 'failed', error: `skill "${skill.name}" failed: ${scrub(msg.error)}` };
    }
    const c = exit ?? { code: null, signal: null };
    const last = stderr.lastLine();
    const how = c.signal ? `was killed by ${c.signal}` : `exited with code ${c.code ?? '?'}`;
    return {
      kind: 'failed',
      error: `skill "${skill.name}" (python bridge) ${how} without a result${last ? `: ${last}` : ''}`,
      details: { exit_code: c.code },
    };
  } finally {
    wall.dispose();
    untrack();
    lines.close();
    child.stdin?.end();
  }
}
