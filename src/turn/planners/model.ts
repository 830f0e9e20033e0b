/**
 * The model planner: an OpenAI-compatible chat model picks
 * the role's tools and fills their arguments. What the model sees and how its mistakes are
 * contained:
 *
 * - tools exactly as the registry exposes them (`PlannerTurn.tools`, README.md "The skillgate command"), plus
 *   `file_read` (offloaded results, R-OFF-05) and `save_skill_config` (R-CFG-08);
 * - tool results as `modelView` of the envelope: no `for_user`, display blocks marked as
 *   shown — or kept to be paraphrased on a text-only channel (docs/results.md);
 * - the material list and retrieved `knowledge` passages in the system prompt;
 * - `skill_md` skills as sub-agents (model/sub-agent.ts);
 * - the failure budget (model/budget.ts, R-OUT-05..08); the user always gets an answer.
 *
 * `force_raw_prompt` (R-RAW) is applied by the executor on every chat-line call, so the
 * model's paraphrase of a prompt field never reaches such a skill.
 */
import type { RoleConfig } from '../../config/file.ts';
import type { Settings } from '../../config/settings.ts';
import type { Envelope } from '../../envelope/types.ts';
import type { SkillServices } from '../../executor/skill-call.ts';
import type { Planner, PlannerResult, PlannerTurn, ToolInvocation } from '../planner.ts';
import { FailureBudget, type BudgetLimits } from './model/budget.ts';
import { ChatClient, ModelCallError, type ChatClientOptions, type ChatMessage, type ChatTool, type ModelEndpoint } from './model/client.ts';
import { converse, wrapUp, type ChatLike, type TurnRun } from './model/conversation.ts';
import { knowledgeSkills, retrieve } from './model/knowledge.ts';
import { FILE_READ_TOOL, SAVE_SKILL_CONFIG_TOOL } from './model/local-tools.ts';
import { mainSystemPrompt, plannerText } from './model/prompt.ts';
import { runDocumentSkill } from './model/sub-agent.ts';
import { CommandPlanner, type CommandPlannerOptions } from './command.ts';

export { ChatClient, ModelCallError, retryAfterMs, type ChatMessage, type ChatTool, type ModelEndpoint } from './model/client.ts';
export { FailureBudget, canonicalJson } from './model/budget.ts';
export { retrieve, terms, passages, knowledgeSkills, type KnowledgeHit } from './model/knowledge.ts';
export { docHead, SKILL_MD_HEAD } from './model/sub-agent.ts';
export { SKILL_FILE_MAX, FILE_READ_MAX, readSkillFile, fileRead } from './model/local-tools.ts';

/** What {@link ModelPlanner} needs. */
export interface ModelPlannerOptions {
  /** The model endpoint (a {@link ChatClient}). */
  client: ChatLike;
  /** The long-lived services (database, registry, secret key, logger). */
  services: Pick<SkillServices, 'db' | 'registry' | 'secretKey' | 'log'>;
  /** The role this planner answers for (config saves go to it). */
  roleId: string;
  /**
   * The role's enabled skills (for knowledge retrieval); default every skill. A function is
   * asked on every turn (the live skill set changes without a restart).
   */
  skills?: readonly string[] | '*' | (() => readonly string[] | '*');
  /** Model calls with tools per conversation before a forced wrap-up (default 12). */
  maxSteps?: number;
  /** Budget limits (default: the spec's 2 / 4 / 3). */
  limits?: Partial<BudgetLimits>;
  /** Clock for the prompt's date (tests). */
  now?: () => Date;
}

function needsConfigOf(env: Envelope): string[] {
  const v = env.needs_config;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
}

/** The planner. One instance per role; `handle` is re-entrant (no per-turn state on `this`). */
export class ModelPlanner implements Planner {
  readonly name = 'model';

  constructor(private readonly opts: ModelPlannerOptions) {}

  /** The model name this planner asks. */
  get model(): string {
    return this.opts.client.model;
  }

  /**
   * Handle one turn. Never throws for a skill or model failure: a model that cannot be
   * reached gives a message saying so (with what ran before).
   */
  async handle(turn: PlannerTurn): Promise<PlannerResult> {
    const { services } = this.opts;
    const clock = this.opts.now ?? (() => new Date());
    const now = clock();
    const textOnly = turn.display === 'text';
    const run: TurnRun = {
      turn,
      client: this.opts.client,
      budget: new FailureBudget(this.opts.limits),
      invocations: [],
      readable: new Map(),
      textOnly,
      registry: services.registry,
      db: services.db,
      secretKey: services.secretKey,
      roleId: this.opts.roleId,
      log: services.log,
      now: clock,
      maxSteps: this.opts.maxSteps ?? 12,
      runDocumentSkill,
    };
    const knowledge = retrieve(
      turn.text,
      knowledgeSkills(services.registry.all(), (typeof this.opts.skills === 'function' ? this.opts.skills() : this.opts.skills) ?? '*'),
    );
    const names = new Set(turn.tools.map((t) => t.function.name));
    const tools: ChatTool[] = [...turn.tools, ...[FILE_READ_TOOL, SAVE_SKILL_CONFIG_TOOL].filter((t) => !names.has(t.function.name))];
    const messages: ChatMessage[] = [
      {
        role: 'system',
        content: mainSystemPrompt({ lang: turn.lang, textOnly, materials: turn.materials, knowledge, now: now.toISOString() }),
      },
      { role: 'user', content: turn.text },
    ];
    const spec = { messages, tools, depth: 0 };
    let text: string;
    try {
      const end = await converse(run, spec);
      if (end.stop === 'aborted') text = end.text;
      else if (end.stop) text = [await wrapUp(run, spec, end.stop), this.summary(run, end.stop)].filter((s) => s !== '').join('\n\n');
      else text = end.text === '' ? plannerText(turn.lang, 'empty_answer') : end.text;
    } catch (err) {
      if (turn.signal.aborted) text = '';
      else if (err instanceof ModelCallError) {
        services.log.warn({ status: err.status, model: this.opts.client.model }, 'model call failed; the user is told');
        text = plannerText(turn.lang, 'model_unavailable');
      } else throw err;
    }
    text = this.withNeedsConfig(text, run.invocations, turn.lang);
    const displayed = run.invocations.some((i) => typeof i.envelope.display_md === 'string' && i.envelope.display_md.trim() !== '');
    return { text, invocations: run.invocations, ...(textOnly && displayed && text !== '' ? { paraphrased: true } : {}) };
  }

