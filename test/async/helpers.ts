/**
 * The async harness: the real turn handler (command planner) for one text channel and one web
 * channel, the REAL outbox delivering to {@link RecordingAdapter}s, and the async runner
 * (pg-boss over the test database) wired through the turn's `deferAsync` hook — the same
 * wiring the gateway does.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAsyncRunner, type AsyncRunner } from '../../src/async/runner.ts';
import type { InboundMessage, OutboundMessage } from '../../src/channel/types.ts';
import { parseConfigFile } from '../../src/config/file.ts';
import { BUILTIN_SKILLS_DIR } from '../../src/config/settings.ts';
import { resolveWalls, type WallSettings } from '../../src/config/walls.ts';
import type { TestServices } from '../helpers/services.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { createOutbox, type Outbox } from '../../src/outbox/index.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { CommandPlanner } from '../../src/turn/planners/command.ts';
import { RunningTurns } from '../../src/turn/running.ts';
import { createTurnHandler } from '../../src/turn/turn.ts';
import type { Planner } from '../../src/turn/planner.ts';
import { RecordingAdapter } from '../turn/helpers.ts';

export const ASYNC_FIXTURES = fileURLToPath(new URL('../fixtures/async/', import.meta.url));

/** What the fixture skill `slow_report` saw in its runtime context. */
export interface ObservedRun {
  tag: string;
  request: unknown;
  channel_registry: unknown;
  abort_signal: unknown;
  has_db_factory: boolean;
  channel: unknown;
  actor_name: unknown;
  region: unknown;
}

type Globals = { __asyncGate?: Promise<void>; __asyncRuns?: ObservedRun[] };
const g = globalThis as unknown as Globals;

/** Hold `slow_report` runs until the returned function is called. */
export function closeGate(): () => void {
  let open!: () => void;
  g.__asyncGate = new Promise<void>((r) => (open = r));
  return open;
}

/** Runs `slow_report` recorded so far with `tag`. */
export function observed(tag: string): ObservedRun | undefined {
  return (g.__asyncRuns ?? []).find((r) => r.tag === tag);
}

/** The harness. Call `stop()` at the end. */
export interface AsyncHarness {
  services: TestServices;
  /** The runner the turn defers to (a test may replace it to simulate a restart). */
  runner: AsyncRunner;
  /** Build another runner over the same database, services and outbox (not started). */
  newRunner(opts?: RunnerOpts): AsyncRunner;
  outbox: Outbox;
  /** The text channel (`telegram`, display text, media) and the web channel. */
  telegram: RecordingAdapter;
  web: RecordingAdapter;
  /** Run one turn; returns what the turn itself enqueued (its immediate answer). */
  turn(channel: 'telegram' | 'web', text: string): Promise<OutboundMessage[]>;
  stop(): Promise<void>;
}

let seq = 0;

/** Options of a runner the harness builds (see AsyncRunnerOptions). */
export interface RunnerOpts {
  work?: boolean;
  instanceId?: string;
  hardcapFactor?: number;
  ackWaitMs?: number;
}

/** Options of {@link makeAsyncHarness}. */
export interface AsyncHarnessOptions {
  planner?: Planner;
  /** Skill roots after the built-ins (default: test/fixtures/async). */
  fixtures?: string[];
  /** Wall clocks (default: the D-06 defaults); fractions of a second keep tests short. */
  walls?: WallSettings;
  /** Defaults of the harness's runners. */
  runner?: RunnerOpts;
  /** Logger (default silent). */
  log?: Logger;
}

/** Build the harness over `db` (migrations applied, runner and outbox started). */
export async function makeAsyncHarness(db: Db, opts: AsyncHarnessOptions = {}): Promise<AsyncHarness> {
  await migrate(db);
  const log = opts.log ?? createLogger({ level: 'silent' });
  const registry = await discoverSkills([
    { dir: BUILTIN_SKILLS_DIR, source: 'builtin' },
    ...(opts.fixtures ?? [ASYNC_FIXTURES]).map((dir) => ({ dir, source: 'shared' as const })),
  ]);
  const services: TestServices = {
    db,
    registry,
    settings: { dataDir: mkdtempSync(join(tmpdir(), 'sg-async-')), walls: opts.walls ?? resolveWalls({}), fetchAllow: [], llm: undefined },
    secretKey: randomBytes(32),
    log,
  };
  const telegram = new RecordingAdapter('telegram', { display: 'text', buttons: true, media: true });
  const web = new RecordingAdapter('web');
  const adapterFor = (channel: string): RecordingAdapter | undefined =>
    channel === 'telegram' ? telegram : channel === 'web' ? web : undefined;
  const outbox = createOutbox(db, { log, adapterFor, pollMs: 50, baseDelayMs: 60_000 });
  outbox.start();
  const newRunner = (o: RunnerOpts = {}): AsyncRunner =>
    createAsyncRunner({
      db,
      services,
      call: (req) => runSkill(services, req),
      outbox,
      log,
      adapterFor,
      pollingIntervalSeconds: 0.5,
      ...opts.runner,
      ...o,
    });
  const runner = newRunner();
  await runner.start();
  const handle = createTurnHandler({
    services,
    skillCall: (req) => runSkill(services, req),
    config: parseConfigFile('', { orgId: 'demo', roleId: 'default' }),
    defaultRoleId: 'default',
    adapterFor,
    outbox,
    running: new RunningTurns(),
    plannerFor: () => opts.planner ?? new CommandPlanner(),
    deferAsync: (req, origin) => harness.runner.maybeDefer(req, origin),
    progressDelayMs: 60_000,
  });
  const chatId = `chat-${randomBytes(6).toString('hex')}`;
  const harness: AsyncHarness = {
    services,
    runner,
    newRunner,
    outbox,
    telegram,
    web,
    async turn(channel, text) {
      const n = ++seq;
      const msg: InboundMessage = {
        channel,
        account: 'default',
        dedupe_key: `async-test:${chatId}:${n}`,
        kind: 'message',
        message_id: `m${n}`,
        chat: { id: chatId, type: 'direct', thread_id: null },
        raw_input: text,
        input_without_bot_mention: text,
        attachments: [],
        actor: { id: 'u-1', display_name: '测试用户' },
        mentioned_bot: false,
        addressed_to_bot: true,
        reply_to: null,
      };
      const eventId = `ev-${chatId}-${n}`;
      await handle({ id: eventId, message: msg });
      const { rows } = await db.query<{ message: OutboundMessage }>(
        `SELECT message FROM skillgate.outbox_messages WHERE idempotency_key LIKE $1 ORDER BY id`,
        [`turn:${eventId}:%`],
      );
      return rows.map((r) => (typeof r.message === 'string' ? (JSON.parse(r.message) as OutboundMessage) : r.message));
    },
    async stop() {
      await harness.runner.stop();
      await outbox.stop();
    },
  };
  return harness;
}
