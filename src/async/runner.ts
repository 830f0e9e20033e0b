/**
 * Async skills on a PostgreSQL job queue (R-ASYNC-01..08, A-48,
 * The turn asks {@link AsyncRunner.maybeDefer} before running a tool: a chat-line call
 * of an `async: true` skill on a channel other than web / web_admin is stored as a pg-boss job
 * (schema `pgboss`, both engines) and answered at once with `{ok: true, async: true, message}`.
 * One worker (pg-boss `work`, batch 1) runs each job through `runSkill` on the `async` line —
 * no request, channel_registry or abort_signal; the skill's stored configuration is read
 * before it starts; neither the single-tool skill wall nor the chat tool wall applies, only
 * the background cap SKILL_WALL_HARDCAP × `hardcapFactor` (R-ASYNC-08, A-48) — and pushes the
 * composed result (text, display_md, artifacts as media) or the failure's `user_message` to
 * the originating chat through the outbox, one idempotency key per job and message.
 * A job survives a restart: it stays in PostgreSQL until a worker completes it.
 */
import type PgBoss from 'pg-boss';
import type { ChannelAdapter } from '../channel/types.ts';
import type { Envelope } from '../envelope/types.ts';
import { ASYNC_HARDCAP_FACTOR, prepareCall, type RunSkillRequest, type SkillCall, type SkillServices } from '../executor/skill-call.ts';
import type { Logger } from '../log/logger.ts';
import { BOSS_SCHEMA, createBoss, startBoss } from '../schedule/boss.ts';
import type { Db } from '../store/db.ts';
import { rememberConfirms } from '../turn/reply-support.ts';
import type { ReplySink } from '../turn/turn.ts';
import { ASYNC_QUEUE, asyncSkillOf, jobCallOf, jobDataOf, type AsyncOrigin, type StoredJobData } from './job.ts';
import { sessionIdOf } from '../executor/request.ts';
import { PLAIN_CAPABILITIES, resultMessages } from './push.ts';
import { asyncText } from './texts.ts';

/** Options of {@link createAsyncRunner}. */
export interface AsyncRunnerOptions {
  db: Db;
  /** The gateway's skill services (the worker drops `channelRegistry`, R-ASYNC-05). */
  services: SkillServices;
  /** The composed (audited) skill call a job runs through, on the `async` line. */
  call: SkillCall;
  /** Where results go (the gateway's outbox). */
  outbox: ReplySink;
  log: Logger;
  /** The adapter of a channel account, for its capabilities; undefined → plain text with media. */
  adapterFor?: (channel: string, account: string) => ChannelAdapter | undefined;
  /** Run the worker in this process (default true; a process that only enqueues passes false). */
  work?: boolean;
  /** Worker polling when not woken, seconds (pg-boss minimum 0.5; default 2). */
  pollingIntervalSeconds?: number;
  /**
   * the longest background run = SKILL_WALL_HARDCAP × this factor (default 2,
   * ASYNC_HARDCAP_FACTOR): the run's wall. The pg-boss job expires 60 s after that (a job
   * still active then is retried once).
   */
  hardcapFactor?: number;
  /** Retries of a job that failed or expired (default 1; the outbox keys stop duplicate pushes). */
  retryLimit?: number;
  /**
   * How long a finished job waits for its turn's own reply (the acknowledgement) to be queued
   * before pushing, ms (default 30000; 0 = do not wait), so the chat sees the acknowledgement
   * first even when the run ends before the turn has replied.
   */
  ackWaitMs?: number;
  /** Clock for trigger times and confirmation expiry (tests). */
  clock?: () => Date;
  /**
   * This process's id in `skillgate.instances` (docs/recovery.md): written on each job it
   * starts, so {@link AsyncRunner.takeOver} can hand a dead process's jobs to the workers again.
   */
  instanceId?: string;
}

