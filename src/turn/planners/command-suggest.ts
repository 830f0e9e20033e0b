/**
 * Plain text without a model (docs/chat-authoring.md "Plain text"): a short answer naming the
 * three skills closest to what was written — by name, purpose and tags, searched with
 * MiniSearch over words cut by `Intl.Segmenter` (Chinese has no spaces) — each as an example
 * command the web page offers as a button. Never the whole help list; under 300 characters
 * whatever was sent (an emoji, a 10 000-character paste).
 */
import type MiniSearch from 'minisearch';
import { miniSearchClass } from '../../config/lazy-packages.ts';
import type { Envelope } from '../../envelope/types.ts';
import type { ModelTool } from '../../registry/types.ts';
import type { Lang } from '../reply/text.ts';
import { exampleCommand, purposeOf } from './command-help.ts';

/** Longest reply, in characters. */
export const SUGGEST_MAX_CHARS = 300;
/** Most of the text searched (a long paste is cut before it is segmented). */
const QUERY_MAX_CHARS = 500;

const words = new Intl.Segmenter('zh', { granularity: 'word' });

/** Words of `s` for the index and the query: Intl.Segmenter words, lower-cased; `_`/`-` split. */
export function tokenize(s: string): string[] {
  const out: string[] = [];
  for (const seg of words.segment(s.replace(/[_-]+/g, ' '))) {
    if (seg.isWordLike) out.push(seg.segment.toLowerCase());
  }
  return out;
}

interface Doc {
  id: string;
  name: string;
  purpose: string;
  tags: string;
}

const indexes = new WeakMap<ModelTool[], MiniSearch<Doc>>();

function indexFor(tools: ModelTool[], tagsOf: (tool: string) => string[]): MiniSearch<Doc> {
  let ms = indexes.get(tools);
  if (!ms) {
    ms = new (miniSearchClass())<Doc>({
      fields: ['name', 'purpose', 'tags'],
      storeFields: [],
      tokenize,
      searchOptions: { boost: { name: 3, tags: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
    });
    ms.addAll(
      tools.map((t) => ({
        id: t.function.name,
        name: t.function.name,
        purpose: purposeOf(t.function.description ?? ''),
        tags: tagsOf(t.function.name).join(' '),
      })),
    );
    indexes.set(tools, ms);
  }
  return ms;
}

/** The names of the (at most) three tools closest to `text`, best first. */
export function closestTools(text: string, tools: ModelTool[], tagsOf: (tool: string) => string[] = () => []): string[] {
  const query = [...text].slice(0, QUERY_MAX_CHARS).join('');
  if (tokenize(query).length === 0 || tools.length === 0) return [];
  return indexFor(tools, tagsOf)
    .search(query)
    .slice(0, 3)
    .map((r) => String(r.id));
}

/** A purpose shortened to its first clause (ends at a Chinese or Latin punctuation mark). */
function shortPurpose(purpose: string): string {
  const clause = purpose.split(/[：:，,。；;（(—]/u)[0]?.trim() ?? '';
  return [...clause].length <= 24 ? clause : '';
}

const TEXT = {
  found: {
    zh: '没有接入模型时我只听得懂命令。和这句话最接近的是：',
    en: 'Without a model I only understand commands. Closest to what you wrote:',
  },
  none: { zh: '没有接入模型时我只听得懂命令。可以先试试：', en: 'Without a model I only understand commands. You could try:' },
  more: { zh: '点一下命令会填到输入框；`/help` 查看全部。', en: 'Tap a command to put it in the box; `/help` lists everything.' },
} as const;

/** Longest option label (button text and list line), in characters. */
const LABEL_MAX_CHARS = 40;

/** The suggested tool names (closest, else `help` and two others), and the answer's first line. */
function suggested(
  text: string,
  tools: ModelTool[],
  lang: Lang,
  tagsOf?: (tool: string) => string[],
): { names: string[]; byName: Map<string, ModelTool>; head: string } {
  const byName = new Map(tools.map((t) => [t.function.name, t]));
  let names = closestTools(text, tools, tagsOf);
  const head = lang === 'en' ? (names.length ? TEXT.found.en : TEXT.none.en) : names.length ? TEXT.found.zh : TEXT.none.zh;
  if (names.length === 0)
    names = ['help', ...[...byName.keys()].filter((n) => n !== 'help').sort()].filter((n) => byName.has(n)).slice(0, 3);
  return { names, byName, head };
}

/** The label of one suggested tool: its example command with a short purpose, as fits. */
function optionLabel(tool: ModelTool): string {
  const cmd = exampleCommand(tool);
  const purpose = shortPurpose(purposeOf(tool.function.description ?? ''));
  for (const l of [purpose ? `${cmd} — ${purpose}` : cmd, cmd]) if ([...l].length <= LABEL_MAX_CHARS) return l;
  return `/${tool.function.name}`;
}

/**
 * The suggestions as a question of the `help` skill (docs/messaging.md "Questions with
 * choices"): `{success:false, need_param:"skill", options:[{value:<tool>, label}], user_message}`;
 * picking option n calls `help` with `skill=<tool>`. Null when the role has no `help` skill
 * (then {@link suggestText} is the whole answer).
 */
export function suggestQuestion(text: string, tools: ModelTool[], lang: Lang, tagsOf?: (tool: string) => string[]): Envelope | null {
  const { names, byName, head } = suggested(text, tools, lang, tagsOf);
  if (!byName.has('help') || names.length === 0) return null;
  return {
    success: false,
    need_param: 'skill',
    options: names.map((n) => ({ value: n, label: optionLabel(byName.get(n)!) })),
    user_message: head,
  };
}

/** The short answer to plain text: up to three example commands with their purpose, markdown. */
export function suggestText(text: string, tools: ModelTool[], lang: Lang, tagsOf?: (tool: string) => string[]): string {
  const pick = <T>(v: { zh: T; en: T }): T => (lang === 'en' ? v.en : v.zh);
  const { names, byName, head } = suggested(text, tools, lang, tagsOf);
  const line = (n: string, withPurpose: boolean): string => {
    const tool = byName.get(n)!;
    const purpose = withPurpose ? shortPurpose(purposeOf(tool.function.description ?? '')) : '';
    return `- \`${exampleCommand(tool)}\`${purpose ? ` — ${purpose}` : ''}`;
  };
  for (const withPurpose of [true, false]) {
    const md = [head, names.map((n) => line(n, withPurpose)).join('\n'), pick(TEXT.more)].join('\n\n');
    if ([...md].length < SUGGEST_MAX_CHARS) return md;
  }
  return [head, names.map((n) => `- \`/${n}\``).join('\n'), pick(TEXT.more)].join('\n\n');
}
