/**
 * Result normalisation (R-ENTRY-04, R-OUT-01..04, R-OUT-09, D-13, A-51).
 *
 * The skill's own object is kept as it is — never re-wrapped (README.md "The skillgate command"). Only three
 * things ever change: a non-object becomes `{result: value}`, an explicit failure gets
 * `success: false`, and a failure without a usable `error` gets an informative placeholder.
 */
import type { Envelope, RawOutcome } from './types.ts';

/** Language of platform-filled texts (zh-CN default, en available). */
export type EnvelopeLang = 'zh-CN' | 'en';

/** Options of {@link normalizeEnvelope}. */
export interface NormalizeOptions {
  /** The skill's registered name; named in the D-13 placeholder. */
  skill: string;
  /** Language of the placeholder text (default `zh-CN`). */
  lang?: EnvelopeLang;
}

/**
 * True when the envelope is a failure: an explicit `success === false` **or** `ok === false`
 * (R-OUT-02; A-51: `success:true` with `ok:false` is a failure). A missing or `null`
 * success/ok is not a failure.
 */
export function isFailure(envelope: Record<string, unknown>): boolean {
  return envelope.success === false || envelope.ok === false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-blank string, or undefined. */
function nonBlank(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function describeNeedParam(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    const names = value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
    return names.length > 0 ? names.join(', ') : undefined;
  }
  return nonBlank(value);
}

/**
 * The D-13 placeholder for a failure that carries no `error`: names the skill, says that it
 * returned a failure without an error message, and repeats `user_message` / `need_param` when
 * the envelope has them, so the model has something concrete to act on.
 * @returns a non-empty string in `lang` (default zh-CN).
 */
export function failurePlaceholder(skill: string, envelope: Record<string, unknown>, lang: EnvelopeLang = 'zh-CN'): string {
  const userMessage = nonBlank(envelope.user_message);
  const needParam = describeNeedParam(envelope.need_param);
  if (lang === 'en') {
    let text = `Skill "${skill}" returned failure without an error message.`;
    if (userMessage) text += ` user_message: ${userMessage}`;
    if (needParam) text += ` need_param: ${needParam}`;
    return text;
  }
  let text = `技能「${skill}」返回了失败，但没有给出错误原因（error 为空）。`;
  if (userMessage) text += `用户提示：${userMessage}。`;
  if (needParam) text += `缺少或有误的参数：${needParam}。`;
  return text;
}

/** A failure's `error` as a non-empty string: kept when usable, stringified when not a string. */
function failureError(raw: unknown, skill: string, envelope: Record<string, unknown>, lang: EnvelopeLang): string {
  const text = nonBlank(raw);
  if (text !== undefined) return text;
  if (raw !== undefined && raw !== null && typeof raw !== 'string') {
    // e.g. `error: {code: 7, msg: "…"}` — keep its content readable instead of dropping it.
    const json = JSON.stringify(raw);
    if (json !== undefined && json !== '{}' && json !== '[]') return json;
  }
  return failurePlaceholder(skill, envelope, lang);
}

/**
 * Normalise what an executor produced into the result envelope.
 *
 * - `{kind:'returned', value}`:
 *   - a non-object (string, number, boolean, array, `null`; `undefined` counts as `null`)
 *     → `{result: value}` (R-ENTRY-04);
 *   - an object → a shallow copy with every key as the skill returned it (never re-wrapped,
 *     README.md "The skillgate command"; `data`, partial-success counts (R-OUT-11) and the recognised fields
 *     `user_message`, `error`, `need_param`, `error_type`, `non_retriable`, `redirect`,
 *     `action_note`, `display_md`, `display_only` pass through untouched, R-OUT-01/03);
 *   - an explicit `success === false` or `ok === false` is a failure: the envelope gets
 *     `success: false` (overriding a contradicting `success: true`) and a non-empty `error`
 *     (R-OUT-04: a blank error gets the D-13 placeholder; a non-string error is JSON-stringified);
 *   - a missing/null success/ok is not a failure and nothing is added (R-OUT-02).
 * - `{kind:'failed'}` (exception, non-zero exit, timeout, abort; R-OUT-09) →
 *   `{success:false, error, error_type?, non_retriable?, …details}`; `details` never override
 *   those four keys.
 *
 * Never throws.
 */
export function normalizeEnvelope(outcome: RawOutcome, opts: NormalizeOptions): Envelope {
  const lang = opts.lang ?? 'zh-CN';
  if (outcome.kind === 'failed') {
    const env: Envelope = { success: false, error: '' };
    if (outcome.error_type !== undefined) env.error_type = outcome.error_type;
    if (outcome.non_retriable !== undefined) env.non_retriable = outcome.non_retriable;
    for (const [k, v] of Object.entries(outcome.details ?? {})) {
      if (!(k in env) && k !== 'error_type' && k !== 'non_retriable') env[k] = v;
    }
    env.error = failureError(outcome.error, opts.skill, env, lang);
    return env;
  }
  const value = outcome.value;
  if (!isPlainObject(value)) return { result: value === undefined ? null : value };
  const env: Envelope = { ...value };
  if (isFailure(env)) {
    env.success = false;
    env.error = failureError(env.error, opts.skill, env, lang);
  }
  return env;
}
