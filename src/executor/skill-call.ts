/**
 * The skill-call module (docs/executors.md "The skill-call module"): one skill call through
 * resolve → requires → parameters → input checks → file parameters → runtime_context →
 * execute under the wall → envelope → artifacts → offload.
 *
 * {@link createSkillCall} takes every dependency at construction and never changes them; what
 * changes at run time (the registry after a hot reload or a chain save) is a live view given
 * at construction. Audit, chains, `call_skill`, `await_reply`, messaging and authoring are
 * composed around it or into its contexts at wiring time (src/wiring/skill-call.ts); this
 * folder imports none of them.
 */
import { resolve } from 'node:path';
import type { Settings } from '../config/settings.ts';
import { skillWallSec } from '../config/walls.ts';
import type { Logger } from '../log/logger.ts';
import { processArtifacts } from '../envelope/artifacts/index.ts';
import { normalizeEnvelope, isFailure } from '../envelope/normalize.ts';
import { jsonSafeOutcome } from '../envelope/json-safe.ts';
import { secretScrubber } from './child-env.ts';
import { offloadIfLarge } from '../envelope/offload.ts';
import type { Envelope, RawOutcome } from '../envelope/types.ts';
import type { Registry } from '../registry/discover.ts';
import { checkRequires } from '../registry/requires.ts';
import { secretParamsOf } from '../registry/secrets.ts';
import type { SkillRecord } from '../registry/types.ts';
import { buildRuntimeContext, type InProcessParts } from '../runtime/context.ts';
import { CONTEXT_TIME_ZONE_KEY, orgTimeZone } from '../present/clock.ts';
import { getSkillConfig, secretEnvFor } from '../runtime/skill-config.ts';
import type { CallSkill, ChannelRegistry, DbFactory, RuntimeContext } from '../runtime/types.ts';
import { attachmentRefs, listAttachments, registerAttachment, toAttachmentItems } from '../session/attachments.ts';
import { getOrCreateSession } from '../session/sessions.ts';
import { attachmentStoreDir, ensureWorkspace } from '../session/workspace.ts';
import { snapshotWorkspace } from '../envelope/artifacts/collect.ts';
import { forgetRealDir, realDirRemembered } from '../envelope/artifacts/paths.ts';
import type { Db } from '../store/db.ts';
import type { InvalidatedCache } from '../store/invalidated-cache.ts';
import { executeSkill, subprocessTimeoutFor } from './index.ts';
import { normalizeFileParams } from './file-params.ts';
import { applyForceRawPrompt } from './raw-prompt.ts';
import { resolveSubcommandInput, validateInput } from './validate.ts';
import { trackedDbFactory } from './db-factory.ts';
import { contextInputOf, ownerKeyOf, type ContextExtras, type RunLine, type RunSkillRequest } from './request.ts';

/**
 * The long-lived parts of a skill call, given once at construction and never changed. The
 * registry may be a live view (the gateway's follows hot reloads and chain saves).
 */
export interface SkillServices {
  readonly db: Db;
  readonly registry: Registry;
  readonly settings: Pick<Settings, 'dataDir' | 'walls' | 'fetchAllow' | 'llm'>;
  /** The 32-byte key that decrypts stored secrets. */
  readonly secretKey: Buffer;
  readonly log: Logger;
  /** The chat line's channel registry (null elsewhere, R-PCTX-09). */
  readonly channelRegistry?: ChannelRegistry | null;
  /** Origins trusted for URL materialisation (configured API roots, Apprise, the model). */
  readonly trustedOrigins?: readonly string[];
  /**
   * The skills a role enables, as the live skill set says now (src/lifecycle/); absent in
   * one-shot CLI runs, where the config file's role list is the whole truth.
   */
  readonly skillsFor?: (roleId: string) => readonly string[];
  /**
   * Skill parameters per (role, skill), cached and emptied on every write
   * (src/store/invalidated-cache.ts). Absent: read from the database at every call.
   */
  readonly skillConfigCache?: InvalidatedCache<Record<string, string>>;
  /**
   * The IANA zone a role's people read times in (`roleTimeZone` of the config file), given to
   * in-process skills as `runtime_context._time_zone` when it is not the organisation's zone
   * (readers fall back to that, `contextTimeZone`). Absent: the organisation's zone.
   */
  readonly timeZoneFor?: (roleId: string) => string;
}

/** Where one in-process call sits: what a composed context part may bind to. */
export interface CallFrame {
  readonly skill: SkillRecord;
  readonly roleId: string;
  readonly orgId: string;
  readonly sessionId: string;
  readonly lang: 'zh-CN' | 'en';
  /** Epoch ms by which the call must end (its wall). */
  readonly deadline: number;
  /** The call's own context (read lazily: built after the parts are made). */
  readonly parent: () => RuntimeContext;
  /** Transactions the call holds open through its `db_factory`. */
  readonly openTransactions: () => number;
}

