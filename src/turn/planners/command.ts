/**
 * The command planner (README.md "Start"): no model. `/<skill> <args>` invokes the tool through
 * the whole pipeline; `/help` lists what this role can do, plain text gets the three closest
 * skills (`command-suggest.ts`). The grammar is in `command-parse.ts`, tool lookup in
 * `command-tools.ts`, help in `command-help.ts`.
 */
import type { Planner, PlannerResult, PlannerTurn } from '../planner.ts';
import type { JsonSchema, ModelTool } from '../../registry/types.ts';
import type { Lang } from '../reply/text.ts';
import { helpText, skillHelp, subToolsOf } from './command-help.ts';
import { parseCommand } from './command-parse.ts';
import { suggestQuestion, suggestText } from './command-suggest.ts';
import { lookupTool } from './command-tools.ts';

export { parseCommand, parseArgs, type ParsedCommand } from './command-parse.ts';
export { helpText, toolHelp, exampleCommand, splitCategory } from './command-help.ts';
export { lookupTool, normalizeToolName, type ToolLookup } from './command-tools.ts';

const TEXT = {
  unknown: {
    zh: (name: string) => `没有名为「${name}」的技能。`,
    en: (name: string) => `There is no skill named "${name}".`,
  },
  suggest: { zh: (l: string) => `你是不是想用：${l}？`, en: (l: string) => `Did you mean: ${l}?` },
  ambiguous: {
    zh: (l: string) => `有多个技能与之对应：${l}，请写出完整名称。`,
    en: (l: string) => `Several skills match: ${l}; type the full name.`,
  },
  seeHelp: { zh: '发送 `/help` 查看全部命令。', en: 'Send `/help` to list every command.' },
  nothingToCancel: { zh: '当前没有可以取消的操作。', en: 'There is nothing to cancel.' },
  nothingToConfirm: { zh: '当前没有等待确认的操作。', en: 'There is nothing waiting for confirmation.' },
  nothingRunning: { zh: '当前没有正在运行的任务。', en: 'Nothing is running.' },
} as const;

function pick<T>(lang: Lang, v: { zh: T; en: T }): T {
  return lang === 'en' ? v.en : v.zh;
}

function list(names: string[]): string {
  return names.map((n) => `\`/${n}\``).join(', ');
}

/** Options of {@link CommandPlanner}. */
export interface CommandPlannerOptions {
  /** The bot's username, so `/cmd@otherbot` is ignored (README.md "Start"). */
  botUsername?: string;
  /** A tool's full input schema (with `x-actions`, which the model-facing copy drops), for `/help <skill>`. */
  schemaOf?: (tool: string) => JsonSchema | undefined;
  /** A tool's tags (SKILL.md `tags`), searched for plain text besides name and purpose. */
  tagsOf?: (tool: string) => string[];
}

/** The offline planner: one command → at most one tool call. */
export class CommandPlanner implements Planner {
  readonly name = 'command';

  constructor(private readonly opts: CommandPlannerOptions = {}) {}

  private help(tool: ModelTool, tools: ModelTool[], lang: Lang): string {
    return skillHelp(tool, tools, lang, this.opts.schemaOf?.(tool.function.name));
  }

  /** Never throws for a skill failure (an envelope with `success:false` is returned as is). */
  async handle(turn: PlannerTurn): Promise<PlannerResult> {
    const lang = turn.lang;
    const parsed = turn.input && !this.opts.botUsername ? turn.input : parseCommand(turn.text, { botUsername: this.opts.botUsername });
    switch (parsed.kind) {
      case 'call': {
        const found = lookupTool(parsed.tool, turn.tools);
        if (found.kind === 'found') {
          const tool = found.tool.function.name;
          const envelope = await turn.invoke(tool, parsed.args);
          return { text: '', invocations: [{ tool, args: parsed.args, envelope }] };
        }
        const lines = [pick(lang, TEXT.unknown)(parsed.tool)];
        if (found.kind === 'ambiguous') lines.push(pick(lang, TEXT.ambiguous)(list(found.candidates)));
        else if (found.suggestions.length) lines.push(pick(lang, TEXT.suggest)(list(found.suggestions)));
        lines.push(pick(lang, TEXT.seeHelp));
        return { text: lines.join('\n\n'), invocations: [] };
      }
      case 'help': {
        if (parsed.topic) {
          const found = lookupTool(parsed.topic, turn.tools);
          if (found.kind === 'found') return { text: this.help(found.tool, turn.tools, lang), invocations: [] };
          const subs = subToolsOf(parsed.topic, turn.tools);
          if (subs.length)
            return {
              text: this.help(
                { type: 'function', function: { name: parsed.topic, description: subs[0]!.function.description, parameters: {} } },
                turn.tools,
                lang,
              ),
              invocations: [],
            };
          return { text: `${pick(lang, TEXT.unknown)(parsed.topic)}\n\n${helpText(turn.tools, lang)}`, invocations: [] };
        }
        return { text: helpText(turn.tools, lang), invocations: [] };
      }
      case 'invalid': {
        const msg = lang === 'en' ? (parsed.message_en ?? parsed.message) : parsed.message;
        const typed = /^[/／]([^\s@{/]+)/u.exec(turn.text.trim())?.[1];
        const found = typed ? lookupTool(typed, turn.tools) : null;
        const more = found?.kind === 'found' ? this.help(found.tool, turn.tools, lang) : pick(lang, TEXT.seeHelp);
        return { text: `${msg}\n\n${more}`, invocations: [] };
      }
      case 'cancel':
        return { text: pick(lang, TEXT.nothingToCancel), invocations: [] };
      case 'confirm':
        return { text: pick(lang, TEXT.nothingToConfirm), invocations: [] };
      case 'stop':
        return { text: pick(lang, TEXT.nothingRunning), invocations: [] };
      case 'none': {
        // Inline commands are buttons only where the channel makes them so (the web page).
        const question = turn.commandButtons ? null : suggestQuestion(turn.text, turn.tools, lang, this.opts.tagsOf);
        if (question) return { text: '', invocations: [{ tool: 'help', args: {}, envelope: question }] };
        return { text: suggestText(turn.text, turn.tools, lang, this.opts.tagsOf), invocations: [] };
      }
    }
  }
}