/** What {@link createAsyncRunner} returns; the lead wires it into the gateway. */
export interface AsyncRunner {
  /** Start pg-boss (installs schema `pgboss` on first use), create the queue and the worker. */
  start(): Promise<void>;
  /** Stop the worker and pg-boss; a running job finishes first (up to 30 s, then it stays queued). */
  /** Stop taking jobs; wait at most `timeoutMs` (default 30000) for running ones (pg-boss retries what is left). */
  stop(opts?: { timeoutMs?: number }): Promise<void>;
  /**
   * The turn's hook: when `req` is to run in the background, store the job and return the
   * immediate envelope `{ok: true, success: true, async: true, message, job_id, artifacts: []}`;
   * otherwise null (the caller runs the skill synchronously). Calls refused before execution
   * (unknown skill, needs_config, invalid input) are not deferred: null, so the caller's
   * synchronous run answers with the refusal at once.
   * @throws the database error when the job cannot be stored.
   */
  maybeDefer(req: RunSkillRequest, origin: AsyncOrigin): Promise<Envelope | null>;
  /** Run one stored job now (what the worker does; exported for tests and tooling). */
  runJob(jobId: string, data: StoredJobData): Promise<Envelope>;
  /**
   * Jobs a stopped process was running (docs/recovery.md): `dead` instance ids (server), or
   * `'all'` — every job that was running before this runner started (embedded: one process
   * owns the data dir). They are failed through pg-boss, which retries them at once (within
   * `retryLimit`) instead of after the job's expiry. @returns how many were handed back.
   */
  takeOver(dead: readonly string[] | 'all'): Promise<number>;
}