/**
 * Keys composed into an in-process context at wiring time (`call_skill`, `messaging`,
 * `await_reply`, `lifecycle`); a part returns only the keys it owns.
 */
export type ContextPart = (frame: CallFrame) => Pick<InProcessParts, 'call_skill' | 'messaging' | 'await_reply' | 'lifecycle'>;

/** One skill call: request in, final envelope out. */
export type SkillCall = (req: RunSkillRequest) => Promise<Envelope>;

/** What {@link createSkillCall} is built from. */
export interface SkillCallDeps extends SkillServices {
  /** Context parts composed into every top-level call's context, in order. */
  readonly contextParts?: readonly ContextPart[];
}

export type { RunLine, RunSkillRequest } from './request.ts';

/** A prepared call: everything resolved up to the point of execution. */
interface Prepared {
  skill: SkillRecord;
  input: Record<string, unknown>;
  config: Record<string, string>;
  secretParams: readonly string[];
}

/** A refusal before execution, as an envelope. */
type Refusal = { refused: Envelope };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unknownSkill(name: string, lang: 'zh-CN' | 'en'): Envelope {
  return {
    success: false,
    error: `unknown skill "${name}": no enabled skill or sub-command has this name`,
    error_type: 'recoverable',
    user_message: lang === 'en' ? `There is no skill named "${name}".` : `没有名为「${name}」的技能。`,
  };
}

/**
 * Resolve the record and restore a fan-out call (R-SUBCMD-03/05), then apply the checks that
 * come before the context: requires (R-LOAD-08), stored parameters with secret injection
 * (R-CFG-06), input validation (R-SCH-04/05), force_raw_prompt (R-RAW).
 */
export async function prepareCall(
  services: SkillServices,
  target: string | SkillRecord,
  rawInput: Record<string, unknown>,
  opts: { roleId: string; delegated: boolean; userText: string; lang: 'zh-CN' | 'en' },
): Promise<Prepared | Refusal> {
  let skill: SkillRecord;
  let toolName: string;
  if (typeof target === 'string') {
    const resolved = services.registry.resolveTool(target);
    if (!resolved) return { refused: unknownSkill(target, opts.lang) };
    skill = resolved.record;
    toolName = target;
  } else {
    skill = target;
    toolName = target.name;
  }
  if (skill.status === 'broken') {
    const why = skill.issues.find((i) => i.severity === 'error')?.message ?? 'it did not load';
    return {
      refused: {
        success: false,
        error: `skill "${skill.name}" is broken and cannot run: ${why}`,
        error_type: 'config',
        non_retriable: true,
      },
    };
  }
  const read = () => getSkillConfig(services.db, services.secretKey, opts.roleId, skill.name, { logger: services.log });
  const config = services.skillConfigCache
    ? { ...(await services.skillConfigCache.get(`${opts.roleId}\u0000${skill.name}`, read)) }
    : await read();
  const needs = checkRequires(skill, { env: process.env, config, lang: opts.lang });
  if (needs) return { refused: { ...needs } };

  const restored = resolveSubcommandInput(skill, toolName, isRecord(rawInput) ? rawInput : {});
  // Secret parameters are never model-filled: drop what the call carried and inject the
  // role's stored value of the same name (R-CFG-06, docs/skill-authoring.md).
  const secretParams = secretParamsOf(restored.schema);
  const input: Record<string, unknown> = { ...restored.input };
  for (const p of secretParams) {
    delete input[p];
    if (config[p] !== undefined && config[p] !== '') input[p] = config[p];
  }
  const withPrompt = applyForceRawPrompt(skill, input, opts.userText, { delegated: opts.delegated, schema: restored.schema });
  const invalid = validateInput(restored.schema, withPrompt, { skill: skill.name, lang: opts.lang });
  if (invalid) return { refused: invalid };
  return { skill, input: withPrompt, config, secretParams };
}

/**
 * Default factor of the background cap of async skills: a background run may take
 * SKILL_WALL_HARDCAP × this factor seconds. The async runner's `hardcapFactor` overrides it.
 */
export const ASYNC_HARDCAP_FACTOR = 2;

/**
 * Effective wall of a call, seconds (D-06, R-WALL-01..04, R-ASYNC-08/09, D-16, A-48):
 * - a non-async skill: its own wall (`wall_sec` / `timeout_sec` up to SKILL_WALL_HARDCAP,
 *   else SKILL_WALL_DEFAULT);
 * - an `async: true` skill is exempt from that single-tool wall (R-ASYNC-08):
 *   `backgroundWallSec` when given (the async runner's cap), else SKILL_WALL_HARDCAP ×
 *   {@link ASYNC_HARDCAP_FACTOR};
 * then, by line: `chat` is capped by TOOL_WALL_SEC (R-WALL-03); `cli` — `skill run`, the
 * console's and the HTTP trial runs — by SKILL_WALL_HARDCAP (D-16: trial runs never go
 * unbounded); a `deadline` (epoch ms, the caller's wall for call_skill, R-ASYNC-09 /
 * R-WALL-06) caps every line.
 */
