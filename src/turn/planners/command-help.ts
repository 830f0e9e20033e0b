/**
 * The command planner's help (docs/chat-authoring.md "Help"): what this role can do, from the
 * role's tool list, as markdown in zh-CN or English. `/help` lists every tool with its whole
 * one-line purpose — the sentences written for a model (`input = {"action": …}`) are left
 * out, nothing is cut — grouped by a `[category]` prefix. `/help <skill>` shows every
 * parameter with type, required, range or allowed values, the skill's actions (`x-actions` of
 * its schema.json, docs/skill-authoring.md) or sub-commands, each with a working example.
 */
import { commandLine, exampleArgs, ruleText, schemaProps, schemaRequired, typeText } from '../../present/schema-text.ts';
import type { JsonSchema, ModelTool } from '../../registry/types.ts';
import type { Lang } from '../reply/text.ts';

/** `[category] rest` → category + rest; no prefix → category null. */
export function splitCategory(description: string): { category: string | null; text: string } {
  const m = /^\s*(?:\[([^\]\n]{1,30})\]|【([^】\n]{1,30})】)\s*/u.exec(description);
  if (!m) return { category: null, text: description.trim() };
  return { category: (m[1] ?? m[2])!.trim(), text: description.slice(m[0].length).trim() };
}

/** A sentence written for a model rather than a person: JSON, code, assignments, payload plumbing. */
const MODEL_FACING_RE = /[{}`]|\binput\s*=|\bpayload\b|"\w+"\s*:|按原样传|时调用|成功判据|\bcall (this|it) when\b/iu;

/** Sentences of `s` (Chinese and Latin ends kept with the sentence). */
function sentences(s: string): string[] {
  return s
    .split(/(?<=[。！？!?；;])|(?<=\.)\s+/u)
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * The purpose of a tool or action for people: the first non-empty line of its description
 * without the sentences meant for a model; never cut inside a word.
 */
export function purposeOf(description: string): string {
  const { text } = splitCategory(description);
  const line = (text.split(/\r?\n/).find((l) => l.trim() !== '' && !l.trim().startsWith('#')) ?? '').trim();
  const all = sentences(line);
  const kept = all.filter((x) => !MODEL_FACING_RE.test(x));
  return (kept.length ? kept : all.slice(0, 1)).join(/[\u4e00-\u9fff]/u.test(line) ? '' : ' ').trim();
}

/** One example command for a tool, e.g. `/countdown seconds=1`. */
export function exampleCommand(tool: ModelTool): string {
  return commandLine(tool.function.name, exampleArgs(tool.function.parameters ?? {}));
}

function code(s: string): string {
  const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest ? `${fence} ${s} ${fence}` : `${fence}${s}${fence}`;
}

const TEXT = {
  title: { zh: (n: number) => `**可用命令**（共 ${n} 个）`, en: (n: number) => `**Available commands** (${n})` },
  none: { zh: '当前角色没有可用的技能。', en: 'No skills are available for this role.' },
  other: { zh: '其他', en: 'Other' },
  usage: {
    zh: '用法：`/技能名 key=value …` 或 `/技能名 {JSON}`；值含空格时加引号，如 `note="a b"`。`/help 技能名` 查看参数和示例，`/stop` 停止当前任务；名称中的 `-` 可输入为 `_`。',
    en: 'Usage: `/skill key=value …` or `/skill {JSON}`; quote values with spaces, e.g. `note="a b"`. `/help skill` shows its parameters and examples, `/stop` stops the running task; `-` in a name may be typed as `_`.',
  },
  params: { zh: '参数：', en: 'Parameters:' },
  noParams: { zh: '（无参数）', en: '(no parameters)' },
  required: { zh: '必填', en: 'required' },
  optional: { zh: '可选', en: 'optional' },
  example: { zh: '示例：', en: 'Example: ' },
  actions: {
    zh: (n: number) => `**操作**（共 ${n} 个，用 \`action=\` 选择）`,
    en: (n: number) => `**Actions** (${n}, chosen with \`action=\`)`,
  },
  subcommands: { zh: (n: number) => `**子命令**（共 ${n} 个）`, en: (n: number) => `**Sub-commands** (${n})` },
} as const;

function pick<T>(lang: Lang, v: { zh: T; en: T }): T {
  return lang === 'en' ? v.en : v.zh;
}

