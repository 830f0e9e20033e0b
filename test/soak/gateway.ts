/**
 * The gateway under soak: `node bin/skillgate.js serve` as a child process (what `npm start`
 * runs), on a fixed port so the drivers keep their address across a SIGKILL and restart. Its
 * log goes to a file in the soak's temp dir; the last lines are kept for error messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childEnv } from '../helpers/cli.ts';

const BIN = fileURLToPath(new URL('../../bin/skillgate.js', import.meta.url));
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** One gateway process at a time, restartable. */
export class SoakGateway {
  #child: ChildProcess | null = null;
  #tail = '';
  readonly #log: WriteStream;
  /** Pids of every process started, in order. */
  readonly pids: number[] = [];

  constructor(
    readonly port: number,
    readonly env: Record<string, string>,
    logFile: string,
  ) {
    this.#log = createWriteStream(logFile, { flags: 'a' });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** The last ~8 KB the gateway printed. */
  tail(): string {
    return this.#tail;
  }

  /** Start the process; resolves once it logs that it listens (rejects if it exits first or after `ms`). */
  start(ms = 120_000): Promise<void> {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      cwd: REPO,
      env: childEnv({ ...this.env, PORT: String(this.port) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    if (child.pid) this.pids.push(child.pid);
    return new Promise<void>((resolve, reject) => {
      let seen = '';
      let ready = false;
      const timer = setTimeout(() => reject(new Error(`gateway did not listen within ${ms} ms:\n${this.#tail}`)), ms);
      const onData = (d: Buffer): void => {
        const s = d.toString();
        this.#log.write(s);
        this.#tail = (this.#tail + s).slice(-8192);
        if (ready) return;
        seen = (seen + s).slice(-4096);
        if (/skillgate listening/.test(seen)) {
          ready = true;
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.#log.write(`\n[soak] gateway ${child.pid} exited code=${code} signal=${signal}\n`);
        reject(new Error(`gateway exited (code ${code}, signal ${signal}) before listening:\n${this.#tail}`));
      });
    });
  }

  /** SIGKILL the process and wait for its exit. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGTERM (a clean stop) and wait; SIGKILL after `ms`. @returns the exit code */
  async stop(ms = 30_000): Promise<number | null> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    const code = await exited;
    clearTimeout(timer);
    await new Promise<void>((r) => this.#log.end(() => r()));
    return code;
  }
}

/** Figures read from the gateway's `GET /metrics` (null when it did not answer). */
export interface GatewayMetrics {
  rssBytes: number;
  heapUsedBytes: number;
  /** Event-loop delay p99 since the previous scrape (prom-client resets it on each collect), ms. */
  eventLoopP99Ms: number;
}

/** Scrape `/metrics` of the gateway at `url`. */
export async function scrapeMetrics(url: string): Promise<GatewayMetrics | null> {
  try {
    const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (res.status !== 200) return null;
    const text = await res.text();
    const value = (name: string): number => {
      const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(text);
      return m ? Number(m[1]) : NaN;
    };
    return {
      rssBytes: value('skillgate_process_resident_memory_bytes'),
      heapUsedBytes: value('skillgate_nodejs_heap_size_used_bytes'),
      eventLoopP99Ms: value('skillgate_nodejs_eventloop_lag_p99_seconds') * 1000,
    };
  } catch {
    return null;
  }
}
