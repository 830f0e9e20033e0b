/**
 * Subprocess runner (execa 9): PYTHON (CLI), SHELL, INLINE_SHELL, NODE, RUBY, GO.
 *
 * Source: docs/skill-authoring.md. Requirement ids: R-FORM-05,
 * R-FORM-06, R-FORM-07, R-SUB-01..07, R-SUBCMD-04, R-CFG-09, R-WALL-01, R-WALL-05, A-05,
 * A-06, D-06.
 */
import { access, constants } from 'node:fs/promises';
import { pythonExecutable } from '../config/python.ts';
import { extname } from 'node:path';
import type { RawOutcome } from '../envelope/types.ts';
import type { Logger } from '../log/logger.ts';
import type { RuntimeContext } from '../runtime/types.ts';
import type { ExecType, SkillRecord } from '../registry/types.ts';
import { buildArgv } from './argv.ts';
import { childEnv, secretScrubber } from './child-env.ts';
import { KILL_GRACE_MS, terminateTree, trackGroup } from './process-tree.ts';
import { stderrLog } from './stderr-log.ts';
import { parseSubprocessStdout } from './stdout.ts';
import { startWall, stopMessage } from './wall.ts';

/** Captured stdout beyond this many characters fails the call. */
export const MAX_STDOUT_CHARS = 50 * 1024 * 1024;

/** ExecTypes this runner handles. */
export const SUBPROCESS_TYPES: readonly ExecType[] = ['PYTHON', 'SHELL', 'INLINE_SHELL', 'NODE', 'RUBY', 'GO'];

/** Options of {@link runSubprocess}. */
export interface SubprocessOptions {
  /** Subprocess timeout, seconds (R-SUB-06, D-06); the caller caps it by the wall. */
  timeoutSec: number;
  abortSignal?: AbortSignal;
  /** Secret parameters as environment variables (R-SUB-07); never in argv. */
  secretEnv?: Record<string, string>;
  log: Logger;
}