function wallFor(
  services: SkillServices,
  skill: SkillRecord,
  line: RunLine | 'call_skill',
  deadline?: number,
  backgroundWallSec?: number,
): number {
  const walls = services.settings.walls;
  let wall = skill.frontmatter.async
    ? backgroundWallSec !== undefined && Number.isFinite(backgroundWallSec) && backgroundWallSec > 0
      ? backgroundWallSec
      : walls.skillWallHardcapSec * ASYNC_HARDCAP_FACTOR
    : skillWallSec(walls, { wallSec: skill.frontmatter.wallSec, timeoutSec: skill.frontmatter.timeoutSec });
  if (line === 'chat') wall = Math.min(wall, walls.toolWallSec);
  if (line === 'cli') wall = Math.min(wall, walls.skillWallHardcapSec);
  if (deadline !== undefined) wall = Math.max(0.001, Math.min(wall, (deadline - Date.now()) / 1000));
  return wall;
}

/** Execute a prepared call with a built context. */
export async function executePrepared(
  services: SkillServices,
  p: Prepared,
  ctx: RuntimeContext,
  opts: {
    wallSec: number;
    abortSignal?: AbortSignal;
    callSkill?: CallSkill;
    background?: boolean;
    onProgress?: (note: string) => void;
    lang?: 'zh-CN' | 'en';
  },
): Promise<RawOutcome> {
  return executeSkill(p.skill, p.input, ctx, {
    onProgress: opts.onProgress,
    lang: opts.lang,
    wallSec: opts.wallSec,
    exposeAbortSignal: !opts.background,
    subprocessTimeoutSec: subprocessTimeoutFor(p.skill, opts.wallSec),
    abortSignal: opts.abortSignal,
    secretEnv: secretEnvFor(p.config, p.secretParams),
    log: services.log,
    callSkill: opts.callSkill,
    llmConfigured: services.settings.llm !== undefined,
  });
}

/**
 * Build the skill call of `deps` (fixed for its whole life). The returned function runs one
 * call on the dialog layer (or a delegated line) and returns the final envelope: the skill's
 * own result normalised (R-OUT), with top-level `artifacts` (README.md "The skillgate command"; `[]` if none)
 * and, for a large success, the offload receipt (R-OFF). A refusal before execution (unknown
 * skill, broken, needs_config, invalid input, a path outside the workspace) is an envelope
 * too, with `artifacts: []`. It neither audits nor dispatches chains: those are composed
 * around it (src/audit/hook.ts, src/chain/skill.ts).
 * The function throws only on infrastructure failures (database unreachable).
 */
export function createSkillCall(deps: SkillCallDeps): SkillCall {
  const parts = deps.contextParts ?? [];
  const storeDir = attachmentStoreDir(deps.settings.dataDir);
  return (req) => runOne(deps, parts, storeDir, req);
}

