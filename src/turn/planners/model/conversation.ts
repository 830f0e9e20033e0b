/**
 * The tool-calling loop shared by the main conversation and `skill_md` sub-agents: ask the
 * model, run the tool calls it makes (through the turn's pipeline, the local tools, or a
 * sub-agent), feed the results back as the model view of the envelope (no
 * `for_user`; §6.4: offload receipts, not the data), until the model answers in text or the
 * failure budget stops the turn (R-OUT-05..08).
 */
import type { Envelope } from '../../../envelope/types.ts';
import type { Logger } from '../../../log/logger.ts';
import type { Registry } from '../../../registry/discover.ts';
import type { Queryable } from '../../../store/db.ts';
import type { PlannerTurn, ToolInvocation } from '../../planner.ts';
import { modelView } from '../../reply/envelope-text.ts';
import type { FailureBudget } from './budget.ts';
import type { ChatMessage, ChatReply, ChatRequest, ChatTool, ChatToolCall } from './client.ts';
import { FILE_READ, fileRead, SAVE_SKILL_CONFIG, saveSkillConfig } from './local-tools.ts';
import { wrapUpInstruction } from './prompt.ts';

/** The model endpoint as the loop uses it (ChatClient, or a test double). */
export interface ChatLike {
  readonly model: string;
  chat(req: ChatRequest): Promise<ChatReply>;
}

/** Everything one turn's conversations share. */
export interface TurnRun {
  turn: PlannerTurn;
  client: ChatLike;
  budget: FailureBudget;
  /** Every tool call run in the turn (main and sub-agents), in order. */
  invocations: ToolInvocation[];
  /** Files `file_read` may read: receipt `offload_path` / `offload_file` → absolute path. */
  readable: Map<string, string>;
  /** Text-only channel: display_md stays in the model view, to be paraphrased. */
  textOnly: boolean;
  registry: Registry;
  db: Queryable;
  secretKey: Buffer;
  roleId: string;
  log: Logger;
  /** Clock (prompt dates). */
  now: () => Date;
  /** Model calls (with tools) allowed per conversation before a forced wrap-up. */
  maxSteps: number;
  /** Runs a `skill_md` skill as a sub-agent (set by the planner; see sub-agent.ts). */
  runDocumentSkill(run: TurnRun, tool: string, args: Record<string, unknown>, depth: number): Promise<Envelope>;
}

/** A tool served by the loop itself for one conversation (e.g. read_skill_file). */
export type LocalHandler = (args: Record<string, unknown>) => Promise<Envelope>;

/** One conversation. */
export interface ConversationSpec {
  messages: ChatMessage[];
  tools: ChatTool[];
  /** Extra local tools of this conversation, by name (besides file_read / save_skill_config). */
  local?: Map<string, LocalHandler>;
  /** 0 for the main conversation, 1 inside a sub-agent. */
  depth: number;
}

