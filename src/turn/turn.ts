/**
 * One turn: an inbox event → role → identity and access
 * → session and uploads → confirmation / pending reply / planner → reply composition →
 * outbox. Every stage is its own module; this file only orders them.
 *
 * Precedence (README.md "Start"): a pending confirmation (button or 「确认」/「取消」) → a pending
 * reply for this sender (a message starting with `/` or 「取消」 bypasses it) → the planner.
 */
import type { ChannelAdapter, InboundMessage, OutboundMessage, OutboundTarget } from '../channel/types.ts';
import type { ConfigFile, RoleConfig } from '../config/file.ts';
import type { Envelope } from '../envelope/types.ts';
import type { RunSkillRequest, SkillCall, SkillServices } from '../executor/skill-call.ts';
import { callActorOf, chatLineOrigin } from '../executor/request.ts';
import { toEpochSeconds } from '../runtime/coerce.ts';
import { actorFieldsFor, checkAccess, resolveActor, type ResolvedActor } from '../identity/index.ts';
import { listAttachments } from '../session/attachments.ts';
import { getOrCreateSession, type SessionRecord } from '../session/sessions.ts';
import { addressedText, parseTurnInput, type TurnInput } from './input.ts';
import type { MaterialRef, Planner, PlannerResult, ToolInvocation } from './planner.ts';
import { composeKeepingFull, keepFullText } from './full-text.ts';
import { escapeMarkdown } from './reply/result-md.ts';
import { takeConfirmByToken, takeLatestConfirm } from './confirm-flow.ts';
import { rememberConfirms, mediaResolver } from './reply-support.ts';
import { rememberChoices, isChoiceToken } from './choice-flow.ts';
import { answerChoiceButton, answerChoiceText } from './choice-answer.ts';
import { roleFor } from './roles.ts';
import { stoppedByShutdown, type RunningTurns } from './running.ts';
import { offerRetry } from './interrupted.ts';
import type { StartedCall } from '../inbox/types.ts';
import { chatKeyOf, sessionIdFor } from './session-key.ts';
import { storeInboundAttachments } from './uploads.ts';
import { notice, type Lang } from './notices.ts';
import { roleSkills } from '../config/file.ts';
import type { InvalidatedCache } from '../store/invalidated-cache.ts';
import type { SqlWrite } from '../store/sql-write.ts';

/** One message for the outbox. */
type SinkItem = { target: OutboundTarget; message: OutboundMessage; idempotency_key?: string; origin?: Record<string, unknown> };

/** Where composed messages go (the outbox's enqueue). */
export interface ReplySink {
  enqueue(q: SkillServices['db'], items: SinkItem[]): Promise<string[]>;
  /**
   * Store the turn's reply with the inbox event's done mark in one statement
   * (`Outbox.enqueueFinal`). Absent: the reply is enqueued and the inbox marks the event.
   */
  enqueueFinal?(items: SinkItem[], completes: { inboxEventId: string; leaseOwner: string }): Promise<{ ids: string[]; completed: boolean }>;
}

/**
 * A pending-reply router (orchestration issue): offered every message before the planner;
 * returns true when the message answered a waiting skill (the turn ends there).
 */
export interface PendingReplyRouter {
  route(ctx: TurnContext): Promise<boolean>;
  /**
   * Continue a question that a continuation asked (src/turn/choice-answer.ts): the chosen value
   * names the waiting record to answer. False when no open record fits (the call is then made
   * again directly).
   */
  answerChoice?(ctx: TurnContext, choice: { tool: string; args: Record<string, unknown>; param: string; value: string }): Promise<boolean>;
}

