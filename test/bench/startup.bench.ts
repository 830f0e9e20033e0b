/**
 * `npm run bench` — start-up and footprint (docs/performance.md "Start-up"): `skillgate serve`
 * spawned as `npm start` runs it (dist/ when built and current, else the sources through tsx),
 * on an existing embedded data dir: time to the first `GET /healthz` 200 and the CPU time the
 * process used until then, RSS after BENCH_STARTUP_IDLE_SECONDS (30) idle, RSS after
 * BENCH_STARTUP_TURNS (10 000) web turns; `skillgate skill run` of a trivial in-process skill;
 * PGlite's own share measured apart (a bare process opening the same data dir the same way);
 * on BENCH_DATABASE_URL the time to listening and the idle RSS. Each start figure is the median
 * of BENCH_STARTUP_REPEAT (3) runs. Linux: RSS and CPU time are read from /proc.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from '../../src/store/migrate.ts';
import { EMBEDDED_EXTRA_PARAMS, EMBEDDED_WASM_FLAGS, openEmbeddedDb } from '../../src/store/open.ts';
import { importDirectory } from '../../src/identity/index.ts';
import { issueWebToken } from '../../src/web-auth/tokens.ts';
import { distIsCurrent } from '../../bin/dist-current.js';
import { drive } from './gateway.bench.ts';
import { median } from './load.ts';
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'skillgate.js');
const SKILLS = fileURLToPath(new URL('./skills/', import.meta.url));

/** The targets of the section (docs/performance.md). */
export const STARTUP_TARGETS = {
  healthzMs: 2000,
  idleRssMb: 300,
  turnsRssMb: 350,
  skillRunMs: 800,
  serverListenMs: 1500,
  serverIdleRssMb: 120,
} as const;

/** What the section measured (medians over the repeats). */
export interface StartupFigures {
  /** `dist` or `source` (bin/skillgate.js's choice). */
  build: 'dist' | 'source';
  repeat: number;
  idleSeconds: number;
  embedded: {
    healthzMs: number;
    cpuMs: number;
    idleRssMb: number;
    turns: number;
    turnsSeconds: number;
    turnsRssMb: number;
  };
  /** A process with only PGlite open on the data dir, minus a bare node process. */
  pglite: { rssMb: number; wasmMemoryMb: number; bareNodeRssMb: number };
  skillRun: { ms: number; cpuMs: number; maxRssMb: number };
  server?: { healthzMs: number; cpuMs: number; idleRssMb: number };
}

/** Resident set of `pid` in MB (/proc/<pid>/status VmRSS). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU time (user + system) `pid` has used, ms (/proc/<pid>/stat, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A spawned `skillgate serve` on a free port. */
interface Served {
  child: ChildProcess;
  port: number;
  /** ms from spawn to the first /healthz 200. */
  healthzMs: number;
  /** CPU ms the process had used at that moment. */
  cpuMs: number;
  stop(): Promise<void>;
}

/** A port the kernel says is free now (bound to 0 and released; a fixed range could be in use). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

async function serve(env: Record<string, string>): Promise<Served> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), SKILLGATE_SKILL_DIRS: SKILLS, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`skillgate serve exited (${child.exitCode}): ${stderr}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await sleep(10);
  }
  const healthzMs = performance.now() - t0;
  return {
    child,
    port,
    healthzMs,
    cpuMs: cpuMs(child.pid!),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `skillgate skill run bench_noop` on `dataDir`: wall ms, CPU ms and peak RSS (GNU time when present). */
function skillRun(dataDir: string): { ms: number; cpuMs: number; maxRssMb: number } {
  const args = [BIN, 'skill', 'run', 'bench_noop', '--input', '{}'];
  const env = { ...process.env, SKILLGATE_DATA_DIR: dataDir, SKILLGATE_SKILL_DIRS: SKILLS, LOG_LEVEL: 'warn' };
  const timed = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, ...args], { cwd: ROOT, env, encoding: 'utf8' });
  if (timed.status === 0) {
    const [e, u, s, m] = timed.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
    return { ms: e! * 1000, cpuMs: (u! + s!) * 1000, maxRssMb: m! / 1024 };
  }
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`skill run failed: ${r.stderr}`);
  return { ms: performance.now() - t0, cpuMs: NaN, maxRssMb: NaN };
}