/** A program and its arguments. */
export interface Command {
  file: string;
  args: string[];
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The command line of a subprocess skill (docs/skill-authoring.md): PYTHON `python3 <config>`,
 * SHELL `/bin/sh <config>`, INLINE_SHELL `/bin/sh -c <command> <skill name>` (so the
 * command sees the arguments as `$1…`), NODE `node <config>` (this Node binary), RUBY
 * `ruby <config>`, GO `go run <config>` unless `config` is an executable file not ending
 * in `.go` (then it runs directly). `argv` follows.
 * @returns null when the skill lacks what its type needs (no config / command).
 */
export async function commandFor(skill: SkillRecord, argv: string[]): Promise<Command | null> {
  const type = skill.execType;
  const config = skill.exec?.config ?? (type === 'PYTHON' || type === 'NODE' ? skill.entryFile : undefined);
  if (type === 'INLINE_SHELL') {
    const command = skill.exec?.command;
    return command ? { file: '/bin/sh', args: ['-c', command, skill.name, ...argv] } : null;
  }
  if (!config) return null;
  switch (type) {
    case 'PYTHON':
      return { file: await pythonExecutable(), args: [config, ...argv] };
    case 'SHELL':
      return { file: '/bin/sh', args: [config, ...argv] };
    case 'NODE':
      return { file: process.execPath, args: [config, ...argv] };
    case 'RUBY':
      return { file: 'ruby', args: [config, ...argv] };
    case 'GO':
      if (extname(config).toLowerCase() !== '.go' && (await isExecutable(config))) return { file: config, args: argv };
      return { file: 'go', args: ['run', config, ...argv] };
    default:
      return null;
  }
}

/**
 * Run a subprocess skill: cwd = the skill folder; argv from {@link buildArgv} (the skill's
 * secret parameters and any argument revealing a secret value left out); env = the parent
 * environment minus gateway secrets + `SKILL_INPUT` + `SKILL_CONTEXT` (no db / db_factory /
 * call_skill / `_` keys, R-SUB-02) + `opts.secretEnv`. stdin is empty. stderr is logged at
 * debug, never the result (R-SUB-04); stdout parsed by `parseSubprocessStdout` (R-SUB-03).
 *
 * @returns `returned` with the parsed stdout on exit code 0; `failed` on a non-zero exit
 *   (`skill "x" exited with code 3: <last stderr line>`, R-SUB-05), a missing interpreter
 *   (`config`), stdout over {@link MAX_STDOUT_CHARS}, or timeout / abort — then the whole
 *   process group gets SIGTERM and, 2 s later, SIGKILL (`error_type: 'transient'` on
 *   timeout). Never throws.
 */
export async function runSubprocess(
  skill: SkillRecord,
  input: Record<string, unknown>,
  ctx: RuntimeContext,
  opts: SubprocessOptions,
): Promise<RawOutcome> {
  const secretValues = Object.values(opts.secretEnv ?? {}).filter((v) => typeof v === 'string' && v !== '');
  const argv = buildArgv(input, { omitKeys: skill.secretParams, secretValues });
  const cmd = await commandFor(skill, argv);
  if (!cmd)
    return {
      kind: 'failed',
      error: `skill "${skill.name}": exec type ${skill.execType} has no program to run`,
      error_type: 'config',
      non_retriable: true,
    };
  const scrub = secretScrubber(secretValues);
  const log = opts.log.child({ skill: skill.name });
  const stderr = stderrLog(log, scrub);
  const env = childEnv(process.env, { input, ctx, secretEnv: opts.secretEnv });
  log.debug({ file: cmd.file, args: cmd.args.map(scrub) }, 'starting subprocess skill');

  // execa (about a hundred modules) is imported by the first subprocess skill, not at start.
  const { execa } = await import('execa');
  const child = execa(cmd.file, cmd.args, {
    cwd: skill.dir,
    env,
    extendEnv: false,
    stdin: 'ignore',
    detached: true,
    cleanup: true,
    forceKillAfterDelay: KILL_GRACE_MS,
    reject: false,
    buffer: { stdout: true, stderr: false },
    maxBuffer: { stdout: MAX_STDOUT_CHARS },
  });
  const untrack = child.pid ? trackGroup(child.pid) : () => undefined;
  child.stderr?.on('data', (c: Buffer) => stderr.write(c));
  const wall = startWall(opts.timeoutSec, [opts.abortSignal, ctx.abort_signal ?? undefined]);
  try {
    const first = await Promise.race([child.then((r) => ({ r }) as const), wall.stopped.then((cause) => ({ cause }) as const)]);
    if ('cause' in first) {
      if (child.pid) await terminateTree(child.pid, child);
      const timeout = first.cause.kind === 'timeout';
      return {
        kind: 'failed',
        error: stopMessage(skill.name, first.cause),
        ...(timeout ? { error_type: 'transient' as const } : {}),
        details: timeout ? { timeout: true, timeout_sec: first.cause.afterSec } : { aborted: true },
      };
    }
    const r = first.r;
    stderr.end();
    if (r.isMaxBuffer) {
      if (child.pid) await terminateTree(child.pid, Promise.resolve());
      return { kind: 'failed', error: `skill "${skill.name}" wrote more than ${MAX_STDOUT_CHARS / 1024 / 1024} MB to stdout` };
    }
    const code = (r as { code?: string }).code;
    if (r.exitCode === undefined && (code === 'ENOENT' || code === 'EACCES')) {
      const what = code === 'ENOENT' ? `${cmd.file} not found` : `${cmd.file} is not executable`;
      return { kind: 'failed', error: `skill "${skill.name}": ${what}`, error_type: 'config', non_retriable: true };
    }
    if (r.exitCode !== 0) {
      const last = stderr.lastLine();
      const how = r.signal
        ? `was killed by ${r.signal}`
        : r.exitCode === undefined
          ? `could not run (${scrub(String(r.shortMessage ?? r.message ?? 'unknown error'))})`
          : `exited with code ${r.exitCode}`;
      return {
        kind: 'failed',
        error: `skill "${skill.name}" ${how}${last ? `: ${last}` : ''}`,
        details: { exit_code: r.exitCode ?? null },
      };
    }
    const stdout = typeof r.stdout === 'string' ? r.stdout : '';
    return { kind: 'returned', value: parseSubprocessStdout(stdout, { cwd: skill.dir, workspaceDir: ctx.workspace_dir }) };
  } finally {
    wall.dispose();
    untrack();
  }
}