/** How a conversation ended. */
export interface ConversationEnd {
  text: string;
  /** Set when the loop stopped early (budget, step limit, stop button). */
  stop?: 'failures' | 'loop' | 'steps' | 'aborted';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for a failure envelope (R-OUT-02). */
function failed(env: Envelope): boolean {
  return env.success === false || env.ok === false;
}

/** The skill a tool name belongs to (a fan-out `<skill>__<sub>` → `<skill>`); local tools are their own. */
export function skillOf(registry: Registry, tool: string): string {
  return registry.resolveTool(tool)?.record.name ?? tool;
}

/** Register the offload file of a receipt so `file_read` may read it. */
function rememberOffload(run: TurnRun, env: Envelope): void {
  if (env.offloaded !== true) return;
  const p = env.offload_path;
  if (typeof p !== 'string' || p === '') return;
  run.readable.set(p, p);
  if (typeof env.offload_file === 'string' && env.offload_file !== '') run.readable.set(env.offload_file, p);
}

/**
 * Longest tool message, characters. Large successes are offloaded before this (R-OFF-01);
 * failures are never offloaded (R-OFF-04), so a huge failure is cut here.
 */
export const TOOL_CONTENT_MAX = 24_000;

/** What the model reads for a result: {@link modelView}, as JSON (cut at {@link TOOL_CONTENT_MAX}). */
function toolContent(run: TurnRun, env: Envelope): string {
  const json = JSON.stringify(modelView(env, { keepDisplay: run.textOnly }));
  return json.length <= TOOL_CONTENT_MAX ? json : `${json.slice(0, TOOL_CONTENT_MAX)}… (cut: ${json.length} characters in full)`;
}

/** Run one tool call; returns the envelope for the model and whether the turn must stop. */
async function runCall(
  run: TurnRun,
  spec: ConversationSpec,
  call: ChatToolCall,
  allowed: ReadonlySet<string>,
): Promise<{ env: Envelope; stop?: 'loop' }> {
  const name = call.function.name;
  let args: Record<string, unknown>;
  try {
    const parsed: unknown = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
    if (!isRecord(parsed)) throw new Error('not an object');
    args = parsed;
  } catch {
    const env: Envelope = {
      success: false,
      error: `the arguments of ${name} are not a JSON object; send them as one`,
      error_type: 'recoverable',
    };
    run.budget.failed(skillOf(run.registry, name), false);
    return { env };
  }
  if (!allowed.has(name)) {
    const env: Envelope = {
      success: false,
      error: `there is no tool named "${name}"; use one of the tools provided`,
      error_type: 'recoverable',
    };
    run.budget.failed(name, false);
    return { env };
  }
  const skill = skillOf(run.registry, name);
  const verdict = run.budget.admit(skill, name, args);
  if (verdict === 'banned') {
    const why = run.budget.banReason(skill) === 'non_retriable' ? 'it answered non_retriable' : 'it failed twice in a row';
    return {
      env: {
        success: false,
        error: `"${skill}" is blocked for the rest of this turn (${why}); do not call it again`,
        error_type: 'config',
        non_retriable: true,
      },
    };
  }
  if (verdict === 'loop') {
    return {
      env: { success: false, error: `this exact call of ${name} was already made twice; it was not run again`, error_type: 'recoverable' },
      stop: 'loop',
    };
  }

  let env: Envelope;
  const local = spec.local?.get(name);
  if (local) env = await local(args);
  else if (name === FILE_READ) env = await fileRead(args, run.readable);
  else if (name === SAVE_SKILL_CONFIG) {
    env = await saveSkillConfig(args, {
      db: run.db,
      secretKey: run.secretKey,
      registry: run.registry,
      roleId: run.roleId,
      roleSkills: new Set(run.turn.tools.map((t) => skillOf(run.registry, t.function.name))),
      rawInput: run.turn.raw_input,
      lang: run.turn.lang,
      log: run.log,
    });
  } else {
    const record = run.registry.resolveTool(name)?.record;
    run.turn.progress(run.turn.lang === 'en' ? `Running ${name}…` : `正在执行 ${name}…`);
    env =
      record?.skillType === 'skill_md' ? await run.runDocumentSkill(run, name, args, spec.depth + 1) : await run.turn.invoke(name, args);
    run.invocations.push({ tool: name, args, envelope: env });
  }
  if (failed(env)) run.budget.failed(skill, env.non_retriable === true);
  else run.budget.succeeded(skill);
  rememberOffload(run, env);
  return { env };
}

/**
 * Run a conversation to its end. Never throws for a skill failure; a failed model call throws
 * (ModelCallError) for the caller to turn into a message.
 */
export async function converse(run: TurnRun, spec: ConversationSpec): Promise<ConversationEnd> {
  const messages = spec.messages;
  const allowed = new Set(spec.tools.map((t) => t.function.name));
  const signal = run.turn.signal;
  for (let step = 0; ; step++) {
    if (signal.aborted) return { text: '', stop: 'aborted' };
    if (run.budget.stopped) return { text: '', stop: run.budget.stopped };
    if (step >= run.maxSteps) return { text: '', stop: 'steps' };
    const reply = await run.client.chat({ messages, tools: spec.tools, signal });
    if (reply.tool_calls.length === 0) return { text: reply.content.trim() };
    messages.push({ role: 'assistant', content: reply.content === '' ? null : reply.content, tool_calls: reply.tool_calls });
    let stopNow: 'loop' | undefined;
    for (const call of reply.tool_calls) {
      if (stopNow || run.budget.stopped || signal.aborted) {
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: JSON.stringify({ success: false, error: 'not run: the turn is ending' }),
        });
        continue;
      }
      const { env, stop } = await runCall(run, spec, call, allowed);
      if (stop) stopNow = stop;
      messages.push({ role: 'tool', tool_call_id: call.id, content: toolContent(run, env) });
    }
  }
}

/**
 * The forced final answer after an early stop (R-OUT-07/08): one more model call that may not
 * use tools. Returns "" when it fails (the caller adds the platform's own summary anyway).
 */
export async function wrapUp(run: TurnRun, spec: ConversationSpec, reason: 'failures' | 'loop' | 'steps'): Promise<string> {
  if (run.turn.signal.aborted) return '';
  const messages: ChatMessage[] = [...spec.messages, { role: 'user', content: wrapUpInstruction(reason) }];
  try {
    const reply = await run.client.chat({ messages, tools: spec.tools, tool_choice: 'none', signal: run.turn.signal });
    return reply.content.trim();
  } catch (err) {
    run.log.warn({ err: (err as Error).message }, 'model wrap-up call failed');
    return '';
  }
}
