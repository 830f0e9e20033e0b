/**
 * A 1 M-character reply through Telegram (docs/operations-delivery.md "Long replies";
 * docs/performance.md "Long reply"): a `skillgate serve` child on a Telegram channel whose Bot
 * API is the loopback fake (test/recovery/helpers.ts), the `bench_long_reply` skill
 * (test/bench/skills/) returning a display_md of about 1 M characters, after one short call
 * (`bench_noop`) that pays what any first call of the process costs. While the reply is
 * composed, queued and delivered, `/healthz` is asked every ~10 ms, one request at a time, so
 * a blocked event loop in the gateway shows as a slow answer. The gateway also measures its own
 * event-loop delay (test/bench/loop-probe.mjs), bracketed by two signals around the reply. Prints
 * the healthz latency (max, p99), the longest event-loop block, the time from the webhook to the
 * document holding the whole text (sent after the cut reply), and how many messages arrived.
 * Absolute times; never asserted in tests.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { sendText, sentTo, spawnGateway, startTelegram, until } from '../recovery/helpers.ts';
import { SECRET, TOKEN, telegramBody } from '../adapters/telegram/fake-telegram.ts';

/** What one run measured. */
export interface LongReplyFigures {
  /** `embedded` (PGlite in the data dir) or `server` (PostgreSQL at BENCH_DATABASE_URL). */
  engine: 'embedded' | 'server';
  /** Characters of the skill's display_md. */
  chars: number;
  /** Telegram messages the reply arrived as. */
  messages: number;
  /** Bytes of the document holding the whole text, sent after them. */
  documentBytes: number;
  /** Webhook accepted → the full-text document at the fake Bot API, ms. */
  deliverMs: number;
  /** `/healthz` answers during the delivery. */
  probes: number;
  healthzMaxMs: number;
  healthzP99Ms: number;
  /** Longest event-loop block of the gateway during the reply (monitorEventLoopDelay max), ms. */
  loopMaxMs: number;
  /** 99th percentile of the gateway's event-loop delay during the reply, ms. */
  loopP99Ms: number;
  /** Longest event-loop block of this (the polling) process in the same window, ms: a healthz answer slower than both is the machine's. */
  clientLoopMaxMs: number;
}

const SKILLS = fileURLToPath(new URL('./skills/', import.meta.url));
const LOOP_PROBE = new URL('./loop-probe.mjs', import.meta.url).href;
const USER = 920_001;
const NOTICE = /回复过长/;

/** The `q` quantile (0..1) of `xs` (nearest rank). */
function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

/** Ask the gateway's loop probe for its figures since the last ask (and reset it). */
async function askLoopProbe(gw: ReturnType<typeof spawnGateway>): Promise<{ max_ms: number; p99_ms: number }> {
  const lines = (): string[] => gw.stderr().match(/^loop-probe .*$/gm) ?? [];
  const before = lines().length;
  gw.child.kill('SIGUSR2');
  await until(() => lines().length > before, 10_000, 'the loop probe answered', gw.stderr);
  return JSON.parse(lines()[before]!.slice('loop-probe '.length)) as { max_ms: number; p99_ms: number };
}

/**
 * Run the bench once (about 10–30 s with start-up), on embedded PGlite or, given `databaseUrl`,
 * on that PostgreSQL server (its `skillgate` schema is created there). @throws when the reply never arrives.
 */
export async function runLongReplyBench(databaseUrl = ''): Promise<LongReplyFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-bench-long-'));
  const telegram = await startTelegram();
  const gw = spawnGateway(
    {
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_ROOT: telegram.baseUrl,
      TELEGRAM_MODE: 'webhook',
      SKILLGATE_SKILL_DIRS: SKILLS,
      SKILLGATE_DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'info',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, SKILLGATE_SECRET_KEY: randomBytes(32).toString('base64') } : {}),
    }, // BENCH_CPU_PROF_DIR=<dir>: the gateway writes a `node --cpu-prof` profile there on exit.
    {
      nodeArgs: [
        `--import=${LOOP_PROBE}`,
        ...(process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : []),
      ],
    },
  );
  try {
    const port = await gw.ready;
    const healthz = `http://127.0.0.1:${port}/healthz`;
    for (let i = 0; i < 20; i++) await (await fetch(healthz)).text(); // warm the route and the socket
    const latencies: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t0 = performance.now();
        await (await fetch(healthz)).text();
        latencies.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    // A short call first: the window holds the long reply, not what any first call of the
    // process costs (tsx registered at the first handler import, schemas compiled, the session made).
    await sendText(port, USER, '/bench_noop');
    await until(() => sentTo(telegram, USER).length > 0, 60_000, 'the warm-up reply arrived', gw.stderr);
    const warmup = sentTo(telegram, USER).length;
    await askLoopProbe(gw); // start of the window
    const client = monitorEventLoopDelay({ resolution: 5 });
    client.enable();
    const sent = performance.now();
    await sendText(port, USER, '/bench_long_reply');
    await until(() => sentTo(telegram, USER).some((m) => NOTICE.test(m.text)), 180_000, 'the long reply arrived', gw.stderr);
    // The whole text follows as a document (docs/operations-delivery.md "Long replies").
    const documents = () =>
      telegram.calls('/bot:token/sendDocument', 'POST').filter((r) => String(telegramBody(r).chat_id) === String(USER));
    await until(() => documents().length > 0, 60_000, 'the full-text document arrived', gw.stderr);
    const deliverMs = performance.now() - sent;
    await new Promise((r) => setTimeout(r, 300)); // a few probes after the last message
    polling = false;
    await poller;
    client.disable();
    const loop = await askLoopProbe(gw);
    const messages = sentTo(telegram, USER).length - warmup;
    const file = documents()[0]!.parts.find((p) => p.filename !== null);
    return {
      engine: databaseUrl ? 'server' : 'embedded',
      chars: 1_000_000,
      messages,
      documentBytes: file?.data.length ?? 0,
      deliverMs,
      probes: latencies.length,
      healthzMaxMs: Math.max(...latencies),
      healthzP99Ms: quantile(latencies, 0.99),
      loopMaxMs: loop.max_ms,
      loopP99Ms: loop.p99_ms,
      clientLoopMaxMs: client.max / 1e6,
    };
  } finally {
    if (gw.child.exitCode === null && gw.child.signalCode === null) gw.child.kill('SIGTERM');
    await Promise.race([gw.exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (gw.child.exitCode === null && gw.child.signalCode === null) gw.child.kill('SIGKILL');
    await telegram.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Print the figures. */
export function printLongReply(f: LongReplyFigures): void {
  console.log(
    `\nlong reply (${f.engine}, Telegram fake, ~${(f.chars / 1e6).toFixed(0)} M characters): ${f.messages} messages and a ${(f.documentBytes / 1e6).toFixed(1)} MB document with the whole text, delivered in ${f.deliverMs.toFixed(0)} ms; ` +
      `/healthz over ${f.probes} probes: max ${f.healthzMaxMs.toFixed(1)} ms, p99 ${f.healthzP99Ms.toFixed(1)} ms (target max ≤ 100 ms); ` +
      `longest event-loop block ${f.loopMaxMs.toFixed(1)} ms (p99 ${f.loopP99Ms.toFixed(1)} ms; in the polling process ${f.clientLoopMaxMs.toFixed(1)} ms)`,
  );
}
