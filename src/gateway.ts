/**
 * Start and stop one gateway process: settings → data dir → database → migrations → skills →
 * directory seed → channels, inbox, turn, outbox → HTTP.
 * Shutdown is bounded: stop accepting, let in-flight turns finish for at most
 * SKILLGATE_SHUTDOWN_GRACE_SEC, abort the rest (taken over at the next start: docs/recovery.md).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './http/app.ts';
import { createAdminConsole } from './console/index.ts';
import { loadConfigFile, roleTimeZone, type ConfigFile } from './config/file.ts';
import { resolveSecretKey } from './config/secret-key.ts';
import { demoIdentitiesOn, isLoopbackHost, type Settings } from './config/settings.ts';
import type { Logger } from './log/logger.ts';
import { acquireDataDir, removeServerInfo, writeServerInfo, type DataDirLock } from './store/datadir.ts';
import type { Db } from './store/db.ts';
import { defaultInstanceId } from './store/instance-id.ts';
import { migrate } from './store/migrate.ts';
import { openEmbeddedDb, openServerDb } from './store/open.ts';
import { createSkillLifecycle } from './lifecycle/live.ts';
import type { SkillServices } from './executor/skill-call.ts';
import { wireSkillCall } from './wiring/skill-call.ts';
import { createAuditSink } from './audit/sink.ts';
import { liveRegistry } from './registry/live.ts';
import type { Registry } from './registry/discover.ts';
import { AdapterSet } from './channel/adapters.ts';
import { pgConnectionStateStore } from './channel/connection-state.ts';
import { pgLeaseStore } from './channel/leases.ts';
import { leaseTimingFromEnv, longConnectionKey, runLongConnection, type LongConnectionRunner } from './channel/long-connection.ts';
import { publishCatalog } from './registry/catalog.ts';
import { createMetrics } from './http/metrics.ts';
import { findContact, seedDemoDirectory } from './identity/index.ts';
import { createInbox, floodLimitFromEnv } from './inbox/index.ts';
import { pressureFromEnv, startMemoryGuard } from './inbox/pressure.ts';
import { startRecovery } from './recovery/heartbeat.ts';
import { SHUTDOWN_GRACE_DEFAULT_SEC } from './config/settings.ts';
import { createOutbox, eventNoticeItem, operatorCeilings } from './outbox/index.ts';
import { createCoreHost } from './turn/host.ts';
import { plannerForRole, plannerStartupLine } from './turn/planners/model.ts';
import type { Planner } from './turn/planner.ts';
import { RunningTurns } from './turn/running.ts';
import { createTurnHandler } from './turn/turn.ts';
import type { TurnInput } from './turn/input.ts';
import { createWebChannel } from '../adapters/web/index.ts';
import { identityDirectory } from './web-auth/directory.ts';
import { channelDeclarations } from '../adapters/index.ts';
import { channelNames, declaredFactory, directoryChannels } from './channel/declaration.ts';
import { createWebhookRouter } from './channel/webhooks.ts';
import { createNotifyAdapter } from './orchestration/notify.ts';
import { chainAwareRegistry } from './chain/services.ts';
import { createChainRouter } from './http/chains.ts';
import { createMcpRouter } from './mcp/server/router.ts';
import { requireBearer } from './http/local-auth.ts';
import { startGatewayScheduler } from './schedule/index.ts';
import { createAsyncRunner } from './async/runner.ts';
import { startAuditRetention } from './audit/retention.ts';
import { PendingRepliesRouter } from './orchestration/pending-replies.ts';
import { attachmentStoreDir } from './session/workspace.ts';
import type { AdapterHost } from './channel/types.ts';
import { createInvalidatedCache, DIRECTORY_CHANNEL, SKILL_CONFIG_CHANNEL } from './store/invalidated-cache.ts';
import type { ResolvedActor } from './identity/index.ts';

/** A running gateway. */
export interface Gateway {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  db: Db;
  config: ConfigFile;
  /** This process's name in leases and heartbeats. */
  instanceId: string;
  /**
   * Stop accepting, wait at most SKILLGATE_SHUTDOWN_GRACE_SEC for running turns (saying which),
   * abort the rest, close the database, release the data dir. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Start the gateway.
 * @throws DataDirBusyError when another process holds the embedded data dir;
 *   ConfigError on bad configuration; the database error when the server is unreachable.
 */
export async function startGateway(settings: Settings, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<Gateway> {
  const config = loadConfigFile(
    settings.configPath,
    { orgId: settings.orgId, roleId: settings.roleId, channels: channelNames(channelDeclarations) },
    env,
  );
  log.info({ walls: settings.walls }, 'wall clocks resolved (seconds)');

  let lock: DataDirLock | undefined;
  let db: Db;
  if (settings.databaseUrl) {
    db = openServerDb(settings.databaseUrl);
  } else {
    lock = await acquireDataDir(settings.dataDir);
    try {
      db = await openEmbeddedDb(settings.dataDir);
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  let server: Server | undefined;
  const stops: Array<() => Promise<void>> = [];
  const cleanup = async (): Promise<void> => {
    // Stop accepting first, then let in-flight turns and sends finish (graceful shutdown).
    const closing = server ? new Promise<void>((r) => server!.close(() => r())) : Promise.resolve();
    server?.closeIdleConnections?.();
    for (const stop of stops.reverse())
      await stop().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'shutdown step failed'));
    server?.closeAllConnections?.();
    await closing;
    await db.close().catch(() => undefined);
    if (lock) {
      removeServerInfo(settings.dataDir);
      await lock.release();
    }
  };

  try {
    const { applied, current } = await migrate(db);
    log.info({ applied, schema_version: current, engine: db.engine }, 'database ready');
    const secretKey = resolveSecretKey(settings);
    // Audit rows older than SKILLGATE_AUDIT_RETENTION_DAYS (90) are purged now and daily.
    const auditRetention = startAuditRetention({ db, log });
    stops.push(async () => auditRetention.stop());
    // The live skill set: built-in, SKILLGATE_SKILL_DIRS, <data>/skills and every
    // role's own skills; per-role scope; hot reload (SKILLGATE_SKILL_RELOAD_MS); install.
    // The registry with the saved chains, replaced after a save or enable and after every
    // change of the skill set; everyone reads it through the live view below.
    let skillSet: Registry | undefined;
    const lifecycle = await createSkillLifecycle({
      db,
      settings,
      config,
      log,
      env,
      scopeRegistry: () => skillSet ?? lifecycle.registry(),
      deferFirstPreload: true,
    });
    stops.push(() => lifecycle.close());
    const broken = lifecycle
      .registry()
      .all()
      .filter((s) => s.status === 'broken')
      .map((s) => s.name);
    log.info({ skills: lifecycle.registry().all().length, broken }, 'skills discovered');
    // Rows read at every turn but rarely written, cached per process and emptied by the
    // writers' notifications on every replica (src/store/invalidated-cache.ts).
    const skillConfigCache = await createInvalidatedCache<Record<string, string>>(db, SKILL_CONFIG_CHANNEL);
    const actorCache = await createInvalidatedCache<ResolvedActor>(db, DIRECTORY_CHANNEL);
    stops.push(() => skillConfigCache.close());
    stops.push(() => actorCache.close());
    const rebuildRegistry = async (): Promise<void> => {
      skillSet = (await chainAwareRegistry(db, lifecycle.registry())).registry;
      publishCatalog(lifecycle.registry(), config, lifecycle.skillsFor);
    };
    await rebuildRegistry();
    lifecycle.onChange(rebuildRegistry);
    const services: SkillServices = {
      db,
      registry: liveRegistry(() => skillSet ?? lifecycle.registry()),
      settings,
      secretKey,
      log,
      skillsFor: lifecycle.skillsFor,
      skillConfigCache,
      timeZoneFor: (roleId) => roleTimeZone(config, roleId),
    };
    const defaultRole = config.roles.find((r) => r.id === settings.roleId) ?? config.roles[0]!;
    // Demo identities only on loopback (docs/configuration.md "Demo identities").
    const demo = demoIdentitiesOn(settings);
    if (demo) await seedDemoDirectory(db, defaultRole.org_id, defaultRole.id);

    const adapters = new AdapterSet();
    let hostRef: AdapterHost | undefined;
    const webhooks = createWebhookRouter({ adapterFor: (c, a) => adapters.get(c, a), host: () => hostRef, log });
    const web = createWebChannel({
      db,
      log,
      dataDir: settings.dataDir,
      orgId: defaultRole.org_id,
      roleId: defaultRole.id,
      demo,
      directory: identityDirectory(db, findContact),
    });
    adapters.add(web);
    stops.push(() => web.close());
    for (const factory of channelDeclarations.map(declaredFactory)) {
      const made = await factory.create({
        db,
        log,
        env: process.env,
        config,
        defaultRoleId: settings.roleId,
        dataDir: settings.dataDir,
        secretKey,
        publicUrl: settings.publicUrl,
      });
      for (const a of made) adapters.add(a);
      if (made.length === 0) log.debug({ channel: factory.channel }, 'channel off (not configured)');
    }

    // One name for this process in inbox and outbox leases and in the heartbeat (docs/recovery.md).
    const instanceId = defaultInstanceId();
    const running = new RunningTurns();
    await running.listen(db);
    stops.push(() => running.close());
    let metricsRef: ReturnType<typeof createMetrics> | undefined;
    // notify (Apprise API) is an outbox destination, not a chat channel: it is kept out of the
    // channel list and reached as `notify`/`default` (docs/messaging.md).
    const appriseUrl = process.env.APPRISE_API_URL?.trim();
    const notifyAdapter = appriseUrl ? createNotifyAdapter({ baseUrl: appriseUrl }) : undefined;
    const deliveryFor = (channel: string, account: string) =>
      channel === 'notify' && account === 'default' ? notifyAdapter : adapters.get(channel, account);
    const outbox = createOutbox(db, {
      log,
      instanceId,
      adapterFor: deliveryFor,
      // `max_sends_per_s` per account (off by default): docs/operations-delivery.md "Flood control".
      ceilingOf: operatorCeilings(process.env, config.accounts),
      onStatus: (channel: string, status: string) => metricsRef?.outbound(channel, status),
      onSuppressed: (channel, kind) => metricsRef?.suppressed(channel, kind),
      onAmbiguous: (channel, event) => metricsRef?.ambiguous(channel, event),
    });
    // Audit rows are group-committed; a turn awaits their durability before it replies.
    const auditSink = createAuditSink(db, { log });
    stops.push(() => auditSink.close());
    // The skill call of this process: fixed parts, composed once (src/wiring/skill-call.ts).
    const skillCall = wireSkillCall(services, {
      messaging: {
        db,
        outbox,
        adapterFor: deliveryFor,
        skillExists: (name) => services.registry.resolveTool(name) !== undefined,
        attachmentRoots: [attachmentStoreDir(settings.dataDir)],
        log,
      },
      reload: (reason) => lifecycle.reload(reason),
      auditSink,
    });
    // Callers that answer with the envelope itself (trial runs, background jobs, schedules)
    // get it once its audit rows are committed; the turn awaits them before its reply.
    const durableCall: typeof skillCall = async (req) => {
      const envelope = await skillCall(req);
      await auditSink.durable();
      return envelope;
    };
    const callServices = { ...services, call: durableCall };
    // async: true skills on non-web channels run in the background on a pg-boss queue .
    const asyncRunner = createAsyncRunner({
      db,
      services,
      call: durableCall,
      outbox,
      log,
      adapterFor: (c, a) => adapters.get(c, a),
      instanceId,
    });
    await asyncRunner.start();
    stops.push(() => asyncRunner.stop()); // a no-op once the turns' step below stopped it
    // Under memory pressure the inbox stores events but takes no new turns (src/inbox/pressure.ts).
    const memoryGuard = startMemoryGuard({ thresholds: pressureFromEnv(env), log });
    stops.push(async () => memoryGuard.stop());
    const inbox = createInbox<TurnInput>(db, {
      log,
      instanceId,
      admit: () => !memoryGuard.pressured(),
      // The web page shows the acknowledgement and the user's echo against the reply: its turns start after the flush.
      earlyStart: (msg) => msg.channel !== 'web',
      flood: {
        perMinute: floodLimitFromEnv(env),
        notify: (msg, text) => outbox.enqueue(db, [eventNoticeItem(msg, { kind: 'notice', text, format: 'plain' })]).then(() => undefined),
      },
    });
    const metrics = createMetrics(
      { inbox: () => inbox.backlog(), outbox: () => outbox.backlog() },
      { heap: () => (memoryGuard.sample(), memoryGuard.last()), pressured: () => memoryGuard.pressured() },
    );
    metricsRef = metrics;
    // One planner per role: the model planner when the role has a model endpoint
    // (LLM_BASE_URL or the role's `model:`), else the command planner .
    const planners = new Map<string, Planner>();
    const plannerFor = (role: (typeof config.roles)[number]): Planner => {
      let p = planners.get(role.id);
      if (!p) {
        p = plannerForRole(role, { llm: settings.llm, services, skills: () => lifecycle.skillsFor(role.id) });
        planners.set(role.id, p);
      }
      return p;
    };
    log.info(plannerStartupLine(settings.llm, defaultRole));
    const handleTurn = createTurnHandler({
      services,
      skillCall,
      audit: auditSink,
      config,
      defaultRoleId: settings.roleId,
      // Typing and progress go to the adapter directly: dropped while the chat waits out a retry_after.
      adapterFor: (channel, account) => {
        const a = adapters.get(channel, account);
        return a && outbox.quiet(a);
      },
      outbox,
      running,
      markStarted: (event, call) => inbox.markStarted(event, call),
      plannerFor,
      pendingReplies: new PendingRepliesRouter({ db }),
      deferAsync: (req, origin) => asyncRunner.maybeDefer(req, origin),
      onTurn: (t) => metrics.turn(t.channel, t.ms, t.failures),
      actorCache,
    });
    const host = createCoreHost({ db, log, inbox, running, outbox, onInbound: (channel, result) => metrics.inbound(channel, result) });
    // Work left by a process that died is taken over before anything is claimed (docs/recovery.md).
    const recovery = await startRecovery(db, instanceId, log, { onTakeOver: (dead) => asyncRunner.takeOver(dead) });
    stops.push(() => recovery.stop());
    outbox.start();
    stops.push(() => outbox.stop());
    // Turns of different chats run side by side (one chat's stay in order), 32 at once on both
    // engines: the events stored together by one INSERT (src/inbox/insert-batch.ts) are taken by
    // it too, where 4 embedded turns left most of a batch to a claim statement each (measured
    // with `BENCH_ONLY=gateway npm run bench`, docs/performance.md).
    inbox.start(handleTurn, { concurrency: TURN_CONCURRENCY });
    const graceSec = settings.shutdownGraceSec ?? SHUTDOWN_GRACE_DEFAULT_SEC;
    // Turns and background jobs share the one grace (they stop side by side).
    stops.push(
      async () => void (await Promise.all([stopTurns(inbox, running, graceSec, log), asyncRunner.stop({ timeoutMs: graceSec * 1000 })])),
    );
    hostRef = host;
    // Long connections run on the replica holding their lease; webhook adapters on every replica.
    const leaseStore = pgLeaseStore(db);
    const connectionStates = pgConnectionStateStore(db);
    const leaseHolder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    const leaseTimingNow = leaseTimingFromEnv(env);
    const owners: LongConnectionRunner[] = [];
    stops.push(async () => {
      await Promise.all(owners.map((r) => r.stop()));
    });
    for (const a of adapters.all()) {
      const key = longConnectionKey(a);
      if (key && a.start) {
        owners.push(
          runLongConnection({
            adapter: a,
            key,
            host,
            store: leaseStore,
            state: connectionStates,
            holder: leaseHolder,
            timing: leaseTimingNow,
            log,
          }),
        );
        continue;
      }
      // One channel failing to connect (a revoked token) must not take the others down.
      await a
        .start?.(host)
        .catch((err: unknown) =>
          log.error(
            { channel: a.channel, account: a.account, err: (err as Error).message },
            `channel ${a.channel}@${a.account} failed to start; it stays off`,
          ),
        );
    }
    const scheduler = await startGatewayScheduler(
      callServices,
      (roleId) => config.roles.find((r) => r.id === roleId)?.org_id ?? defaultRole.org_id,
    );
    stops.push(() => scheduler.stop());
    stops.push(async () => {
      for (const a of adapters.all()) if (a !== web && !longConnectionKey(a)) await a.stop?.();
    });

    const localToken = randomBytes(32).toString('hex');
    const chainRoutes = createChainRouter({
      services: callServices,
      config,
      defaultRoleId: settings.roleId,
      auth: settings.adminToken
        ? requireBearer(settings.adminToken)
        : (_req, res) => void res.status(403).json({ error: 'SKILLGATE_ADMIN_TOKEN is not set' }),
      onChange: rebuildRegistry,
    });
    // The operators' console at /admin (docs/console.md).
    const adminConsole = createAdminConsole({
      db,
      log,
      services: { ...callServices, lifecycle },
      config,
      channels: directoryChannels(channelDeclarations),
      defaultRoleId: settings.roleId,
      outbox,
      adapterFor: deliveryFor,
      adminToken: settings.adminToken,
      scheduler,
      findContact,
    });
    stops.push(() => adminConsole.close());
    // skillgate's skills as MCP tools at /mcp, per token (docs/mcp.md).
    const mcpRoutes = createMcpRouter({ db, services: callServices, config, log, publicUrl: settings.publicUrl });
    const app = createApp({
      db,
      log,
      localToken,
      channels: directoryChannels(channelDeclarations),
      skills: { services: callServices, lifecycle, config, defaultRoleId: settings.roleId },
      metrics,
      routers: [webhooks, chainRoutes, web.router, adminConsole.router, mcpRoutes],
    });
    // Express 5 hands a listen failure to the callback as well as to 'error'.
    server = await new Promise<Server>((resolveListen, reject) => {
      const s = app.listen(settings.port, settings.host, (err?: Error) =>
        err ? reject(listenError(err, settings.host, settings.port)) : resolveListen(s),
      );
    });
    web.attach(server);
    const port = (server.address() as AddressInfo).port;
    if (lock) {
      writeServerInfo(settings.dataDir, { pid: process.pid, port, token: localToken, started_at: new Date().toISOString() });
    }
    const shownHost = isLoopbackHost(settings.host) ? 'localhost' : settings.host;
    log.info(
      {
        host: settings.host,
        port,
        channels: adapters.describe(),
        database: db.engine,
        data_dir: lock ? settings.dataDir : undefined,
        demo,
      },
      `skillgate listening on http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port} — channels on: ${adapters.describe().join(', ')}`,
    );
    log.info(accessLine(settings, demo, port));
    // The handlers discovery did not import yet (src/lifecycle/build.ts), now that the port answers.
    void lifecycle.preloadDeferred();
    let closed: Promise<void> | undefined;
    return {
      url: `http://${urlHost(settings.host)}:${port}`,
      port,
      db,
      config,
      instanceId,
      close: () => (closed ??= cleanup()),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** `turn (chat key) calling skill, …` for the stop's log lines. */
function describeTurns(turns: ReturnType<RunningTurns['list']>): string {
  return turns.map((t) => `${t.skills.length > 0 ? t.skills.join('+') : 'no skill'} (chat ${t.chat_key}, event ${t.event_id})`).join('; ');
}

/**
 * The turns' part of a stop: say what runs, wait at most `graceSec`, then abort what is left
 * and say so; the aborted turns record nothing and are taken over at the next start.
 */
async function stopTurns(
  inbox: { stop(o: { graceMs: number }): Promise<{ abandoned: string[] }> },
  running: RunningTurns,
  graceSec: number,
  log: Logger,
): Promise<void> {
  const waiting = running.list();
  if (waiting.length > 0)
    log.warn(
      { turns: waiting, grace_sec: graceSec },
      `stopping: waiting up to ${graceSec} s for ${waiting.length} running turn(s): ${describeTurns(waiting)}`,
    );
  const { abandoned } = await inbox.stop({ graceMs: graceSec * 1000 });
  if (abandoned.length === 0) {
    if (waiting.length > 0) log.info('stopping: every running turn finished');
    return;
  }
  const left = running.list();
  running.abortAll();
  log.warn(
    { turns: left, event_ids: abandoned },
    `stopping: grace of ${graceSec} s over, aborted ${abandoned.length} turn(s): ${describeTurns(left)}; they are handled as after a crash at the next start`,
  );
}

/** The start-up line that says who can get in: loopback or network, demo identities, console. */
function accessLine(settings: Settings, demo: boolean, port: number): string {
  const where = isLoopbackHost(settings.host)
    ? `listening on loopback only (${settings.host}); set HOST=0.0.0.0 to serve a network`
    : `listening on ${settings.host}: reachable from the network`;
  const who = demo
    ? 'demo identities ON (anyone on this machine can sign in as 张三 / 李四; SKILLGATE_DEMO=off turns them off)'
    : 'demo identities off: people sign in with a link (`skillgate web token <contact>`)';
  const console = settings.adminToken
    ? `console at /admin (SKILLGATE_ADMIN_TOKEN or an is_admin contact's sign-in)`
    : `console at /admin (is_admin contacts only; SKILLGATE_ADMIN_TOKEN is not set)`;
  return `${where}; ${who}; ${console}; port ${port}`;
}

/** The address a local client reaches a server listening on `host` at. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '' || host === 'localhost') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** Turns of different chats one process runs at once. */
const TURN_CONCURRENCY = 32;

/** Thrown by {@link startGateway} when the HTTP port cannot be bound (`code`: EADDRINUSE, EACCES, …). */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ListenError';
  }
}

function listenError(err: Error, host: string, port: number): ListenError {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new ListenError(
      `port ${port} is already in use on ${host} (another skillgate or another program); stop it or set PORT to a free port`,
      code,
    );
  if (code === 'EACCES')
    return new ListenError(`not allowed to listen on ${where}; ports below 1024 need privileges — set PORT to 1024 or above`, code);
  return new ListenError(`cannot listen on ${where}: ${err.message}`, code);
}