/** What a node process that only opens PGlite on `dataDir`, as the gateway does, adds to a bare one. */
function pgliteShare(dataDir: string): StartupFigures['pglite'] {
  const rss = 'Number(/VmRSS:\\s+(\\d+)/.exec((await import("node:fs")).readFileSync("/proc/self/status", "utf8"))[1]) / 1024';
  const probe = [
    "const { PGlite } = await import('@electric-sql/pglite');",
    'const extra = JSON.parse(process.env.EXTRA_PARAMS);',
    "const pg = await PGlite.create(process.env.DATA_DIR + '/pgdata', { startParams: [...PGlite.defaultStartParams, ...extra] });",
    "await pg.query('SELECT count(*) FROM skillgate.schema_migrations');",
    // the WASM linear memory PostgreSQL lives in (shared buffers, catalog caches, its heap)
    'const wasm = (pg.mod.wasmMemory ?? pg.mod.HEAP8).buffer.byteLength / 1048576;',
    `const rss = ${rss};`,
    'await pg.close();',
    'console.log(JSON.stringify({ rss, wasm }));',
  ].join('\n');
  const run = (code: string, env: Record<string, string>): { rss: number; wasm?: number } => {
    // The gateway's V8 flags for PostgreSQL's WebAssembly (src/store/open.ts).
    const r = spawnSync(process.execPath, [EMBEDDED_WASM_FLAGS, '--input-type=module', '-e', code], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`pglite probe failed: ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { rss: number; wasm?: number };
  };
  const bare = run(`await import('@electric-sql/pglite'); console.log(JSON.stringify({ rss: ${rss} }));`, {});
  const withDb = run(probe, { EXTRA_PARAMS: JSON.stringify(EMBEDDED_EXTRA_PARAMS), DATA_DIR: dataDir });
  return { rssMb: withDb.rss - bare.rss, wasmMemoryMb: withDb.wasm ?? NaN, bareNodeRssMb: bare.rss };
}

/** Run the section; print and return its figures. */
export async function runStartupBench(databaseUrl = process.env.BENCH_DATABASE_URL?.trim() ?? ''): Promise<StartupFigures> {
  const repeat = Math.max(1, Number(process.env.BENCH_STARTUP_REPEAT ?? 3) || 3);
  const idleSeconds = Number(process.env.BENCH_STARTUP_IDLE_SECONDS ?? 30);
  const turns = Number(process.env.BENCH_STARTUP_TURNS ?? 10_000);
  const build = ensureBuild();
  const dir = mkdtempSync(join(tmpdir(), 'sg-bench-start-'));
  const dataDir = join(dir, 'data');
  try {
    // An existing data dir: created by a first start, and the web clients of the turns run.
    await (await serve({ SKILLGATE_DATA_DIR: dataDir })).stop();
    const clients = 20;
    const tokens = await withEmbedded(dataDir, async (db) => {
      const rows = ['contact_key,name', ...Array.from({ length: clients }, (_, i) => `boot_${i},启动${i}`)].join('\n');
      await importDirectory(db, { orgId: 'demo', roleId: 'default', data: rows, format: 'csv', channels: BUILD_DIRECTORY_CHANNELS });
      return Promise.all(Array.from({ length: clients }, (_, i) => issueWebToken(db, 'demo', `boot_${i}`)));
    });
    skillRun(dataDir); // the first run fills the parse cache for the skill's handler

    const starts: Served[] = [];
    const idle: number[] = [];
    for (let i = 0; i < repeat; i++) {
      process.stderr.write(`bench: start-up (embedded) ${i + 1}/${repeat} …\n`);
      const s = await serve({ SKILLGATE_DATA_DIR: dataDir });
      starts.push(s);
      if (i === 0) {
        await sleep(idleSeconds * 1000);
        idle.push(rssMb(s.child.pid!));
      }
      await s.stop();
    }
    // The turns: the web channel's anti-abuse limits (20 frames per socket per 10 s, the flood
    // limit per sender) lifted as in the gateway bench, else they, not the gateway, set the pace.
    const last = await serve({ SKILLGATE_DATA_DIR: dataDir, SKILLGATE_WEB_MAX_FRAMES_PER_10S: '1000000', SKILLGATE_FLOOD_PER_MINUTE: '0' });
    process.stderr.write(`bench: ${turns} web turns …\n`);
    const t0 = performance.now();
    const driven = await drive(
      'turns',
      `ws://127.0.0.1:${last.port}/ws`,
      clients,
      3600,
      (i) => ({ v: 1, type: 'hello', id: `h${i}`, auth: { scheme: 'bearer', token: tokens[i] } }),
      '/bench_noop',
      turns,
    );
    const turnsSeconds = (performance.now() - t0) / 1000;
    if (driven.errors > 0) process.stderr.write(`bench: ${driven.errors} error frames during the turns\n`);
    await sleep(2000);
    const turnsRssMb = rssMb(last.child.pid!);
    await last.stop();

    const runs: Array<ReturnType<typeof skillRun>> = [];
    for (let i = 0; i < repeat; i++) runs.push(skillRun(dataDir));
    const pglite = pgliteShare(dataDir);

    let server: StartupFigures['server'];
    if (databaseUrl) {
      const env = {
        DATABASE_URL: databaseUrl,
        SKILLGATE_SECRET_KEY: randomBytes(32).toString('base64'),
        SKILLGATE_DATA_DIR: join(dir, 'server-data'),
      };
      await (await serve(env)).stop(); // the schema exists before the measured starts
      const ss: Served[] = [];
      let serverIdle = NaN;
      for (let i = 0; i < repeat; i++) {
        process.stderr.write(`bench: start-up (server) ${i + 1}/${repeat} …\n`);
        const s = await serve(env);
        ss.push(s);
        if (i === 0) {
          await sleep(idleSeconds * 1000);
          serverIdle = rssMb(s.child.pid!);
        }
        await s.stop();
      }
      server = { healthzMs: median(ss.map((s) => s.healthzMs)), cpuMs: median(ss.map((s) => s.cpuMs)), idleRssMb: serverIdle };
    }
    const figures: StartupFigures = {
      build,
      repeat,
      idleSeconds,
      embedded: {
        healthzMs: median(starts.map((s) => s.healthzMs)),
        cpuMs: median(starts.map((s) => s.cpuMs)),
        idleRssMb: median(idle),
        turns: driven.messages,
        turnsSeconds,
        turnsRssMb,
      },
      pglite,
      skillRun: {
        ms: median(runs.map((r) => r.ms)),
        cpuMs: median(runs.map((r) => r.cpuMs)),
        maxRssMb: median(runs.map((r) => r.maxRssMb)),
      },
      server,
    };
    printStartup(figures);
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withEmbedded<T>(dataDir: string, fn: (db: Awaited<ReturnType<typeof openEmbeddedDb>>) => Promise<T>): Promise<T> {
  const db = await openEmbeddedDb(dataDir);
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** Build dist/ when it is missing or older than the sources; which one `skillgate` will run. */
function ensureBuild(): 'dist' | 'source' {
  if (process.env.SKILLGATE_FROM_SOURCE === '1') return 'source';
  if (!distIsCurrent()) spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  return distIsCurrent() ? 'dist' : 'source';
}

const f0 = (x: number): string => (Number.isFinite(x) ? x.toFixed(0) : '—');

/** The section's rows: what, figure, target. */
export function startupRows(f: StartupFigures): Array<[string, string, string]> {
  const t = STARTUP_TARGETS;
  const rows: Array<[string, string, string]> = [
    ['embedded: spawn → first /healthz 200', `${f0(f.embedded.healthzMs)} ms (CPU ${f0(f.embedded.cpuMs)} ms)`, `≤ ${t.healthzMs} ms`],
    [
      `embedded: RSS after ${f.idleSeconds} s idle`,
      `${f0(f.embedded.idleRssMb)} MB (PGlite ${f0(f.pglite.rssMb)} MB of it)`,
      `≤ ${t.idleRssMb} MB`,
    ],
    [
      `embedded: RSS after ${f.embedded.turns} web turns (${f0(f.embedded.turnsSeconds)} s)`,
      `${f0(f.embedded.turnsRssMb)} MB`,
      `≤ ${t.turnsRssMb} MB`,
    ],
    [
      '`skill run` of a trivial in-process skill',
      `${f0(f.skillRun.ms)} ms (CPU ${f0(f.skillRun.cpuMs)} ms, peak RSS ${f0(f.skillRun.maxRssMb)} MB)`,
      `≤ ${t.skillRunMs} ms`,
    ],
  ];
  if (f.server) {
    rows.push([
      'server: spawn → listening (/healthz 200)',
      `${f0(f.server.healthzMs)} ms (CPU ${f0(f.server.cpuMs)} ms)`,
      `≤ ${t.serverListenMs} ms`,
    ]);
    rows.push([`server: RSS after ${f.idleSeconds} s idle`, `${f0(f.server.idleRssMb)} MB`, `≤ ${t.serverIdleRssMb} MB`]);
  }
  return rows;
}

function printStartup(f: StartupFigures): void {
  console.log(`\nstart-up (${f.build === 'dist' ? 'dist/ bundle' : 'sources through tsx'}; medians of ${f.repeat}):`);
  const rows = startupRows(f);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  target ${c}`);
  console.log(
    `PGlite alone: ${f0(f.pglite.rssMb)} MB over a bare node (${f0(f.pglite.bareNodeRssMb)} MB); WASM memory ${f0(f.pglite.wasmMemoryMb)} MB`,
  );
}
