/**
 * Chains as skills (R-CHAIN-07, R-CHAIN-25,
 * R-CHAIN-38..41, R-CHAIN-43/44/46, D-05, D-07, D-08): a saved chain becomes a {@link SkillRecord} of type `chain`
 * with trigger `explicit`, and every step runs through the normal skill pipeline
 * (the composed skill call given as `call`, line `chain`) with `chat_mode = false`.
 */
import { normalizeEnvelope } from '../envelope/normalize.ts';
import { contextInputOf, sessionIdOf, type CallParties } from '../executor/request.ts';
import type { SkillCall, SkillServices } from '../executor/skill-call.ts';
import { makeRegistry, type Registry } from '../registry/discover.ts';
import type { SkillRecord } from '../registry/types.ts';
import { buildRuntimeContext } from '../runtime/context.ts';
import { directoryOrgId } from '../identity/org.ts';
import { isFixedOrPlatformKey } from '../runtime/keys.ts';
import { toTeamRole } from '../runtime/coerce.ts';
import type { TeamRole } from '../runtime/types.ts';
import type { ChainDocument } from './document.ts';
import { confirmationAsFailure, declaredStepWallSec, policyForLine, type SkillRunPolicy } from './policy.ts';
import { runChain, type ChainResult, type StepExecutor } from './runner.ts';
import { getChain, type StoredChain } from './store.ts';

/** The skill record of a saved chain (no folder; executed through {@link withChains}). */
export function chainSkillRecord(doc: ChainDocument): SkillRecord {
  return {
    name: doc.name,
    dir: '',
    root: '',
    source: 'role',
    skillType: 'chain',
    execType: null,
    version: '1.0.0',
    skillMdPath: null,
    doc: '',
    frontmatter: {
      name: doc.name,
      description: doc.description,
      triggerType: 'explicit',
      costTier: doc.cost_tier,
      tags: [],
      async: false,
      idempotent: false,
      forceRawPrompt: false,
      skillType: 'chain',
      requires: { env: [], bins: [] },
      raw: {},
    },
    inputSchema: { type: 'object', properties: {}, ...(doc.input_schema ?? {}) },
    schemaSource: 'code',
    subcommands: null,
    secretParams: [],
    status: 'ok',
    issues: [],
  };
}

/**
 * The registry plus the enabled saved chains (disabled ones are hidden from the model,
 * R-CHAIN-25). A chain never shadows an installed skill of the same name.
 */
export function registryWithChains(base: Registry, chains: readonly StoredChain[]): Registry {
  const records = [...base.all()];
  for (const c of chains) if (c.enabled && !base.get(c.name)) records.push(chainSkillRecord(c.document));
  const extra = base.issues().filter((i) => !records.some((r) => r.dir !== '' && r.dir === i.dir));
  return makeRegistry(records, extra);
}

/** The in-process objects a context carries, which never enter the lookup surface. */
const IN_PROCESS_KEYS = new Set([
  'db',
  'db_factory',
  'abort_signal',
  'call_skill',
  'channel_registry',
  'request',
  'skill_config',
  'skill_configs',
  'skill_args',
]);

/**
 * lookup_ctx (R-CHAIN-39): the run context flattened (plain values only) plus the external
 * inputs with reserved context keys (and `_` keys) filtered out; the inputs never enter the
 * run context itself.
 */
export function lookupContext(runCtx: Record<string, unknown>, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(runCtx)) {
    if (IN_PROCESS_KEYS.has(k) || k.startsWith('_') || typeof v === 'function') continue;
    out[k] = v;
  }
  for (const [k, v] of Object.entries(input)) if (!isFixedOrPlatformKey(k)) out[k] = v;
  return out;
}

/** One chain run on behalf of a caller: who, from where, in which session (src/executor/request.ts). */
export interface ChainRunRequest extends CallParties {
  doc: Pick<ChainDocument, 'steps'> & Partial<ChainDocument>;
  /** The chain inputs (model-filled / `--input`). */
  input: Record<string, unknown>;
  abortSignal?: AbortSignal;
  lang?: 'zh-CN' | 'en';
  /** Overrides of the configured walls, seconds (tests, `/skills/chain/test`). */
  chainWallSec?: number;
  stepWallSec?: number;
  /** The line the chain runs on (default `chain`; schedules pass `schedule`). */
  line?: 'chain' | 'schedule';
  /** Replace the step executor (default: {@link pipelineStepExecutor}). */
  execute?: StepExecutor;
  /**
   * The per-step policy (R-CHAIN-46, D-05); default by line: `CHAIN_POLICY` or
   * `SCHEDULE_POLICY` (both `chat_mode` false).
   */
  policy?: Readonly<SkillRunPolicy>;
}

/** What running a chain needs: the services and the (audited) skill call each step goes through. */
export interface ChainServices extends SkillServices {
  readonly call: SkillCall;
}

