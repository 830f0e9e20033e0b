/**
 * The model planner's system prompts and the user-facing texts it writes itself (zh-CN
 * default, English available). Prompts are English (models follow them best); the model is
 * told which language to answer in.
 *
 * Covers: materials `img_1` …; secrets (R-CFG-06/08/10); user_message / error / need_param;
 * display_md (D-22, docs/results.md); offload receipts (R-OFF-02/05); `for_user` is never shown
 * to the model (R-ACT-08).
 */
import type { MaterialRef } from '../../planner.ts';
import type { KnowledgeHit } from './knowledge.ts';

type Lang = 'zh-CN' | 'en';

/** Options of {@link mainSystemPrompt}. */
export interface MainPromptArgs {
  lang: Lang;
  /** True on a text-only channel: display_md must be paraphrased (docs/results.md). */
  textOnly: boolean;
  materials: MaterialRef[];
  knowledge: KnowledgeHit[];
  /** Now, for the model's sense of date (ISO string). */
  now: string;
}

const LANGUAGE: Record<Lang, string> = {
  'zh-CN': 'Answer the user in Simplified Chinese (zh-CN).',
  en: 'Answer the user in English.',
};

/** The material list (`img_1`, `file_1`, …) as prompt lines; "" when none. */
export function materialLines(materials: MaterialRef[]): string {
  if (materials.length === 0) return '';
  const lines = materials.map((m) => `- ${m.ref}: ${m.type}, "${m.filename}"`);
  return [
    'Materials in this conversation (files the user sent and files produced earlier). To give one to a tool, pass its ref (e.g. "img_1") as the value of the file parameter:',
    ...lines,
  ].join('\n');
}

/** Knowledge passages as a prompt section; "" when none. */
export function knowledgeSection(hits: KnowledgeHit[]): string {
  if (hits.length === 0) return '';
  const parts = hits.map((h) => `[${h.skill}]\n${h.text}`);
  return [
    'Reference knowledge that may help with this message (from knowledge skills; use it when relevant, cite nothing else as fact):',
    ...parts,
  ].join('\n\n');
}

/** The main conversation's system prompt. */
export function mainSystemPrompt(a: MainPromptArgs): string {
  const display = a.textOnly
    ? 'This chat cannot show formatted blocks. When a tool result contains `display_md`, the user does NOT see it: restate its content in your answer faithfully — every number, name and list item, unchanged — as plain sentences or simple lines.'
    : 'When a tool result says `display_shown: true`, its formatted block is already shown to the user below your answer: do not repeat its content; add only what helps (a short lead-in or explanation).';
  return [
    `You are skillgate, an assistant in a chat that carries out the user's requests with the tools provided. Current time: ${a.now}. ${LANGUAGE[a.lang]}`,
    [
      'Rules:',
      "- Call a tool only when it serves the request; fill its arguments from the user's words. When you have what you need, answer without calling more tools.",
      `- ${display}`,
      '- A failed tool result has `success: false`; `user_message` may be relayed to the user as is, `error` explains the cause to you, `need_param` names a missing or wrong parameter. Fix the arguments and retry only when the error says how; never retry the same call unchanged.',
      '- When a result has `needs_config` (or `error_type: "config"` with `need_param`), tell the user exactly which parameter is missing and that they can send its value in a message.',
      '- Credentials (keys, tokens, secrets, passwords) are never tool arguments: the platform fills them. Never invent, guess or repeat a credential. `save_skill_config` saves a credential only when the user typed its value in this very message.',
      '- A result with `offloaded: true` is a receipt: the full data is in a file. Read it with `file_read` (path = `offload_path`), page by page, only as far as the answer needs.',
    ].join('\n'),
    materialLines(a.materials),
    knowledgeSection(a.knowledge),
  ]
    .filter((s) => s !== '')
    .join('\n\n');
}

/** The system prompt of a `skill_md` sub-agent (R-FORM-03, R-LOAD-11). */
export function subAgentSystemPrompt(args: {
  skill: string;
  instructions: string;
  truncated: boolean;
  lang: Lang;
  now: string;
  materials: MaterialRef[];
}): string {
  return [
    `You carry out the skill "${args.skill}" for one request, following its instructions below. Current time: ${args.now}. Write your final answer for the user (${args.lang === 'en' ? 'English' : 'Simplified Chinese'}); it becomes the skill's result.`,
    'Use `read_skill_file` to read files of this skill (for example `references/…`) when the instructions say so. Use the other tools only as the instructions require. Credentials are filled by the platform; never ask for or invent one.',
    materialLines(args.materials),
    `--- SKILL.md of ${args.skill}${args.truncated ? ' (head only; the rest was cut)' : ''} ---\n${args.instructions}\n--- end of SKILL.md ---`,
  ]
    .filter((s) => s !== '')
    .join('\n\n');
}

/** The wrap-up instruction after the budget stopped the turn (R-OUT-07/08). */
export function wrapUpInstruction(reason: 'failures' | 'loop' | 'steps'): string {
  const why =
    reason === 'loop'
      ? 'The same tool call was repeated three times; it will not be run again.'
      : reason === 'failures'
        ? 'Too many tool calls failed in this turn; no more tools will be run.'
        : 'The step limit of this turn is reached; no more tools will be run.';
  return `${why} Now answer the user without calling tools: say briefly what was done, what did not work and what they can do next.`;
}

const TEXTS = {
  stopped_failures: {
    zh: (n: number) => `本轮已有 ${n} 次调用失败，先到这里。`,
    en: (n: number) => `${n} calls failed in this turn, so I stopped here.`,
  },
  stopped_loop: {
    zh: () => '同一个操作被重复了三次，已停止重复调用。',
    en: () => 'The same operation was repeated three times, so I stopped repeating it.',
  },
  stopped_steps: {
    zh: () => '这轮的步骤太多，先到这里。',
    en: () => 'This turn took too many steps, so I stopped here.',
  },
  failed_list: {
    zh: (names: string) => `未成功的技能：${names}。`,
    en: (names: string) => `Skills that did not succeed: ${names}.`,
  },
  model_unavailable: {
    zh: () => '模型服务暂时不可用，请稍后再试。也可以直接用命令调用技能（发送 /help 查看）。',
    en: () =>
      'The model service is unavailable right now; please try again later. You can also call skills directly with commands (send /help).',
  },
  empty_answer: {
    zh: () => '抱歉，这次没有得到回答，请换个说法再试。',
    en: () => 'Sorry, no answer came back this time; please rephrase and try again.',
  },
  needs_config: {
    zh: (skill: string, names: string) => `技能「${skill}」还缺少配置：${names}。请在消息里直接发送对应的值。`,
    en: (skill: string, names: string) => `The skill "${skill}" is missing configuration: ${names}. Please send the value in a message.`,
  },
} as const;

/** A user-facing text of the model planner in `lang`. */
export function plannerText<K extends keyof typeof TEXTS>(lang: Lang, key: K, ...args: Parameters<(typeof TEXTS)[K]['zh']>): string {
  const fn = (lang === 'en' ? TEXTS[key].en : TEXTS[key].zh) as (...a: unknown[]) => string;
  return fn(...args);
}
