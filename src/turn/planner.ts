/**
 * The planner interface: a planner turns one message into tool calls
 * and, optionally, its own reply text. The command planner (offline, no model) and the model
 * planner (OpenAI-compatible tool calling) both implement it; the turn runs whichever the
 * role uses and composes the reply from what it returns.
 */
import type { ParsedCommand } from './planners/command-parse.ts';
import type { Envelope } from '../envelope/types.ts';
import type { ModelTool } from '../registry/types.ts';

/** One tool call a planner made and what the skill answered. */
export interface ToolInvocation {
  /** The tool name as the model sees it (`skill` or `skill__sub`). */
  tool: string;
  args: Record<string, unknown>;
  /** The final envelope (normalised, artifacts registered, offloaded when large). */
  envelope: Envelope;
  /** `pending_reply`: the call continued a waiting reply (a question it asks is routed back there). */
  via?: 'call' | 'pending_reply';
}

/** A material the user can refer to (`img_1`, `file_2`, …, A-10). */
export interface MaterialRef {
  ref: string;
  type: 'image' | 'video' | 'audio' | 'file';
  filename: string;
}

/** What a planner gets for one turn. */
export interface PlannerTurn {
  /** The text addressed to the bot (mention removed, trimmed). */
  text: string;
  /** {@link text} parsed once (src/turn/input.ts); planners act on it instead of parsing again. */
  input?: ParsedCommand;
  /** The verbatim platform text (R-CTX-04). */
  raw_input: string;
  lang: 'zh-CN' | 'en';
  /** The role's tool list exactly as a model sees it (README.md "The skillgate command"). */
  tools: ModelTool[];
  /** This session's materials: this turn's uploads, earlier uploads, earlier artifacts. */
  materials: MaterialRef[];
  /**
   * Run one tool through the whole pipeline (validation, context, wall, envelope, artifacts).
   * Never throws for a skill failure (that is an envelope with `success:false`).
   */
  invoke(tool: string, args: Record<string, unknown>): Promise<Envelope>;
  /** Set when the user pressed stop; a planner stops calling tools and returns what it has. */
  signal: AbortSignal;
  /** Report progress to the user (「处理中…」 status, updated). Best effort. */
  progress(note: string): void;
  /**
   * The channel's display capability (docs/results.md). `text`: display_md is not shown as
   * is, so a model planner paraphrases it. Absent = `rich`.
   */
  display?: 'rich' | 'text';
  /**
   * The channel turns an inline `/command` of a reply into a button that fills the message box
   * (`AdapterCapabilities.command_buttons`, the web page). Absent = false.
   */
  commandButtons?: boolean;
}

/** What a planner returns. */
export interface PlannerResult {
  /** The planner's own reply body, markdown ("" when the tool results speak for themselves). */
  text: string;
  invocations: ToolInvocation[];
  /**
   * True when `text` already paraphrases every `display_md` (a model did it); the reply
   * composer then does not add a plain rendering on text-only channels (docs/results.md).
   */
  paraphrased?: boolean;
}

/** A planner. `handle` never throws for a skill failure; it may throw on infrastructure errors. */
export interface Planner {
  readonly name: string;
  handle(turn: PlannerTurn): Promise<PlannerResult>;
}
