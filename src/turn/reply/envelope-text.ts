/**
 * What the user reads for one envelope when no model words it, and what a model may read
 * (R-OUT-03, R-ACT-08).
 */
import type { Envelope } from '../../envelope/types.ts';
import { renderResultMd, escapeMarkdown } from './result-md.ts';
import { t, type Lang } from './text.ts';

/** R-OUT-02: `success === false` or `ok === false` is a failure; missing/null is not. */
export function isFailure(env: Envelope): boolean {
  return env.success === false || env.ok === false;
}

/** True when `s` looks like a stack trace (JS `    at …` frames, Python `Traceback`). */
export function looksLikeStack(s: string): boolean {
  return /^\s+at\s/m.test(s) || /Traceback \(most recent call last\)|^Traceback/m.test(s) || /^\s+File ".*", line \d+/m.test(s);
}

/**
 * `s` without stack traces: lines starting with whitespace + `at ` removed, and everything
 * from a line containing `Traceback` on. Trimmed.
 */
export function stripStack(s: string): string {
  const lines = s.split(/\r?\n/);
  const tb = lines.findIndex((l) => l.includes('Traceback'));
  const kept = (tb >= 0 ? lines.slice(0, tb) : lines).filter((l) => !/^\s+at\s/.test(l) && !/^\s+File ".*", line \d+/.test(l));
  return kept.join('\n').trim();
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

/**
 * The user's text for a failed envelope: `user_message` (stack lines stripped), else a
 * generic message from `need_param` / `error_type` (recoverable: 「请检查参数后重试：<first
 * line of error>」, the detail only when the error is not a stack trace; transient; config).
 * Never a stack trace, never the raw `error_type`.
 */
export function failureText(env: Envelope, lang: Lang): string {
  const um = str(env.user_message);
  if (um !== null) {
    const cleaned = stripStack(um);
    if (cleaned !== '') return cleaned;
  }
  const need = Array.isArray(env.need_param)
    ? env.need_param.filter((x) => typeof x === 'string' && x !== '')
    : str(env.need_param)
      ? [env.need_param as string]
      : [];
  if (need.length > 0) return t(lang, 'need_param') + need.map(escapeMarkdown).join(lang === 'en' ? ', ' : '、');
  if (env.error_type === 'transient') return t(lang, 'transient');
  if (env.error_type === 'config') return t(lang, 'config');
  const error = str(env.error) ?? '';
  const first = looksLikeStack(error) ? '' : (error.split(/\r?\n/)[0] ?? '').trim().slice(0, 300);
  const head = env.error_type === 'recoverable' ? t(lang, 'check_params') : t(lang, 'failed');
  return first ? `${head}${lang === 'en' ? ': ' : '：'}${escapeMarkdown(first)}` : `${head}${lang === 'en' ? '.' : '。'}`;
}

/**
 * The user's text for a successful envelope: `user_message`, else `message` / `summary` /
 * a string `result`, else a compact rendering of the result ({@link renderResultMd}), else
 * 「已完成。」.
 */
export function successText(env: Envelope, lang: Lang): string {
  for (const k of ['user_message', 'message', 'summary'] as const) {
    const s = str(env[k]);
    if (s !== null) return stripStack(s) || t(lang, 'done');
  }
  if (typeof env.result === 'string' && env.result.trim() !== '') return env.result;
  return renderResultMd(env, lang) || t(lang, 'done');
}

/**
 * The envelope's `for_user` next steps (R-ACT-08: text meant for the user,
 * never for the model): a string or an array of strings; other shapes are ignored.
 */
export function nextSteps(env: Envelope): string[] {
  const v = env.for_user;
  const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v : [];
  return list.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim());
}

/** The 「可继续的操作」 / "Next steps" list as markdown, "" when none. */
export function nextStepsMd(steps: string[], lang: Lang): string {
  if (steps.length === 0) return '';
  return `${t(lang, 'next_steps')}\n\n${steps.map((s) => `- ${s.replace(/\r?\n/g, ' ')}`).join('\n')}`;
}

/**
 * The envelope as the model planner may read it: a shallow copy without
 * `for_user` (next steps are for the user; a model would execute them as instructions) and
 * without the display fields `display_md` / `display_only` — replaced by
 * `display_shown: true` so the model knows the user already sees the block and does not
 * repeat it. Pass `keepDisplay: true` on text-only channels, where the model must paraphrase
 * `display_md` (docs/results.md): the block is then kept, `display_only` still removed.
 * Pure; the input is not modified.
 */
export function modelView(envelope: Envelope, opts: { keepDisplay?: boolean } = {}): Envelope {
  const { for_user: _forUser, display_md, display_only: _only, ...rest } = envelope;
  const out: Envelope = { ...rest };
  if (typeof display_md === 'string' && display_md !== '') {
    if (opts.keepDisplay) out.display_md = display_md;
    else out.display_shown = true;
  }
  return out;
}