/** The help listing for a role's tools, markdown. */
export function helpText(tools: ModelTool[], lang: Lang): string {
  if (tools.length === 0) return pick(lang, TEXT.none);
  const groups = new Map<string | null, string[]>();
  for (const tool of [...tools].sort((a, b) => a.function.name.localeCompare(b.function.name))) {
    const { category } = splitCategory(tool.function.description ?? '');
    const purpose = purposeOf(tool.function.description ?? '');
    const line = `- ${code(exampleCommand(tool))}${purpose ? ` — ${purpose}` : ''}`;
    const list = groups.get(category) ?? [];
    list.push(line);
    groups.set(category, list);
  }
  const named = [...groups.keys()].filter((k): k is string => k !== null).sort((a, b) => a.localeCompare(b));
  const sections: string[] = [pick(lang, TEXT.title)(tools.length)];
  if (named.length === 0) sections.push(groups.get(null)!.join('\n'));
  else {
    for (const cat of named) sections.push(`**${cat}**\n${groups.get(cat)!.join('\n')}`);
    if (groups.has(null)) sections.push(`**${pick(lang, TEXT.other)}**\n${groups.get(null)!.join('\n')}`);
  }
  sections.push(pick(lang, TEXT.usage));
  return sections.join('\n\n');
}

/** Parameter lines of an object schema (required first), `skip` left out. */
function paramLines(schema: JsonSchema, lang: Lang, skip: ReadonlySet<string> = new Set()): string[] {
  const p = schemaProps(schema);
  const req = new Set(schemaRequired(schema));
  const names = Object.keys(p)
    .filter((k) => !skip.has(k))
    .sort((a, b) => Number(req.has(b)) - Number(req.has(a)));
  return names.map((k) => {
    const prop = p[k] ?? {};
    const flags = [req.has(k) ? pick(lang, TEXT.required) : pick(lang, TEXT.optional), typeText(prop, lang), ruleText(prop, lang)]
      .filter(Boolean)
      .join(', ');
    const desc = typeof prop.description === 'string' ? (prop.description.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim() : '';
    return `- ${code(k)} (${flags})${desc ? `${lang === 'en' ? ': ' : '：'}${desc}` : ''}`;
  });
}

function isRec(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The `<name>__<sub>` tools of a skill with sub-commands. */
export function subToolsOf(name: string, tools: readonly ModelTool[]): ModelTool[] {
  return tools.filter((t) => t.function.name.startsWith(`${name}__`));
}

/**
 * `/help <skill>` for `tool` among the role's `tools`: {@link toolHelp} with its sub-commands and,
 * when given, its full input schema (`x-actions`). Markdown.
 */
export function skillHelp(tool: ModelTool, tools: readonly ModelTool[], lang: Lang, fullSchema?: JsonSchema): string {
  return toolHelp(tool, lang, { fullSchema, subTools: subToolsOf(tool.function.name, tools) });
}

/** The `x-actions` of a full input schema: action name → its payload schema with a description. */
export function actionsOf(schema: JsonSchema | undefined): [string, JsonSchema][] {
  const a = schema?.['x-actions'];
  return isRec(a) ? Object.entries(a).filter((e): e is [string, JsonSchema] => isRec(e[1])) : [];
}

/**
 * Help for one tool: purpose, parameters, actions (from `fullSchema`'s `x-actions`) or
 * sub-commands (`subTools`: the `<skill>__<sub>` tools), each with an example.
 */
export function toolHelp(tool: ModelTool, lang: Lang, extra: { fullSchema?: JsonSchema; subTools?: ModelTool[] } = {}): string {
  const schema = tool.function.parameters ?? {};
  const name = tool.function.name;
  const purpose = purposeOf(tool.function.description ?? '');
  const actions = actionsOf(extra.fullSchema);
  const skip = new Set(actions.length ? ['action', 'payload'] : []);
  const lines = paramLines(schema, lang, skip);
  const out = [`**/${name}**`, ...(purpose ? [purpose] : [])];
  if (!actions.length || lines.length)
    out.push(`${pick(lang, TEXT.params)}\n${lines.length ? lines.join('\n') : pick(lang, TEXT.noParams)}`);
  if (actions.length) {
    out.push(pick(lang, TEXT.actions)(actions.length));
    for (const [action, s] of actions) {
      const desc = typeof s.description === 'string' ? purposeOf(s.description) : '';
      const params = paramLines(s, lang);
      out.push(
        [
          `**${action}**${desc ? ` — ${desc}` : ''}`,
          ...params,
          `${pick(lang, TEXT.example)}${code(commandLine(name, { action, ...exampleArgs(s) }))}`,
        ].join('\n'),
      );
    }
  } else if (extra.subTools?.length) {
    out.push(pick(lang, TEXT.subcommands)(extra.subTools.length));
    for (const sub of extra.subTools) {
      const desc = purposeOf(sub.function.description ?? '');
      out.push(
        [
          `**${sub.function.name}**${desc ? ` — ${desc}` : ''}`,
          ...paramLines(sub.function.parameters ?? {}, lang),
          `${pick(lang, TEXT.example)}${code(exampleCommand(sub))}`,
        ].join('\n'),
      );
    }
  } else out.push(`${pick(lang, TEXT.example)}${code(exampleCommand(tool))}`);
  return out.join('\n\n');
}