/** What the stages share about the turn being handled. */
export interface TurnContext {
  eventId: string;
  msg: InboundMessage;
  role: RoleConfig;
  actor: ResolvedActor;
  session: SessionRecord;
  target: OutboundTarget;
  adapter: ChannelAdapter;
  lang: Lang;
  /** Text addressed to the bot (mention removed). */
  text: string;
  /** {@link text} parsed once: a command, help, stop, confirm, cancel, invalid or plain text. */
  input: TurnInput;
  signal: AbortSignal;
  /** Run one tool through the whole pipeline for this turn's actor and session. */
  invoke(tool: string, args: Record<string, unknown>): Promise<Envelope>;
  /** Send the turn's reply (composed from planner text + invocations). */
  reply(result: PlannerResult): Promise<void>;
  /** Send a short platform message. */
  notice(text: string): Promise<void>;
  /** Send the turn's last messages (with the event's done mark where the outbox can). */
  send(messages: OutboundMessage[]): Promise<void>;
  /** The skill call a run of this event had started when its process died (docs/recovery.md). */
  interrupted?: StartedCall;
}

/** What the turn asks of the audit log (an AuditSink is one). */
export interface TurnAudit {
  /** Resolves when the rows of calls so far are committed. */
  durable(): Promise<void>;
  /** The session's waiting rows as one write for the reply's statement, or undefined. */
  take(sessionId: string): Promise<{ write: SqlWrite; giveBack(): void } | undefined>;
}

/** Everything a turn needs. */
export interface TurnDeps {
  services: SkillServices;
  /** The composed (audited) skill call every invocation goes through. */
  skillCall: SkillCall;
  /**
   * The audit rows of the turn's calls (src/audit/sink.ts): the final reply commits them in its
   * own statement (`take`), any other reply awaits `durable()` first. Absent: rows are written
   * by the calls themselves.
   */
  audit?: TurnAudit;
  config: ConfigFile;
  defaultRoleId: string;
  adapterFor(channel: string, account: string): ChannelAdapter | undefined;
  outbox: ReplySink;
  running: RunningTurns;
  /** The planner a role uses (the command planner unless a model is configured). */
  plannerFor(role: RoleConfig): Planner;
  pendingReplies?: PendingReplyRouter;
  /**
   * Record that the turn starts a skill call (the inbox's `markStarted`), awaited before every
   * skill that does not declare `idempotent: true` (docs/recovery.md). Absent: nothing recorded.
   */
  markStarted?(event: { id: string; lease_owner: string }, call: StartedCall): Promise<unknown>;
  /** Observes finished turns (metrics). */
  onTurn?(info: { channel: string; ms: number; ok: boolean; failures: number }): void;
  /**
   * Async skills (src/async/runner.ts `AsyncRunner.maybeDefer`): asked before
   * each tool run; a non-null envelope is the immediate answer and the run continues in the
   * background. Absent: every skill runs synchronously.
   */
  deferAsync?(
    req: RunSkillRequest,
    origin: { target: OutboundTarget; reply_to?: string | null; event_id: string },
  ): Promise<Envelope | null>;
  /**
   * Resolved senders by (role, channel, platform ids), emptied on every directory import
   * (src/store/invalidated-cache.ts). Absent: looked up at every turn.
   */
  actorCache?: InvalidatedCache<ResolvedActor>;
  /** Wall clock (tests inject one). */
  now?: () => Date;
  /**
   * Show progress (typing) only when the turn outlasts this, ms (default {@link PROGRESS_DELAY_MS}):
   * a quick turn sends no typing call at all (docs/operations-delivery.md "Flood control").
   */
  progressDelayMs?: number;
}

/** How long a turn runs before typing / 「处理中…」 is shown, ms. */
export const PROGRESS_DELAY_MS = 1000;

/** A minimal inbox event (the inbox's `InboxEvent`). */
export interface TurnEvent {
  id: string;
  message: InboundMessage;
  /** The inbox lease holding it; with it the reply commits the event's done mark. */
  lease_owner?: string;
  /** The text as the intake parsed it (absent for an event read back from the table). */
  parsed?: TurnInput;
  /** The skill call an earlier run had started when its process died (the inbox's `interrupted`). */
  interrupted?: StartedCall;
}