  /** The platform's own line after an early stop (R-OUT-07/08), in the turn's language. */
  private summary(run: TurnRun, stop: 'failures' | 'loop' | 'steps'): string {
    const lang = run.turn.lang;
    const lines = [
      stop === 'failures'
        ? plannerText(lang, 'stopped_failures', run.budget.failures)
        : stop === 'loop'
          ? plannerText(lang, 'stopped_loop')
          : plannerText(lang, 'stopped_steps'),
    ];
    const failed = [...new Set(run.budget.failedSkills)];
    if (failed.length) lines.push(plannerText(lang, 'failed_list', failed.join(lang === 'en' ? ', ' : '、')));
    return lines.join(' ');
  }

  /** Make sure a needs_config answer names the parameters to provide, even if the model did not. */
  private withNeedsConfig(text: string, invocations: ToolInvocation[], lang: 'zh-CN' | 'en'): string {
    const extra: string[] = [];
    for (const inv of invocations) {
      const names = needsConfigOf(inv.envelope);
      if (names.length === 0 || names.every((n) => text.includes(n))) continue;
      const skill = inv.tool.split('__')[0]!;
      extra.push(plannerText(lang, 'needs_config', skill, names.join(lang === 'en' ? ', ' : '、')));
    }
    return [text, ...new Set(extra)].filter((s) => s !== '').join('\n\n');
  }
}

/** The model endpoint of a role: the role's `model:` over the `.env` one (docs/configuration.md). */
export function endpointForRole(
  llm: Settings['llm'],
  role: Pick<RoleConfig, 'model'>,
  env: NodeJS.ProcessEnv = process.env,
): ModelEndpoint | null {
  const deref = (v: string | undefined): string | undefined => {
    if (v === undefined || v.trim() === '') return undefined;
    const m = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(v.trim());
    return m ? env[m[1]!]?.trim() || undefined : v.trim();
  };
  const baseUrl = deref(role.model?.base_url) ?? llm?.baseUrl;
  if (!baseUrl) return null;
  const sameBase = !role.model?.base_url || baseUrl === llm?.baseUrl;
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: deref(role.model?.api_key) ?? (sameBase ? llm?.apiKey : undefined),
    model: deref(role.model?.model) ?? llm?.model ?? 'gpt-4o-mini',
  };
}

/** What {@link plannerForRole} needs besides the role. */
export interface PlannerChoiceDeps {
  /** `settings.llm` (LLM_BASE_URL / LLM_API_KEY / LLM_MODEL). */
  llm: Settings['llm'];
  services: Pick<SkillServices, 'db' | 'registry' | 'secretKey' | 'log'>;
  /** The role's enabled skills (roleSkills(config, role.id) ?? '*'), or a function asked every turn (lifecycle.skillsFor). */
  skills?: readonly string[] | '*' | (() => readonly string[] | '*');
  /** Options of the command planner used without a model. */
  command?: CommandPlannerOptions;
  /** Client options (timeouts, retries) for the model endpoint. */
  client?: Omit<ChatClientOptions, keyof ModelEndpoint>;
}

/**
 * The planner a role uses: the model planner when the role or `.env` names a model endpoint,
 * else the command planner. Cache the result per role (a planner holds no turn state).
 */
export function plannerForRole(role: RoleConfig, deps: PlannerChoiceDeps): Planner {
  const endpoint = endpointForRole(deps.llm, role);
  if (!endpoint) {
    const registry = deps.services.registry;
    return new CommandPlanner({
      schemaOf: (tool) => registry.resolveTool(tool)?.record.inputSchema,
      tagsOf: (tool) => registry.resolveTool(tool)?.record.frontmatter.tags ?? [],
      ...deps.command,
    });
  }
  const client = new ChatClient({ ...deps.client, ...endpoint });
  return new ModelPlanner({ client, services: deps.services, roleId: role.id, skills: deps.skills });
}

/**
 * The start-up line naming the planner: `model planner: <model> at
 * <base>` or `no LLM_BASE_URL: command planner`. Never contains the API key.
 */
export function plannerStartupLine(llm: Settings['llm'], role: Pick<RoleConfig, 'model'> = {}): string {
  const e = endpointForRole(llm, role);
  return e ? `model planner: ${e.model} at ${e.baseUrl}` : 'no LLM_BASE_URL: command planner';
}
