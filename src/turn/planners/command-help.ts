/**
 * The command planner's help (README.md "Start"): what this role can do, from the role's tool
 * list, as markdown in zh-CN or English. Readable for 30+ tools: grouped by a `[category]`
 * (or `【category】`) prefix of the description, one line per tool with the first line of its
 * description and one example command built from the required parameters.
 */
import type { JsonSchema, ModelTool } from '../../registry/types.ts';
import type { Lang } from '../reply/text.ts';

/** Longest description shown per tool in the list, in UTF-16 units. */
const LINE_MAX = 80;

/** `[category] rest` → category + rest; no prefix → category null. */
export function splitCategory(description: string): { category: string | null; text: string } {
  const m = /^\s*(?:\[([^\]\n]{1,30})\]|【([^】\n]{1,30})】)\s*/u.exec(description);
  if (!m) return { category: null, text: description.trim() };
  return { category: (m[1] ?? m[2])!.trim(), text: description.slice(m[0].length).trim() };
}

function firstLine(s: string): string {
  const line = (s.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim();
  return line.length > LINE_MAX ? `${line.slice(0, LINE_MAX - 1)}…` : line;
}

function props(schema: JsonSchema): Record<string, JsonSchema> {
  const p = schema.properties;
  return p && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, JsonSchema>) : {};
}

function required(schema: JsonSchema): string[] {
  const r = schema.required;
  const known = props(schema);
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string' && x in known) : [];
}

/** An example value for a property: examples / default / const / first enum value / by type. */
function exampleValue(name: string, p: JsonSchema): unknown {
  if (Array.isArray(p.examples) && p.examples.length) return p.examples[0];
  if (p.default !== undefined) return p.default;
  if (p.const !== undefined) return p.const;
  if (Array.isArray(p.enum) && p.enum.length) return p.enum[0];
  const type = Array.isArray(p.type) ? p.type[0] : p.type;
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return `<${name}>`;
  }
}

/** A value as typed in `key=value` (quoted only when the parser would not read it back as this string). */
function formatValue(v: unknown): string {
  if (typeof v !== 'string') return JSON.stringify(v) ?? 'null';
  let readsBack = /^[^\s"'“{[]+$/u.test(v);
  if (readsBack) {
    try {
      JSON.parse(v);
      readsBack = false; // would be read as a number/boolean/null
    } catch {
      /* a plain string */
    }
  }
  return readsBack ? v : JSON.stringify(v);
}

/** One example command for a tool, e.g. `/datatable action=list_tables`. */
export function exampleCommand(tool: ModelTool): string {
  const schema = tool.function.parameters ?? {};
  const p = props(schema);
  const args = required(schema).map((k) => `${k}=${formatValue(exampleValue(k, p[k] ?? {}))}`);
  return [`/${tool.function.name}`, ...args].join(' ');
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
    zh: '用法：`/技能名 key=value …` 或 `/技能名 {JSON}`；值含空格时加引号，如 `note="a b"`。`/help 技能名` 查看参数，`/stop` 停止当前任务；名称中的 `-` 可输入为 `_`。',
    en: 'Usage: `/skill key=value …` or `/skill {JSON}`; quote values with spaces, e.g. `note="a b"`. `/help skill` shows its parameters, `/stop` stops the running task; `-` in a name may be typed as `_`.',
  },
  params: { zh: '参数：', en: 'Parameters:' },
  noParams: { zh: '（无参数）', en: '(no parameters)' },
  required: { zh: '必填', en: 'required' },
  optional: { zh: '可选', en: 'optional' },
  values: { zh: '可选值：', en: 'values: ' },
  example: { zh: '示例：', en: 'Example: ' },
} as const;

function pick<T>(lang: Lang, v: { zh: T; en: T }): T {
  return lang === 'en' ? v.en : v.zh;
}

/** The help listing for a role's tools, markdown. */
export function helpText(tools: ModelTool[], lang: Lang): string {
  if (tools.length === 0) return pick(lang, TEXT.none);
  const groups = new Map<string | null, string[]>();
  for (const tool of [...tools].sort((a, b) => a.function.name.localeCompare(b.function.name))) {
    const { category, text } = splitCategory(tool.function.description ?? '');
    const line = `- ${code(exampleCommand(tool))}${text ? ` — ${firstLine(text)}` : ''}`;
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

/** Help for one tool: description, parameters (required first), an example. */
export function toolHelp(tool: ModelTool, lang: Lang): string {
  const schema = tool.function.parameters ?? {};
  const p = props(schema);
  const req = new Set(required(schema));
  const names = [...Object.keys(p)].sort((a, b) => Number(req.has(b)) - Number(req.has(a)));
  const { text } = splitCategory(tool.function.description ?? '');
  const lines = names.map((k) => {
    const prop = p[k] ?? {};
    const type = Array.isArray(prop.type) ? prop.type.join('|') : typeof prop.type === 'string' ? prop.type : '';
    const flags = [req.has(k) ? pick(lang, TEXT.required) : pick(lang, TEXT.optional), type].filter(Boolean).join(', ');
    const desc = typeof prop.description === 'string' ? firstLine(prop.description) : '';
    const values = Array.isArray(prop.enum) ? ` ${pick(lang, TEXT.values)}${prop.enum.map((v) => code(String(v))).join(' ')}` : '';
    return `- ${code(k)} (${flags})${desc ? `${lang === 'en' ? ': ' : '：'}${desc}` : ''}${values}`;
  });
  return [
    `**/${tool.function.name}**`,
    ...(text ? [text.length > 600 ? `${text.slice(0, 599)}…` : text] : []),
    `${pick(lang, TEXT.params)}\n${lines.length ? lines.join('\n') : pick(lang, TEXT.noParams)}`,
    `${pick(lang, TEXT.example)}${code(exampleCommand(tool))}`,
  ].join('\n\n');
}
