/**
 * Run the real `skillgate` command as a child process (bin/skillgate.js through tsx), as a
 * user would after `npm ci`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Absolute path of bin/skillgate.js. */
export const BIN = fileURLToPath(new URL('../../bin/skillgate.js', import.meta.url));

/** Result of one finished command. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A clean environment for a child: no inherited skillgate/DB variables unless given. */
export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(SKILLGATE_|DATABASE_URL|PORT$|TELEGRAM_|FEISHU_|DISCORD_|WECOM_|DINGTALK_|LLM_|TEST_DATABASE_URL|VITEST)/.test(k)) continue;
    env[k] = v;
  }
  // The suite's choice (vitest.config.ts): children run the sources, never dist/.
  if (process.env.SKILLGATE_FROM_SOURCE) env.SKILLGATE_FROM_SOURCE = process.env.SKILLGATE_FROM_SOURCE;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Run `skillgate <args>` to completion (`timeoutMs`, default 60 s). */
export function runCli(
  args: string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: opts.cwd, env: childEnv(opts.env ?? {}), timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(err);
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** A started `skillgate serve` child; `ready` resolves with the port once it listens. */
export interface ServeChild {
  child: ChildProcess;
  ready: Promise<number>;
  stderr: () => string;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Start `skillgate serve` in `cwd` (PORT 0 unless given). */
export function startServe(opts: { cwd: string; env?: Record<string, string | undefined> }): ServeChild {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: opts.cwd,
    env: childEnv({ PORT: '0', ...opts.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  const ready = new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /"port":(\d+),/.exec(err);
      if (m && /skillgate listening/.test(err)) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    child,
    ready,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