/**
 * The step executor of the product: each step is one `services.call` on the chain line
 * (the chat line's pipeline, R-CHAIN-07), `chat_mode` from the policy (false, D-05,
 * R-CHAIN-46), the caller's identity and full fixed context (R-CHAIN-38/40, D-07), one shared
 * session and workspace (R-CHAIN-44), and no inbound request (R-CHAIN-43). A step naming a
 * chain fails (R-CHAIN-23); a step asking for a confirmation fails at once (D-05).
 */
export function pipelineStepExecutor(services: ChainServices, req: ChainRunRequest): StepExecutor {
  const line = req.line ?? 'chain';
  const policy = req.policy ?? policyForLine(line);
  const parties: CallParties = {
    actor: req.actor,
    origin: { ...req.origin, chatMode: policy.chatMode },
    session: req.session,
    extras: req.extras,
  };
  return async (call) => {
    const rec = services.registry.resolveTool(call.skill)?.record;
    if (rec?.skillType === 'chain') {
      return { success: false, error: `step "${call.alias}" calls chain "${call.skill}": chains cannot contain chains` };
    }
    const out = await services.call({
      skill: call.skill,
      input: call.params,
      ...parties,
      line,
      abortSignal: call.signal,
      wallSec: call.wallSec,
      lang: req.lang,
    });
    return confirmationAsFailure(out, call.alias, req.lang);
  };
}

/**
 * team_role of the chain's steps (R-CHAIN-41, D-08): the caller's when given; else the
 * directory contact's whose key is `user_id`; else `member`.
 */
export async function chainTeamRole(
  services: Pick<SkillServices, 'db'>,
  req: Pick<ChainRunRequest, 'actor' | 'origin'>,
): Promise<TeamRole> {
  if (req.origin.teamRole) return req.origin.teamRole;
  const userId = req.actor.userId;
  if (userId) {
    const { rows } = await services.db.query<{ team_role: string }>(
      'SELECT team_role FROM skillgate.contacts WHERE org_id = $1 AND contact_key = $2',
      [directoryOrgId(req.origin.orgId, req.origin.roleId), userId],
    );
    if (rows[0]) return toTeamRole(rows[0].team_role);
  }
  return 'member';
}

/** Run a chain document through the pipeline. Never throws for a step's fault. */
export async function runChainDocument(services: ChainServices, req: ChainRunRequest): Promise<ChainResult> {
  const walls = services.settings.walls;
  const teamRole = await chainTeamRole(services, req);
  req = { ...req, origin: { ...req.origin, teamRole } };
  const policy = req.policy ?? policyForLine(req.line ?? 'chain');
  // The context the chain's references read (`{role_id}`, `{actor_name}` …): the caller's
  // attachments only, and the workspace the caller named ("" when the session was opened for it).
  const runCtx = buildRuntimeContext(
    contextInputOf(
      { actor: req.actor, origin: { ...req.origin, chatMode: policy.chatMode }, extras: req.extras },
      {
        sessionId: sessionIdOf(req.session),
        workspaceDir: 'open' in req.session ? (req.session.open.workspaceDir ?? '') : '',
        attachments: req.origin.attachments ?? [],
      },
    ),
  );
  return runChain(req.doc, {
    lookup: lookupContext(runCtx, req.input),
    execute: req.execute ?? pipelineStepExecutor(services, req),
    maxConcurrent: walls.maxConcurrentChainSteps,
    chainWallSec: req.chainWallSec ?? walls.chainWallSec,
    stepWallSec: req.stepWallSec ?? req.chainWallSec ?? policy.stepWallSec ?? walls.chainStepWallSec,
    // The skill's own declared wall takes precedence over the step wall (R-CHAIN-05, D-06).
    stepWallFor: (skill) => declaredStepWallSec(walls, services.registry.resolveTool(skill)?.record),
    abortSignal: req.abortSignal,
    lang: req.lang,
  });
}

/**
 * `inner` with saved chains dispatched around it: a skill of type `chain` runs the saved chain
 * with the call's input as chain inputs, its steps through `services.call`; its envelope is
 * the runner's return object (a failure when `ok` is false), with `artifacts: []`. Any other
 * skill (or a chain no longer stored) goes to `inner` as it is.
 */
export function withChains(inner: SkillCall, services: ChainServices): SkillCall {
  return async (req) => {
    const name = typeof req.skill === 'string' ? req.skill : req.skill.name;
    const rec = typeof req.skill === 'string' ? services.registry.resolveTool(req.skill)?.record : req.skill;
    if (rec?.skillType !== 'chain') return inner(req);
    const stored = await getChain(services.db, rec.name);
    if (!stored) return inner(req);
    const result = await runChainDocument(services, {
      doc: stored.document,
      input: req.input,
      actor: req.actor,
      origin: req.origin,
      session: req.session,
      extras: req.extras,
      abortSignal: req.abortSignal,
      lang: req.lang,
      line: req.line === 'schedule' ? 'schedule' : 'chain',
    });
    const env = normalizeEnvelope({ kind: 'returned', value: { ...result } }, { skill: name, lang: req.lang ?? 'zh-CN' });
    return { ...env, artifacts: [] };
  };
}