async function runOne(services: SkillCallDeps, parts: readonly ContextPart[], storeDir: string, req: RunSkillRequest): Promise<Envelope> {
  const lang = req.lang ?? 'zh-CN';
  const started = Date.now();
  const { actor, origin } = req;
  const userText = origin.rawInput;
  const delegated = !(req.line === 'chat' || req.line === 'cli');
  const { roleId, orgId, channel } = origin;

  const prepared = await prepareCall(services, req.skill, req.input, { roleId, delegated, userText, lang });
  const skillName = 'refused' in prepared ? (typeof req.skill === 'string' ? req.skill : req.skill.name) : prepared.skill.name;
  if ('refused' in prepared) {
    services.log.info({ skill: skillName, refused: prepared.refused.error_type ?? true }, 'skill call refused before execution');
    return { ...normalizeEnvelope({ kind: 'returned', value: prepared.refused }, { skill: skillName, lang }), artifacts: [] };
  }

  const session =
    'opened' in req.session
      ? req.session.opened
      : await getOrCreateSession(services.db, {
          id: req.session.open.id,
          roleId,
          orgId,
          channel,
          ownerKey: req.session.open.ownerKey ?? ownerKeyOf(actor, channel),
          dataDir: services.settings.dataDir,
          workspaceDir: req.session.open.workspaceDir,
          ensureWorkspace: false,
        });
  const workspaceDir = resolve(session.workspaceDir);
  // Resolved once per process (src/envelope/artifacts/paths.ts); created when it does not exist.
  let realWorkspace = realDirRemembered(workspaceDir) ?? realDirRemembered(ensureWorkspace(workspaceDir)) ?? workspaceDir;
  const records = await listAttachments(services.db, session.id);
  const files = normalizeFileParams(prepared.input, {
    workspaceDir,
    attachmentStoreDir: storeDir,
    refs: attachmentRefs(records),
    lang,
  });
  if ('envelope' in files) {
    return { ...normalizeEnvelope({ kind: 'returned', value: files.envelope }, { skill: skillName, lang }), artifacts: [] };
  }
  prepared.input = files.input;

  const wallSec =
    typeof req.wallSec === 'number' && Number.isFinite(req.wallSec) && req.wallSec > 0
      ? req.wallSec
      : wallFor(services, prepared.skill, req.line, undefined, req.backgroundWallSec);
  const deadline = Date.now() + wallSec * 1000;
  const attachments = toAttachmentItems(records);
  if (origin.attachments) attachments.push(...origin.attachments);
  // Only a role zone other than the organisation's is told; readers fall back to the latter.
  const roleZone = services.timeZoneFor?.(roleId);
  const extras: ContextExtras =
    roleZone && roleZone !== orgTimeZone() && req.extras?.[CONTEXT_TIME_ZONE_KEY] == null
      ? { ...req.extras, [CONTEXT_TIME_ZONE_KEY]: roleZone }
      : (req.extras ?? {});
  let ctx!: RuntimeContext;
  const tx = trackedDbFactory(services.db);
  const frame: CallFrame = {
    skill: prepared.skill,
    roleId,
    orgId,
    sessionId: session.id,
    lang,
    deadline,
    parent: () => ctx,
    openTransactions: tx.open,
  };
  const composed: InProcessParts = {};
  for (const part of parts) Object.assign(composed, part(frame));
  ctx = buildRuntimeContext({
    ...contextInputOf({ actor, origin, extras }, { sessionId: session.id, workspaceDir, attachments }),
    config: { skill: prepared.skill.name, values: prepared.config },
    inProcess: {
      ...composed,
      db: services.db,
      db_factory: tx.factory as DbFactory,
      abort_signal: req.abortSignal ?? null,
      ...(req.onProgress ? { report_progress: progressReporter(req.onProgress) } : {}),
    },
    channelRegistry: req.line === 'chat' ? (services.channelRegistry ?? null) : null,
    request: req.line === 'chat' ? (req.request ?? null) : null,
    clock: req.clock,
  });

  let before = await snapshotWorkspace(realWorkspace, { real: true });
  if (before.missing) {
    // Removed from outside since it was resolved: created again before the skill runs.
    forgetRealDir(workspaceDir);
    realWorkspace = realDirRemembered(ensureWorkspace(workspaceDir)) ?? realWorkspace;
    before = await snapshotWorkspace(realWorkspace, { real: true });
  }
  services.log.info({ skill: prepared.skill.name, exec: prepared.skill.execType, line: req.line, wall_sec: wallSec }, 'skill call started');
  const raw = await executePrepared(services, prepared, ctx, {
    wallSec,
    abortSignal: req.abortSignal,
    callSkill: composed.call_skill,
    background: req.line === 'async',
    onProgress: req.onProgress,
    lang,
  });
  const secretValues = prepared.secretParams.map((p) => prepared.config[p]).filter((v): v is string => typeof v === 'string' && v !== '');
  const outcome = jsonSafeOutcome(raw, prepared.skill.name, secretScrubber(secretValues));
  let envelope = normalizeEnvelope(outcome, { skill: prepared.skill.name, lang });

  envelope = await processArtifacts(envelope, {
    workspaceDir: realWorkspace,
    before,
    fetchAllow: services.settings.fetchAllow,
    trustedOrigins: services.trustedOrigins,
    allowScripts: /脚本|script/i.test(userText),
    log: services.log,
    lang,
    register: async (a) => {
      await registerAttachment(services.db, {
        sessionId: session.id,
        type: a.media,
        filename: a.filename,
        localPath: a.local_path,
        url: a.url,
        origin: a.origin === 'url' ? 'materialized' : 'artifact',
      });
    },
  });
  envelope = await offloadIfLarge(envelope, { skill: prepared.skill.name, workspaceDir });
  services.log.info(
    {
      skill: prepared.skill.name,
      ok: !isFailure(envelope),
      duration_ms: Date.now() - started,
      artifacts: (envelope.artifacts ?? []).length,
    },
    'skill call finished',
  );
  return envelope;
}

export { wallFor };

/** A skill's `report_progress`: one short line (≤ 200 characters), never throwing into the skill. */
function progressReporter(onProgress: (note: string) => void): (note: string) => void {
  return (note) => {
    const line = String(note ?? '')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 200);
    if (!line) return;
    try {
      onProgress(line);
    } catch {
      // best effort: a progress line never fails the call
    }
  };
}
