/**
 * Questions with choices (docs/messaging.md "Questions with choices"; docs/skill-authoring.md):
 * a skill that cannot tell which of several things the person means answers
 * `{success:false, need_param:"<param>", options:[…], user_message:"<the question>"}` instead of
 * guessing. The gateway shows the options as buttons on channels that have them and show
 * markdown, as a numbered list on text channels; the pick re-invokes the same call with the
 * chosen value as `<param>` (src/turn/choice-flow.ts).
 */
import type { OutboundConfirm } from '../../channel/types.ts';
import type { Envelope } from '../../envelope/types.ts';
import { stripStack } from './envelope-text.ts';
import { escapeMarkdown } from './result-md.ts';
import type { Lang } from './text.ts';

/** Most options a question may offer (a longer list is not a question; it is shown as text). */
export const MAX_OPTIONS = 10;

/** One option: the value given as the parameter, and what the person reads. */
export interface ChoiceOption {
  value: string;
  label: string;
}

/** A question an envelope asks. */
export interface Question {
  param: string;
  /** The question, markdown (the envelope's `user_message`, else a generic one). */
  prompt_md: string;
  options: ChoiceOption[];
}

function optionOf(v: unknown): ChoiceOption | null {
  if (typeof v === 'string' || typeof v === 'number') {
    const s = String(v).trim();
    return s ? { value: s, label: s } : null;
  }
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const raw = o.value ?? o.id;
  const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
  if (!value) return null;
  const label = typeof o.label === 'string' && o.label.trim() ? o.label.trim() : value;
  return { value, label };
}

/**
 * The question of an envelope: a failure with one string `need_param` and an `options` list of
 * 1..{@link MAX_OPTIONS} strings or `{value, label?}` objects with distinct values; else null.
 */
export function questionOf(env: Envelope, lang: Lang = 'zh-CN'): Question | null {
  if (env.success !== false && env.ok !== false) return null;
  const param = typeof env.need_param === 'string' ? env.need_param.trim() : '';
  if (!param || !Array.isArray(env.options) || env.options.length === 0 || env.options.length > MAX_OPTIONS) return null;
  const options: ChoiceOption[] = [];
  for (const raw of env.options) {
    const o = optionOf(raw);
    if (!o || options.some((x) => x.value === o.value)) return null;
    options.push(o);
  }
  const um = typeof env.user_message === 'string' ? stripStack(env.user_message) : '';
  const prompt_md = um || (lang === 'en' ? `Which ${escapeMarkdown(param)}?` : `请选择 ${escapeMarkdown(param)}：`);
  return { param, prompt_md, options };
}

/** The buttons of a question: option ids `1`…`n`, the numbers a text reply may use too. */
export function choiceButtons(q: Question, token: string, expiresAt: Date): OutboundConfirm {
  return {
    kind: 'choice',
    token,
    prompt_md: q.prompt_md,
    options: q.options.map((o, i) => ({ id: String(i + 1), label: o.label, style: 'secondary' as const })),
    expires_at: expiresAt.toISOString(),
  };
}

/** The question as text: the prompt, the numbered options, how to answer. */
export function choiceListMd(q: Question, lang: Lang): string {
  const lines = q.options.map((o, i) => `${i + 1}. ${escapeMarkdown(o.label)}`);
  const how = lang === 'en' ? 'Reply with the number of your choice.' : '回复序号即可选择。';
  return [q.prompt_md, '', ...lines, '', how].join('\n');
}

/**
 * Which option a text reply picks: its number (`2`, `2.`, `第2个`, full-width digits), or its
 * value or label written out (case and width ignored). Null when it picks none.
 */
export function matchChoice(options: readonly ChoiceOption[], text: string): number | null {
  const s = text.normalize('NFKC').trim();
  const m = /^(?:第\s*)?(\d{1,2})\s*(?:个|项|张|号)?\s*[.、)）]?$/.exec(s);
  if (m) {
    const n = Number(m[1]);
    return n >= 1 && n <= options.length ? n - 1 : null;
  }
  const low = s.toLowerCase();
  if (low === '') return null;
  const i = options.findIndex((o) => o.value.normalize('NFKC').toLowerCase() === low || o.label.normalize('NFKC').toLowerCase() === low);
  return i >= 0 ? i : null;
}

/**
 * How a reply shows an invocation's question, when it asks one the turn remembered: buttons
 * (the prompt travels with them) on channels that have buttons and show markdown, else the
 * numbered list as text. Null when the invocation asks nothing.
 */
export function questionPart(
  inv: { envelope: Envelope },
  asked: { token: string; expiresAt: Date } | undefined,
  caps: { display: 'rich' | 'text'; buttons: boolean },
  lang: Lang,
): { md: string; buttons: OutboundConfirm | null } | null {
  if (!asked) return null;
  const q = questionOf(inv.envelope, lang);
  if (!q) return null;
  if (caps.buttons && caps.display === 'rich') return { md: '', buttons: choiceButtons(q, asked.token, asked.expiresAt) };
  return { md: choiceListMd(q, lang), buttons: null };
}