/** `v` and everything reachable from it, frozen (a shared cached value no turn may change). */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

function targetOf(msg: InboundMessage, chatType = msg.chat.type): OutboundTarget {
  return {
    channel: msg.channel,
    account: msg.account,
    chat_id: msg.chat.id,
    thread_id: msg.chat.thread_id ?? null,
    chat_type: chatType,
    ...(msg.reply_route ? { route: msg.reply_route } : {}),
  };
}

/**
 * Build the inbox handler. It throws only on infrastructure failures (the inbox retries the
 * event then); everything a user should hear about becomes a message.
 */
export function createTurnHandler(deps: TurnDeps): (ev: TurnEvent) => Promise<{ completed: boolean }> {
  const now = deps.now ?? (() => new Date());
  const { services } = deps;
  const db = services.db;

  return async function handleTurn(ev: TurnEvent): Promise<{ completed: boolean }> {
    const started = Date.now();
    const msg = ev.message;
    const adapter = deps.adapterFor(msg.channel, msg.account);
    // Whether the reply carried the event's done mark (see ReplySink.enqueueFinal).
    let completed = false;
    if (!adapter) {
      services.log.warn({ channel: msg.channel, account: msg.account }, 'inbound event for a channel that is off; dropped');
      return { completed };
    }
    const lang: Lang = msg.lang === 'en' ? 'en' : 'zh-CN';
    const role = roleFor(deps.config, msg.channel, msg.account, deps.defaultRoleId);
    const target = targetOf(msg);
    // Registered once the turn is past access and session (below); `send` checks its stop.
    let running: ReturnType<RunningTurns['begin']> | undefined;
    let seq = 0;
    /** `auditSession`: the session whose calls' audit rows must be committed first (or with it). */
    const send = async (messages: OutboundMessage[], final = false, auditSession?: string): Promise<void> => {
      if (messages.length === 0) return;
      // A bounded stop gave up on this turn: nothing is recorded, the next start takes it over.
      if (running && stoppedByShutdown(running.signal)) throw running.signal.reason;
      const items = messages.map((m) => ({
        target,
        message: m,
        idempotency_key: `turn:${ev.id}:${seq++}`,
        // `lang`: the resend marker after an unknown outcome speaks it (docs/operations-delivery.md).
        origin: { inbox_event_id: ev.id, lang },
      }));
      if (final && ev.lease_owner && deps.outbox.enqueueFinal) {
        const audit = auditSession === undefined ? undefined : await deps.audit?.take(auditSession);
        try {
          const completes = { inboxEventId: ev.id, leaseOwner: ev.lease_owner, ...(audit ? { alongside: audit.write } : {}) };
          completed = (await deps.outbox.enqueueFinal(items, completes)).completed;
        } catch (err) {
          audit?.giveBack();
          throw err;
        }
        return;
      }
      if (auditSession !== undefined) await deps.audit?.durable();
      await deps.outbox.enqueue(db, items);
    };
    const sendNotice = (text: string): Promise<void> =>
      send([{ kind: 'notice', text, format: 'plain', reply_to: msg.message_id, final: true }]);

    const actorArgs = {
      orgId: role.org_id,
      roleId: role.id,
      channel: msg.channel,
      platformId: msg.actor.id,
      platformIds: msg.actor.ids,
      nickname: msg.actor.display_name,
    };
    // A cached sender is shared by every turn of that sender: frozen, never copied per turn.
    const actor = deps.actorCache
      ? await deps.actorCache.get(JSON.stringify(actorArgs), async () => deepFreeze(await resolveActor(db, actorArgs)))
      : await resolveActor(db, actorArgs);
    const access = checkAccess(role, actor, msg.channel, msg.actor.id, lang);
    if (!access.allowed) {
      services.log.info({ channel: msg.channel, actor: actor.contactKey, role: role.id }, 'sender refused by the access policy');
      await sendNotice(access.message);
      return { completed };
    }

    const session = await getOrCreateSession(db, {
      id: sessionIdFor(role.id, msg),
      roleId: role.id,
      orgId: role.org_id,
      channel: msg.channel,
      ownerKey: actor.contactKey,
      dataDir: services.settings.dataDir,
    });
    const uploads = await storeInboundAttachments(db, {
      adapter,
      msg,
      sessionId: session.id,
      workspaceDir: session.workspaceDir,
      log: services.log,
    });
    const tooLarge = uploads.failed.filter((f) => f.limit_bytes !== undefined);
    const otherFailed = uploads.failed.filter((f) => f.limit_bytes === undefined);
    if (tooLarge.length > 0) {
      const mb = Math.round(Math.min(...tooLarge.map((f) => f.limit_bytes!)) / (1024 * 1024));
      await sendNotice(notice(lang, 'upload_too_large', { files: tooLarge.map((f) => f.filename).join('、'), mb: String(mb) }));
    }
    if (otherFailed.length > 0) {
      await sendNotice(notice(lang, 'upload_failed', { files: otherFailed.map((f) => f.filename).join('、') }));
    }

    const parties = {
      actor: callActorOf(actorFieldsFor(actor, { channel: msg.channel, actingAsAdmin: false }), actor.contactKey),
      origin: chatLineOrigin({
        roleId: role.id,
        orgId: role.org_id,
        channel: msg.channel,
        rawInput: msg.raw_input ?? '',
        teamRole: actor.teamRole,
        triggeredAt: msg.received_at ? toEpochSeconds(msg.received_at) : undefined,
      }),
      session: { opened: session },
    };
    const run = deps.running.begin(chatKeyOf(msg), ev.id);
    running = run;
    let failures = 0;
    const countFailure = (env: Envelope): Envelope => {
      if (env.success === false) failures++;
      return env;
    };
    const invoke = async (tool: string, args: Record<string, unknown>): Promise<Envelope> => {
      const req: RunSkillRequest = {
        skill: tool,
        input: args,
        ...parties,
        line: 'chat',
        abortSignal: run.signal,
        request: msg,
        lang,
        clock: now,
        onProgress: (note) => progress.note(note),
      };
      if (stoppedByShutdown(run.signal)) throw run.signal.reason;
      const calling = run.calling(tool);
      try {
        const deferred = await deps.deferAsync?.(req, { target, reply_to: msg.message_id, event_id: ev.id });
        if (deferred) return countFailure(deferred);
        // Before a skill whose repeat is not harmless, the call is recorded as started (docs/recovery.md).
        const leaseOwner = ev.lease_owner;
        if (deps.markStarted && leaseOwner && services.registry.resolveTool(tool)?.record.frontmatter.idempotent === false) {
          await deps.markStarted({ id: ev.id, lease_owner: leaseOwner }, { skill: tool, input: args });
        }
        return countFailure(await deps.skillCall(req));
      } finally {
        calling();
      }
    };

    const progress = startProgress(adapter, target, deps.progressDelayMs ?? PROGRESS_DELAY_MS, lang);
    const ctx: TurnContext = {
      eventId: ev.id,
      msg,
      role,
      actor,
      session,
      target,
      adapter,
      lang,
      text: addressedText(msg),
      input: ev.parsed ?? parseTurnInput(msg),
      signal: run.signal,
      invoke,
      notice: sendNotice,
      send: (messages) => send(messages, true),
      ...(ev.interrupted ? { interrupted: ev.interrupted } : {}),
      reply: async (result) => {
        const records = await listAttachments(db, session.id);
        await rememberConfirms(db, services.secretKey, {
          sessionId: session.id,
          actorKey: actor.contactKey,
          invocations: result.invocations,
          now: now(),
        });
        const choices = await rememberChoices(db, {
          sessionId: session.id,
          actorKey: actor.contactKey,
          invocations: result.invocations,
          lang,
          now: now(),
        });
        const messages = await composeKeepingFull(
          {
            choices,
            plannerText: result.text,
            invocations: result.invocations,
            capabilities: adapter.capabilities,
            lang,
            paraphrased: result.paraphrased,
            replyTo: msg.message_id,
            mediaFor: mediaResolver(records),
          },
          (text) => keepFullText(db, session, text, lang, now()),
          (err) => services.log.warn({ err, session: session.id }, 'the full text of a cut reply could not be kept'),
        );
        if (run.signal.aborted) stoppedNote(messages, result, lang);
        if (uploads.stored.length > 0) markUploads(messages[0]!, uploads.stored, lang);
        await send(messages, true, session.id);
      },
    };
    try {
      await dispatch(deps, ctx, { progress: progress.note, now });
    } finally {
      progress.stop();
      run.end();
      deps.onTurn?.({ channel: msg.channel, ms: Date.now() - started, ok: failures === 0, failures });
    }
    return { completed };
  };
}

