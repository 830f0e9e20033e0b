/**
 * `npm run soak`: a bounded soak of the real gateway process under mixed traffic on Telegram,
 * Feishu, Discord and the web chat, with a PostgreSQL restart and a SIGKILL + restart of the
 * gateway, then `docs/reliability.md` (test/soak/report.ts). Settings and what is counted:
 * docs/reliability.md "How the soak works". Exits 1 when an acceptance check fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeAppriseApi } from '../fixtures/apprise/fake-apprise-api.ts';
import { runCli } from '../helpers/cli.ts';
import { DiscordDriver, discordEnv } from './drivers/discord.ts';
import { FeishuDriver, feishuEnv } from './drivers/feishu.ts';
import { TelegramDriver, telegramEnv } from './drivers/telegram.ts';
import type { ChannelDriver, Delivered } from './drivers/types.ts';
import { WebDriver } from './drivers/web.ts';
import { scrapeMetrics, SoakGateway } from './gateway.ts';
import { Ledger, percentile, type Window } from './ledger.ts';
import { freePort, givenServer, openConnections, startPrivateCluster, type SoakPostgres } from './postgres.ts';
import { parseReply, replyKey } from './replies.ts';
import { machineLines } from '../bench/report.ts';
import { acceptance, renderReliability, type MinuteSample, type SoakResult } from './report.ts';
import { chatWorker, confirmButton, KINDS, Pacer, prng, type Kind, type TrafficContext } from './scenarios.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SKILLS = fileURLToPath(new URL('../fixtures/soak/', import.meta.url));

function num(name: string, def: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`soak: ${name} must be a positive number, got "${raw}"`);
  return n;
}

const seconds = process.env.SOAK_SECONDS?.trim() ? num('SOAK_SECONDS', 600) : num('SOAK_MINUTES', 10) * 60;
const rate = num('SOAK_RATE', 5);
const seed = Math.floor(num('SOAK_SEED', Date.now() % 1_000_000));
const reportPath = process.env.SOAK_REPORT_PATH?.trim() || join(REPO, 'docs', 'reliability.md');
const jsonPath = process.env.SOAK_JSON_PATH?.trim();
const logPath = process.env.SOAK_LOG_PATH?.trim();
const replyTimeoutS = num('SOAK_REPLY_TIMEOUT_S', 150);
const say = (s: string): void => void process.stderr.write(`soak: ${s}\n`);

const dir = mkdtempSync(join(tmpdir(), 'sg-soak-'));
const cleanups: (() => Promise<void>)[] = [];
let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  say(`FAILED: ${(err as Error).stack ?? String(err)}`);
} finally {
  for (const c of cleanups.reverse()) await c().catch((e: unknown) => say(`cleanup: ${(e as Error).message}`));
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

async function main(): Promise<number> {
  const startedAt = new Date();
  const machine = machineLines();
  say(`${seconds} s at ${rate} msg/s, seed ${seed}`);
  const given = process.env.SOAK_DATABASE_URL?.trim();
  const db: SoakPostgres = given ? givenServer(given, process.env.SOAK_PG_RESTART) : await startPrivateCluster();
  cleanups.push(() => db.close());
  say(`PostgreSQL: ${db.describe}`);

  const ledger = new Ledger();
  const drivers: ChannelDriver[] = [];
  let restartNotices = 0;
  const byChat = new Map<string, ChannelDriver>();
  const ctx: TrafficContext = {
    ledger,
    pacer: new Pacer(rate),
    rng: prng(seed),
    deadline: Date.now() + 365 * 86400_000,
    replyTimeoutMs: replyTimeoutS * 1000,
    buttons: new Map(),
    asyncTag: new Map(),
    notifyTags: new Set(),
    sent: Object.fromEntries(Object.keys(KINDS).map((k) => [k, 0])) as Record<Kind, number>,
    conversations: Object.fromEntries(Object.keys(KINDS).map((k) => [k, 0])) as Record<Kind, number>,
    stalled: new Set(),
  };
  const onDelivered = (d: Delivered): void => {
    const r = parseReply(d.text);
    if (r.kind === 'restart-notice') {
      restartNotices++;
      const driver = byChat.get(d.chat);
      const b = confirmButton(d.buttons);
      if (driver) void (driver.buttons && b ? driver.press(d.chat, b) : driver.sendText(d.chat, '确认'));
      return;
    }
    let key: string | null = null;
    if (r.kind === 'answer') key = replyKey(r.tag, r.phase);
    else if (r.kind === 'async-ack') {
      const t = ctx.asyncTag.get(d.chat);
      key = t ? replyKey(t, 'async-ack') : null;
    }
    if (key && d.buttons.length > 0) ctx.buttons.set(`${d.chat} ${key}`, d.buttons);
    ledger.deliver({ chat: d.chat, key, at: d.at, text: d.text });
  };

  const port = await freePort();
  const gatewayUrl = (): string => `http://127.0.0.1:${port}`;
  const perChannel = Math.max(2, Math.ceil(rate) + 1);
  const telegram = await TelegramDriver.start(gatewayUrl, perChannel, onDelivered);
  const feishu = await FeishuDriver.start(gatewayUrl, perChannel, onDelivered);
  const discord = await DiscordDriver.start(perChannel, onDelivered);
  drivers.push(telegram, feishu, discord);
  cleanups.push(async () => {
    for (const d of drivers) await d.close();
  });
  const apprise = new FakeAppriseApi();
  await apprise.listen();
  cleanups.push(() => apprise.close());

  const key = Buffer.alloc(32, 9).toString('base64');
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    SKILLGATE_SECRET_KEY: key,
    SKILLGATE_DATA_DIR: join(dir, 'data'),
    SKILLGATE_SKILL_DIRS: SKILLS,
    APPRISE_API_URL: apprise.url,
    LOG_LEVEL: 'info',
    ...telegramEnv(telegram.fake),
    ...feishuEnv(feishu.fake),
    ...discordEnv(discord.rest),
  };

  // Web contacts and their tokens, through the CLI (as an operator would).
  const webContacts = Array.from({ length: Math.max(2, Math.ceil(rate / 2) + 1) }, (_, i) => `soak_web_${i + 1}`);
  const cli = async (args: string[]): Promise<string> => {
    const r = await runCli(args, { cwd: REPO, env, timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`skillgate ${args.join(' ')} → exit ${r.code}\n${r.stderr.slice(-2000)}`);
    return r.stdout;
  };
  await cli(['db', 'migrate']);
  const dirFile = join(dir, 'directory.json');
  writeFileSync(dirFile, JSON.stringify({ contacts: webContacts.map((k, i) => ({ contact_key: k, name: `浸泡${i + 1}` })) }));
  await cli(['directory', 'import', dirFile]);
  const tokens = new Map<string, string>();
  for (const k of webContacts) tokens.set(k, (JSON.parse(await cli(['web', 'token', k, '--json'])) as { token: string }).token);

  const gw = new SoakGateway(port, env, logPath ?? join(dir, 'gateway.log'));
  cleanups.push(async () => void (await gw.stop()));
  await gw.start();
  await Promise.race([discord.identified(), new Promise((_, rej) => setTimeout(() => rej(new Error('discord did not identify')), 60_000))]);
  const web = new WebDriver(gatewayUrl, tokens, onDelivered);
  drivers.push(web);
  for (const d of drivers) for (const c of d.chats) byChat.set(c, d);
  say(`gateway ${gw.pid} on ${gatewayUrl()}; ${[...byChat.keys()].length} chats`);

  // Footprint once a minute (and at the start and the end).
  const samples: MinuteSample[] = [];
  const t0 = Date.now();
  const sample = async (minute: number): Promise<void> => {
    const m = await scrapeMetrics(gatewayUrl());
    samples.push({
      minute,
      pid: gw.pid,
      rssMiB: m ? m.rssBytes / 2 ** 20 : null,
      heapUsedMiB: m ? m.heapUsedBytes / 2 ** 20 : null,
      eventLoopP99Ms: m ? m.eventLoopP99Ms : null,
      dbConnections: await openConnections(db.url),
      load1: loadavg()[0]!,
    });
  };
  await sample(0);
  let minute = 0;
  const sampler = setInterval(() => void sample(++minute), 60_000);

  // Traffic and faults.
  ctx.deadline = t0 + seconds * 1000;
  const workers = drivers.flatMap((d) => d.chats.map((c) => chatWorker(ctx, d, c, [...byChat.keys()].indexOf(c) + 1)));
  const faults: Window[] = [];
  const at = (share: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, t0 + share * seconds * 1000 - Date.now())));
  let killAt = 0;
  const faultRun = (async () => {
    await at(0.35);
    if (db.restart) {
      say('restarting PostgreSQL');
      const from = Date.now();
      await db.restart();
      faults.push({ name: 'PostgreSQL restart', from, to: Date.now() + 10_000 });
      say(`PostgreSQL back after ${Date.now() - from} ms`);
    } else say('PostgreSQL restart left out (SOAK_PG_RESTART unset)');
    await at(0.65);
    say(`SIGKILL gateway ${gw.pid}`);
    for (const d of drivers) d.beforeCrash();
    killAt = Date.now();
    await gw.kill();
    await gw.start();
    for (const d of drivers) await d.afterRestart();
    faults.push({ name: 'gateway SIGKILL + restart', from: killAt, to: Date.now() + 10_000 });
    say(`gateway ${gw.pid} listening again after ${Date.now() - killAt} ms`);
  })();
  await faultRun;
  await Promise.all(workers);
  say('traffic over; waiting for outstanding replies');
  const drainEnd = Date.now() + Math.min(120_000, replyTimeoutS * 1000);
  while (ledger.outstanding().length > 0 && Date.now() < drainEnd) await new Promise((r) => setTimeout(r, 250));
  await new Promise((r) => setTimeout(r, 3000)); // late duplicates show up here
  clearInterval(sampler);
  await sample(Math.round(((Date.now() - t0) / 60_000) * 10) / 10);

  const acked = new Set(
    ledger
      .expectations()
      .filter((e) => e.ackedAt !== null && e.key.endsWith(':notified'))
      .map((e) => e.key.split(':')[0]!),
  );
  const notifyCount = new Map<string, number>();
  for (const c of apprise.calls) {
    const m = /soak notify (c\d+n\d+)/.exec(JSON.stringify(c.fields));
    if (m) notifyCount.set(m[1]!, (notifyCount.get(m[1]!) ?? 0) + 1);
  }
  const notify = {
    expected: acked.size,
    delivered: [...notifyCount.values()].reduce((a, b) => a + b, 0),
    lost: [...acked].filter((t) => !notifyCount.has(t)).length,
    duplicated: [...notifyCount.values()].reduce((a, n) => a + Math.max(0, n - 1), 0),
  };
  const lat = ledger.latencies(faults);
  const m2 = samples.find((s) => s.minute === 2)?.rssMiB ?? null;
  const end = samples.at(-1)?.rssMiB ?? null;
  const base: Omit<SoakResult, 'acceptance'> = {
    startedAt,
    minutes: Math.round((seconds / 60) * 100) / 100,
    rate,
    seed,
    chats: Object.fromEntries(drivers.map((d) => [d.channel, d.chats.length])),
    database: db.describe,
    machine,
    loadAtEnd: loadavg(),
    sent: ctx.sent,
    conversations: ctx.conversations,
    counts: ledger.counts(),
    notify,
    restartNotices,
    stalledChats: ctx.stalled.size,
    faults,
    latency: { samples: lat.length, p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99) },
    minutesSamples: samples,
    rssDrift: m2 !== null && end !== null && seconds >= 180 ? end / m2 - 1 : null,
  };
  const result: SoakResult = { ...base, acceptance: acceptance(base) };
  writeFileSync(reportPath, renderReliability(result));
  if (jsonPath) writeFileSync(jsonPath, JSON.stringify(result, null, 2));
  say(`wrote ${reportPath}`);
  for (const l of result.acceptance.lines) say(l);
  if (!result.acceptance.ok) say(`gateway log tail:\n${gw.tail()}`);
  return result.acceptance.ok ? 0 : 1;
}
