/**
 * The options of {@link describeAdapterContract}: everything the generic contract suite needs to
 * know about one channel, and nothing more. The kit holds no platform knowledge; an adapter's
 * test supplies the fake platform's routes, a signer, event generators and a few probes that read
 * the platform's wire format.
 */
import type {
  ChatType,
  Db,
  InboundAttachment,
  InboundMessage,
  LengthUnit,
  OutboundTarget,
  WebhookAdapter,
} from '../../src/channel/index.ts';
import type { FakePlatform, FakeReply, PathPattern, RecordedRequest } from './fake-server.ts';

/** An injectable wall clock shared by the adapter and the suite (replay windows, expiries). */
export interface ContractClock {
  /** The current fake time. */
  now(): Date;
  /** Jump to `t` (ISO-8601 or a Date). */
  set(t: string | Date): void;
  /** Move forward by `ms` (negative moves back). */
  advance(ms: number): void;
}

/** What the suite hands the adapter factory (fresh for each database engine). */
export interface ContractContext {
  /** The running fake platform (its routes installed by {@link AdapterContractOptions.installPlatform}). */
  fake: FakePlatform;
  /** A migrated database (`migrate(db)` ran): callback payloads, inbox. */
  db: Db;
  clock: ContractClock;
  /** The account id the adapter must use (`default`). */
  account: string;
}

/** A request to the adapter's webhook, before it is turned into a `WebhookRequest`. */
export interface SignedRequest {
  /** Headers to send (the signer's plus the case's). */
  headers: Record<string, string>;
  query?: Record<string, string>;
  /** A replaced body (encrypting platforms); default the body given to the signer. */
  body?: Buffer;
}

/** The shape of a generated event: who sends it, where, and how the bot is addressed. */
export interface EventSpec {
  /** Makes the event unique (event/update id, message id); the same seq = a redelivery of the same event. */
  seq: number;
  /** The user's text, verbatim. */
  text: string;
  chat: Extract<ChatType, 'direct' | 'group'>;
  /** `user` (a person), `self` (our own bot), `other_bot`. */
  sender: 'user' | 'self' | 'other_bot';
  /**
   * How the bot is addressed in the text: `none`; `mention` (the platform's @mention of our
   * bot, put before `text`); `command_suffix` (`/cmd@ourbot args` — `text` must start with `/`);
   * `other_bot_command` (`/cmd@otherbot`).
   */
  address: 'none' | 'mention' | 'command_suffix' | 'other_bot_command';
}

/** Channel-specific generators of inbound request bodies (unsigned; the suite signs them). */
export interface EventGenerators {
  /**
   * A message event as specified, or `null` when the platform has no such variant (e.g. no
   * `/cmd@bot` syntax): the checks needing it are then not registered for this channel.
   */
  message(spec: EventSpec): Buffer | null;
  /** A button press carrying the raw button payload `data` (as found in a sent message), by `actorId` in `chatId`. */
  buttonPress(p: { seq: number; data: string; chatId: string; actorId: string }): Buffer;
  /** A well-formed, verified event of a type the gateway does not handle (answered 2xx, ignored). */
  ignoredEvent(seq: number): Buffer;
}

/** Knowledge of the platform's outbound wire format the outbound checks need. */
export interface OutboundProbes {
  /** Paths of every request that delivers a message (text or media), e.g. `/\/send[A-Z]\w*$/`. */
  sendPath: PathPattern;
  /** The user-visible text a delivering request carried (text or caption, after rendering), or null. */
  sentText(req: RecordedRequest): string | null;
  /** True when the request asked the platform to interpret formatting (parse_mode, rich type). */
  isFormatted(req: RecordedRequest): boolean;
  /** Raw button payloads (callback_data, card values) the request carried, in order. */
  buttonPayloads(req: RecordedRequest): string[];
  /** Files the request uploaded: exact file name and bytes. */
  uploadedFiles(req: RecordedRequest): { filename: string; data: Buffer }[];
  /** The platform's text limit for one message and its unit (Telegram 4096 utf16). */
  maxLength: number;
  unit: LengthUnit;
  /** Largest button payload, UTF-8 bytes (Telegram 64). */
  buttonLimitBytes: number;
  /**
   * The platform's answer when formatting is rejected (Telegram 400 "can't parse entities").
   * Omit it for a text-only channel (capabilities.display `text`): the kit then checks that no
   * delivering request asks for formatting at all.
   */
  formattingRejected?: FakeReply;
  /** The platform's 429 answer advising `retryAfterS` seconds. */
  rateLimited(retryAfterS: number): FakeReply;
  /** A permanent failure answer (chat not found, bot blocked): must come back `retryable: false`. */
  permanentFailure: FakeReply;
  /** A server failure answer (5xx): must come back `retryable: true`. */
  serverFailure: FakeReply;
  /** Check one rendered chunk is well-formed for the platform (balanced tags/fences); return a problem or null. */
  wellFormed?(text: string): string | null;
  /** Default target of outbound cases and checks. */
  target: OutboundTarget;
}

/** Inbound attachments the suite can serve through the fake (Unicode file names in). */
export interface AttachmentProbe {
  /**
   * Make the fake serve a file named `filename` with `data`, and return the attachment + message
   * the adapter would have produced for it (what `fetchAttachment` is called with).
   */
  serve(fake: FakePlatform, file: { filename: string; data: Buffer; mime_type: string }): { att: InboundAttachment; msg: InboundMessage };
}

/** A documented request that passes without a signature (URL verification handshakes). */
export interface HandshakeCase {
  name: string;
  request(ctx: ContractContext): { method: string; headers: Record<string, string>; query?: Record<string, string>; body: Buffer };
  expect: { status: number; body?: Record<string, unknown> | string };
}

/** Options of {@link describeAdapterContract}. */
export interface AdapterContractOptions {
  /** The channel name (`telegram`); suites are titled `adapter contract: <channel> [<engine>]`. */
  channel: string;
  /** Databases to run on: `ENGINES.map((e) => ({ name: e, open: () => openTestDb(e) }))` from test/helpers/db.ts. */
  databases: { name: string; open(): Promise<Db> }[];
  /** Directory of `*.inbound.json` / `*.outbound.json` golden cases. */
  casesDir: string;
  /** The fake clock's start time (ISO-8601); default `2026-01-01T00:00:00Z`. */
  startTime?: string;
  /** Install the platform's default routes on a fresh fake (token endpoints, send → ok, getFile …). */
  installPlatform(fake: FakePlatform): void;
  /** Build the adapter under test against the fake, the database and the clock (called once per engine). */
  createAdapter(ctx: ContractContext): Promise<WebhookAdapter>;
  /**
   * Make a delivery of `body` valid at time `at` (secret header, signature, timestamp). The suite
   * also mutates each header/query value it returns (and drops each) to check 401s.
   */
  sign(body: Buffer, at: Date): SignedRequest;
  /**
   * Replay window in seconds when the platform signs a timestamp (docs/adapter-authoring.md: 300); omit
   * when it does not (Telegram's secret token has no timestamp).
   */
  replayWindowS?: number;
  /** Handshake exceptions the adapter declares (answered without a signature). */
  handshakes?: HandshakeCase[];
  generators: EventGenerators;
  outbound: OutboundProbes;
  attachments?: AttachmentProbe;
  /** Fuzz settings: mutated payloads per run (default 1000, minimum 1000) and the PRNG seed. */
  fuzz?: { iterations?: number; seed?: number };
}