/** Confirmation → pending reply → planner (README.md "Start"). */
async function dispatch(deps: TurnDeps, ctx: TurnContext, opts: { progress(note: string): void; now: () => Date }): Promise<void> {
  const { services } = deps;
  const { msg, session, actor, lang } = ctx;

  // 0. Taken over after a crash while a skill call ran: ask before calling it again (docs/recovery.md).
  if (ctx.interrupted) {
    await offerRetry(ctx, ctx.interrupted, { db: services.db, secretKey: services.secretKey, now: opts.now });
    return;
  }

  // 1. A pending confirmation or question: a button, or a 「确认」 / 「取消」 reply.
  if (msg.kind === 'callback' && msg.callback && isChoiceToken(msg.callback.token)) {
    await answerChoiceButton(deps, ctx, msg.callback.token, msg.callback.action, opts.now());
    return;
  }
  if (msg.kind === 'callback' && msg.callback) {
    const choice = msg.callback.action === 'cancel' ? 'cancelled' : 'confirmed';
    const pending = msg.callback.token
      ? await takeConfirmByToken(services.db, services.secretKey, {
          sessionId: session.id,
          actorKey: actor.contactKey,
          token: msg.callback.token,
          resolution: choice,
          now: opts.now(),
        })
      : null;
    await answerConfirm(ctx, pending, choice);
    return;
  }
  const parsed = ctx.input;
  if (parsed.kind === 'confirm' || parsed.kind === 'cancel') {
    const choice = parsed.kind === 'cancel' ? 'cancelled' : 'confirmed';
    const pending = await takeLatestConfirm(services.db, services.secretKey, {
      sessionId: session.id,
      actorKey: actor.contactKey,
      resolution: choice,
      now: opts.now(),
    });
    if (pending || parsed.kind === 'confirm') {
      await answerConfirm(ctx, pending, choice);
      return;
    }
    // 「取消」 with nothing to confirm falls through to a pending reply (which it cancels).
  }
  if (parsed.kind === 'stop') {
    await ctx.notice(notice(lang, 'nothing_running'));
    return;
  }
  if (await answerChoiceText(deps, ctx, opts.now())) return;

  // 2. A pending reply for this sender.
  if (deps.pendingReplies && (await deps.pendingReplies.route(ctx))) return;

  // 3. The planner.
  const planner = deps.plannerFor(ctx.role);
  const tools = services.registry.tools({ skills: services.skillsFor?.(ctx.role.id) ?? roleSkills(deps.config, ctx.role.id) ?? '*' });
  const materials: MaterialRef[] = (await listAttachments(services.db, session.id)).map((a) => ({
    ref: a.ref,
    type: a.type,
    filename: a.filename,
  }));
  const result = await planner.handle({
    text: ctx.text,
    input: ctx.input,
    raw_input: msg.raw_input ?? '',
    lang,
    tools,
    materials,
    invoke: ctx.invoke,
    signal: ctx.signal,
    progress: opts.progress,
    display: ctx.adapter.capabilities.display,
    commandButtons: ctx.adapter.capabilities.command_buttons === true,
  });
  await ctx.reply(result);
}