/** Build the async runner (not started). */
export function createAsyncRunner(opts: AsyncRunnerOptions): AsyncRunner {
  const { db, log } = opts;
  const clock = opts.clock ?? (() => new Date());
  // Background runs never see the chat line's channel registry (R-ASYNC-05, R-PCTX-09).
  const services: SkillServices = { ...opts.services, db, channelRegistry: null };
  let boss: PgBoss | undefined;
  let workerId: string | undefined;
  /** Database time when this runner started (embedded takeover: older active jobs are a dead process's). */
  let startedAt: string | undefined;
  const backgroundWallSec = services.settings.walls.skillWallHardcapSec * (opts.hardcapFactor ?? ASYNC_HARDCAP_FACTOR);
  const expireInSeconds = Math.ceil(backgroundWallSec) + 60;

  /** True when the call would be refused before execution (the synchronous run says why). */
  const refusedNow = async (req: RunSkillRequest): Promise<boolean> => {
    const p = await prepareCall(services, req.skill, req.input, {
      roleId: req.origin.roleId,
      delegated: false,
      userText: req.origin.rawInput,
      lang: req.lang ?? 'zh-CN',
    });
    return 'refused' in p;
  };

  /** Wait (bounded by ackWaitMs) until the turn of `eventId` has queued its first message. */
  const turnReplied = async (eventId: string): Promise<void> => {
    const deadline = Date.now() + (opts.ackWaitMs ?? 30_000);
    // The turn's outbox keys are `turn:<event id>:<n>` (src/turn/turn.ts), n from 0.
    const key = `turn:${eventId}:0`;
    for (;;) {
      const { rows } = await db.query('SELECT 1 FROM skillgate.outbox_messages WHERE idempotency_key = $1', [key]);
      if (rows.length > 0 || Date.now() >= deadline) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const runJob = async (jobId: string, data: StoredJobData): Promise<Envelope> => {
    const call = jobCallOf(data);
    const sessionId = sessionIdOf(call.session);
    let envelope: Envelope;
    try {
      envelope = await opts.call({
        skill: data.tool,
        input: data.input,
        ...call,
        line: 'async',
        lang: data.lang,
        clock,
        backgroundWallSec,
      });
    } catch (err) {
      log.error({ err, skill: data.skill, job: jobId }, 'async skill run failed on infrastructure');
      envelope = {
        success: false,
        error: `background run failed: ${(err as Error).message}`,
        error_type: 'transient',
        user_message: asyncText(data.lang, 'crashed', data.skill),
        artifacts: [],
      };
    }
    const { target } = data.origin;
    const caps = opts.adapterFor?.(target.channel, target.account)?.capabilities ?? PLAIN_CAPABILITIES;
    const invocation = { tool: data.tool, args: data.input, envelope };
    const actorKey = call.actor.contactKey;
    if (actorKey) await rememberConfirms(db, services.secretKey, { sessionId, actorKey, invocations: [invocation], now: clock() });
    const messages = await resultMessages(db, data, envelope, caps, sessionId, (err) =>
      log.warn({ err, skill: data.skill, job: jobId }, 'the full text of a cut result could not be kept'),
    );
    await turnReplied(data.origin.event_id);
    await opts.outbox.enqueue(
      db,
      messages.map((message, n) => ({
        target,
        message,
        idempotency_key: `async:${jobId}:${n}`,
        origin: { inbox_event_id: data.origin.event_id, async_job_id: jobId, lang: data.lang === 'en' ? 'en' : 'zh-CN' },
      })),
    );
    log.info(
      { skill: data.skill, job: jobId, ok: envelope.success !== false && envelope.ok !== false, messages: messages.length },
      'async skill result pushed',
    );
    return envelope;
  };

  return {
    async start() {
      if (boss) return;
      startedAt = (await db.query<{ now: string }>('SELECT now()::text AS now')).rows[0]!.now;
      const b = createBoss(db, { schedule: false, supervise: true });
      b.on('error', (err: Error) => log.error({ err }, 'pg-boss error (async skills)'));
      await startBoss(db, b, async () => {
        if (!(await b.getQueue(ASYNC_QUEUE))) await b.createQueue(ASYNC_QUEUE);
      });
      boss = b;
      if (opts.work ?? true) {
        workerId = await b.work<StoredJobData>(
          ASYNC_QUEUE,
          { batchSize: 1, pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2 },
          async (jobs) => {
            for (const job of jobs) {
              if (opts.instanceId) await markRunner(db, job.id, opts.instanceId);
              await runJob(job.id, job.data);
            }
          },
        );
      }
    },

    async stop(stopOpts = {}) {
      const b = boss;
      boss = undefined;
      workerId = undefined;
      await b?.stop({ graceful: true, wait: true, timeout: Math.max(1, stopOpts.timeoutMs ?? 30_000) });
    },

    async maybeDefer(req, origin) {
      const skill = asyncSkillOf(services.registry, req);
      if (!skill) return null;
      if (!boss) throw new Error('the async runner is not started');
      if (await refusedNow(req)) return null;
      const data = jobDataOf(req, skill, origin);
      const jobId = await boss.send(ASYNC_QUEUE, data, { retryLimit: opts.retryLimit ?? 1, expireInSeconds });
      if (!jobId) throw new Error('pg-boss did not store the async job');
      if (workerId) boss.notifyWorker(workerId);
      log.info({ skill, job: jobId, channel: origin.target.channel }, 'async skill deferred');
      return { ok: true, success: true, async: true, message: asyncText(data.lang, 'accepted', skill), job_id: jobId, artifacts: [] };
    },

    runJob,

    async takeOver(dead) {
      const b = boss;
      if (!b || (dead !== 'all' && dead.length === 0)) return 0;
      const { rows } =
        dead === 'all'
          ? await db.query<{ id: string }>(
              `SELECT id::text AS id FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND state = 'active' AND started_on < $2::timestamptz`,
              [ASYNC_QUEUE, startedAt],
            )
          : await db.query<{ id: string }>(
              `SELECT id::text AS id FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND state = 'active' AND output->>'${RUNNER_KEY}' = ANY($2::text[])`,
              [ASYNC_QUEUE, [...dead]],
            );
      if (rows.length === 0) return 0;
      // One call per job: pg-boss types take data only with a single id.
      for (const r of rows) await b.fail(ASYNC_QUEUE, r.id, { message: 'the gateway process running it stopped' });
      if (workerId) b.notifyWorker(workerId);
      log.warn({ jobs: rows.length, queue: ASYNC_QUEUE }, 'async jobs of a stopped gateway process handed back to the workers');
      return rows.length;
    },
  };
}

/** The key of a running job's pg-boss `output` that names the process running it. */
const RUNNER_KEY = 'skillgate_instance';

/**
 * Note on the running job which process runs it (pg-boss keeps no worker identity; `output`
 * is replaced by the result when the job completes or fails).
 */
async function markRunner(db: Db, jobId: string, instanceId: string): Promise<void> {
  await db.query(
    `UPDATE ${BOSS_SCHEMA}.job SET output = jsonb_build_object('${RUNNER_KEY}', $3::text) WHERE name = $1 AND id = $2::uuid AND state = 'active'`,
    [ASYNC_QUEUE, jobId, instanceId],
  );
}
