/**
 * A harness for turn tests: the real turn handler over a test database, the fixture skills of
 * test/fixtures/turn plus the built-in skills, a recording channel adapter (a real
 * ChannelAdapter whose platform is this process: it records what it is asked to send and
 * serves attachment bytes from memory) and a reply sink that keeps what the turn enqueued.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  AdapterCapabilities,
  ChannelAdapter,
  InboundAttachment,
  InboundMessage,
  OutboundMessage,
  OutboundTarget,
  SendResult,
} from '../../src/channel/types.ts';
import { parseConfigFile, type ConfigFile } from '../../src/config/file.ts';
import { BUILTIN_SKILLS_DIR, EXAMPLE_SKILLS_DIR } from '../../src/config/settings.ts';
import { resolveWalls } from '../../src/config/walls.ts';
import type { TestServices } from '../helpers/services.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { CommandPlanner } from '../../src/turn/planners/command.ts';
import { RunningTurns } from '../../src/turn/running.ts';
import { createTurnHandler, type PendingReplyRouter, type ReplySink, type TurnDeps, type TurnEvent } from '../../src/turn/turn.ts';
import type { Planner } from '../../src/turn/planner.ts';

export const TURN_FIXTURES = fileURLToPath(new URL('../fixtures/turn/', import.meta.url));

/** A channel adapter whose "platform" is the test: sends are recorded. */
export class RecordingAdapter implements ChannelAdapter {
  readonly channel: string;
  readonly account = 'default';
  readonly capabilities: AdapterCapabilities;
  readonly sent: { target: OutboundTarget; message: OutboundMessage }[] = [];
  readonly typingCalls: OutboundTarget[] = [];
  readonly progressNotes: (string | null)[] = [];
  readonly files = new Map<string, Buffer>();

  constructor(channel: string, capabilities: Partial<AdapterCapabilities> = {}) {
    this.channel = channel;
    this.capabilities = {
      display: 'rich',
      buttons: true,
      max_length: 4000,
      length_unit: 'utf16',
      typing: true,
      media: true,
      ...capabilities,
    };
  }

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    this.sent.push({ target, message });
    return { ok: true, message_ids: [String(this.sent.length)] };
  }

  async fetchAttachment(att: InboundAttachment): Promise<{ data: Buffer }> {
    const data = this.files.get(String(att.platform_ref.key));
    if (!data) throw new Error('no such file on the platform');
    return { data };
  }

  async typing(target: OutboundTarget): Promise<void> {
    this.typingCalls.push(target);
  }

  async progress(_target: OutboundTarget, note: string | null): Promise<void> {
    this.progressNotes.push(note);
  }
}

/** The turn harness. */
export interface TurnHarness {
  services: TestServices;
  adapter: RecordingAdapter;
  running: RunningTurns;
  /** Everything the turn enqueued, in order. */
  replies: OutboundMessage[];
  /** Handle one inbound message as a turn (inbox bypassed). */
  turn(
    msg: Partial<InboundMessage> & { raw_input?: string | null },
    event?: Partial<Omit<TurnEvent, 'id' | 'message'>>,
  ): Promise<OutboundMessage[]>;
  /** A message from `actor` in the harness chat. */
  message(text: string, extra?: Partial<InboundMessage>): InboundMessage;
  /** The chat key of the harness chat (each harness has its own chat). */
  chatKey: string;
}

let seq = 0;

/** Build a harness; migrations applied to `db`. `configYaml` is a skillgate.config.yaml text. */
export async function makeTurnHarness(
  db: Db,
  opts: {
    configYaml?: string;
    capabilities?: Partial<AdapterCapabilities>;
    channel?: string;
    /** The planner every role uses (default: the command planner). */
    planner?: Planner;
    /** A pending-reply router, given the harness services. */
    pendingReplies?: (services: TestServices) => PendingReplyRouter;
    /** Where replies go besides the harness's record (e.g. a real outbox). */
    outbox?: ReplySink;
    /** Extra skill roots (after the built-in ones). */
    skillRoots?: { dir: string; source: 'builtin' | 'shared' }[];
    /** Records a started skill call (the inbox's markStarted; docs/recovery.md). */
    markStarted?: TurnDeps['markStarted'];
  } = {},
): Promise<TurnHarness> {
  await migrate(db);
  const dataDir = mkdtempSync(join(tmpdir(), 'sg-turn-'));
  const registry = await discoverSkills([
    { dir: BUILTIN_SKILLS_DIR, source: 'builtin' },
    { dir: EXAMPLE_SKILLS_DIR, source: 'builtin' },
    { dir: TURN_FIXTURES, source: 'shared' },
    ...(opts.skillRoots ?? []),
  ]);
  const services: TestServices = {
    db,
    registry,
    settings: { dataDir, walls: resolveWalls({}), fetchAllow: [], llm: undefined },
    secretKey: randomBytes(32),
    log: createLogger({ level: 'silent' }),
  };
  const config: ConfigFile = parseConfigFile(opts.configYaml ?? '', { orgId: 'demo', roleId: 'default' });
  const adapter = new RecordingAdapter(opts.channel ?? 'web', opts.capabilities);
  const replies: OutboundMessage[] = [];
  const sink: ReplySink = {
    async enqueue(_q, items) {
      for (const i of items) replies.push(i.message);
      if (opts.outbox) return opts.outbox.enqueue(_q, items);
      return items.map((_, n) => String(n));
    },
  };
  const running = new RunningTurns();
  const planner = opts.planner ?? new CommandPlanner();
  const handle = createTurnHandler({
    services,
    skillCall: (req) => runSkill(services, req),
    config,
    defaultRoleId: 'default',
    adapterFor: (channel) => (channel === adapter.channel ? adapter : undefined),
    outbox: sink,
    running,
    plannerFor: () => planner,
    pendingReplies: opts.pendingReplies?.(services),
    progressDelayMs: 50,
    ...(opts.markStarted ? { markStarted: opts.markStarted } : {}),
  });
  const chatId = `chat-${randomBytes(6).toString('hex')}`;
  const message = (text: string, extra: Partial<InboundMessage> = {}): InboundMessage => ({
    channel: adapter.channel,
    account: 'default',
    dedupe_key: `test:${++seq}`,
    kind: 'message',
    message_id: `m${seq}`,
    chat: { id: chatId, type: 'direct', thread_id: null },
    raw_input: text,
    input_without_bot_mention: text,
    attachments: [],
    actor: { id: 'u-1', display_name: '测试用户' },
    mentioned_bot: false,
    addressed_to_bot: true,
    reply_to: null,
    ...extra,
  });
  return {
    services,
    adapter,
    running,
    replies,
    message,
    chatKey: `${adapter.channel}:default:${chatId}`,
    async turn(partial, event = {}) {
      const msg = { ...message(partial.raw_input ?? ''), ...partial } as InboundMessage;
      const before = replies.length;
      const ev: TurnEvent = { id: String(++seq), message: msg, ...event };
      await handle(ev);
      return replies.slice(before);
    },
  };
}