async function answerConfirm(
  ctx: TurnContext,
  pending: Awaited<ReturnType<typeof takeLatestConfirm>>,
  choice: 'confirmed' | 'cancelled',
): Promise<void> {
  if (!pending) {
    await ctx.notice(notice(ctx.lang, 'no_pending_confirm'));
    return;
  }
  if (choice === 'cancelled') {
    await ctx.notice(notice(ctx.lang, 'confirm_cancelled'));
    return;
  }
  // docs/messaging.md: the gateway re-invokes the same skill with the same parameters + token;
  // a call a restart interrupted is run again as it was (docs/recovery.md).
  const args = pending.kind === 'retry' ? pending.args : { ...pending.args, confirm_token: pending.token };
  const envelope = await ctx.invoke(pending.tool, args);
  const invocation: ToolInvocation = { tool: pending.tool, args, envelope };
  await ctx.reply({ text: '', invocations: [invocation] });
}

/**
 * The reply to a message with files names the reference id each got (docs/web-protocol.md
 * `upload.refs`): a first line 「已收到：img_1（photo.png）」 and `upload_refs` for the web page.
 */
function markUploads(first: OutboundMessage, stored: readonly { ref: string; filename: string }[], lang: Lang): void {
  const name = (f: string): string => (first.format === 'markdown' ? escapeMarkdown(f) : f);
  const names = stored
    .map((a) => (lang === 'en' ? `${a.ref} (${name(a.filename)})` : `${a.ref}（${name(a.filename)}）`))
    .join(lang === 'en' ? ', ' : '、');
  const line = lang === 'en' ? `Received: ${names}` : `已收到：${names}`;
  first.text = first.text.trim() === '' ? line : `${line}\n\n${first.text}`;
  first.upload_refs = stored.map((a) => ({ ref: a.ref, filename: a.filename }));
}

/**
 * A stopped turn answers in one bubble: the stop note joins the reply's last message, and is
 * left out when a skill already said it stopped (`stopped: true`, e.g. the countdown example).
 */
function stoppedNote(messages: OutboundMessage[], result: PlannerResult, lang: Lang): void {
  if (result.invocations.some((inv) => inv.envelope.stopped === true)) return;
  const last = messages.at(-1);
  if (!last || (last.text.trim() === '' && !last.confirm)) {
    messages.push({ kind: 'notice', text: notice(lang, 'stopped'), format: 'plain', final: true });
    return;
  }
  last.text = `${last.text.trimEnd()}\n\n${notice(lang, 'stopped')}`;
}

/** After `delayMs`, show typing / 「处理中…」 and keep it alive until stopped. */
function startProgress(
  adapter: ChannelAdapter,
  target: OutboundTarget,
  delayMs: number,
  lang: Lang,
): { note(text: string): void; stop(): void } {
  let shown = false;
  let typingTimer: NodeJS.Timeout | undefined;
  const show = (): void => {
    shown = true;
    void adapter.typing?.(target).catch(() => undefined);
    void adapter.progress?.(target, notice(lang, 'working')).catch(() => undefined);
    // Typing indicators expire after ~5 s on most platforms (Telegram sendChatAction).
    typingTimer = setInterval(() => void adapter.typing?.(target).catch(() => undefined), 4000);
    typingTimer.unref();
  };
  const timer = setTimeout(show, delayMs);
  timer.unref();
  return {
    note(text: string): void {
      if (!shown) {
        clearTimeout(timer);
        show();
      }
      void adapter.progress?.(target, text).catch(() => undefined);
    },
    stop(): void {
      clearTimeout(timer);
      if (typingTimer) clearInterval(typingTimer);
      if (shown) void adapter.progress?.(target, null).catch(() => undefined);
    },
  };
}
