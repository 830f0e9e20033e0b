/**
 * The environment of a skill's child process, and keeping secret values out of logs.
 *
 * Source: R-SUB-01, R-SUB-02, R-SUB-07, R-CFG-09.
 */
import { toSubprocessContext } from '../runtime/types.ts';

/** Exact variable names of the gateway's own secrets, never inherited by a skill process. */
const GATEWAY_SECRET_NAMES = new Set(['DATABASE_URL', 'TEST_DATABASE_URL', 'PGPASSWORD', 'LLM_API_KEY', 'APPRISE_API_URL']);
/** Prefixes of gateway configuration (docs/configuration.md) never inherited: skillgate and channel credentials. */
const GATEWAY_SECRET_PREFIXES = ['SKILLGATE_', 'TELEGRAM_', 'FEISHU_', 'DISCORD_', 'WECOM_', 'DINGTALK_'];
/** Suffixes that mark a gateway credential whatever its prefix. */
const GATEWAY_SECRET_SUFFIXES = ['_BOT_TOKEN', '_SECRET', '_AES_KEY', '_ENCRYPT_KEY'];

/**
 * True when the variable `name` belongs to the gateway's own secrets or configuration and
 * must not be inherited by a skill process: `SKILLGATE_*`, the channel blocks (`TELEGRAM_*`,
 * `FEISHU_*`, `DISCORD_*`, `WECOM_*`, `DINGTALK_*`), `DATABASE_URL`, `TEST_DATABASE_URL`,
 * `PGPASSWORD`, `LLM_API_KEY`, `APPRISE_API_URL`, and any `*_BOT_TOKEN`, `*_SECRET`,
 * `*_AES_KEY`, `*_ENCRYPT_KEY`. Everything else (PATH, HOME, LANG, TZ, proxies, …) is kept.
 */
export function isGatewaySecretVar(name: string): boolean {
  const upper = name.toUpperCase();
  if (GATEWAY_SECRET_NAMES.has(upper)) return true;
  if (GATEWAY_SECRET_PREFIXES.some((p) => upper.startsWith(p))) return true;
  return GATEWAY_SECRET_SUFFIXES.some((s) => upper.endsWith(s));
}

/** What goes into a skill process's environment beyond the filtered parent environment. */
export interface ChildEnvParts {
  /** The skill input; set as `SKILL_INPUT` (JSON) when given (R-SUB-01). */
  input?: Record<string, unknown>;
  /** The runtime context; set as `SKILL_CONTEXT` (JSON of `toSubprocessContext`, R-SUB-02) when given. */
  ctx?: Record<string, unknown>;
  /** The skill's secret parameters as variables (R-SUB-07, R-CFG-09). Win over inherited values. */
  secretEnv?: Record<string, string>;
  /** Further variables (e.g. PYTHONUNBUFFERED for the bridge). */
  extra?: Record<string, string>;
}

/**
 * Build a child environment: `parent` minus {@link isGatewaySecretVar} names, plus
 * `PYTHONIOENCODING=utf-8` when unset, `SKILL_INPUT`, `SKILL_CONTEXT`, `extra`, then
 * `secretEnv`. Values that are not strings are skipped.
 * @returns a fresh object suitable for `execa(..., { env, extendEnv: false })`.
 */
export function childEnv(parent: NodeJS.ProcessEnv, parts: ChildEnvParts = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(parent)) {
    if (typeof v === 'string' && !isGatewaySecretVar(k)) env[k] = v;
  }
  env.PYTHONIOENCODING ??= 'utf-8';
  if (parts.input !== undefined) env.SKILL_INPUT = JSON.stringify(parts.input);
  if (parts.ctx !== undefined) env.SKILL_CONTEXT = JSON.stringify(toSubprocessContext(parts.ctx));
  Object.assign(env, parts.extra ?? {});
  for (const [k, v] of Object.entries(parts.secretEnv ?? {})) if (typeof v === 'string') env[k] = v;
  return env;
}

/** Secret values shorter than this are only matched exactly (a 1–3 character value would match everywhere). */
export const MIN_SECRET_SUBSTRING = 4;

/**
 * A function that replaces every occurrence of the given secret values in a text by
 * `[redacted]` (values shorter than {@link MIN_SECRET_SUBSTRING} only when the whole text
 * equals them). Used on stderr lines before they are logged and on error messages.
 */
export function secretScrubber(values: Iterable<string>): (text: string) => string {
  const long = [...new Set([...values].filter((v) => v.length >= MIN_SECRET_SUBSTRING))].sort((a, b) => b.length - a.length);
  const short = new Set([...values].filter((v) => v.length > 0 && v.length < MIN_SECRET_SUBSTRING));
  if (long.length === 0 && short.size === 0) return (t) => t;
  return (text) => {
    if (short.has(text)) return '[redacted]';
    let out = text;
    for (const v of long) if (out.includes(v)) out = out.split(v).join('[redacted]');
    return out;
  };
}

/**
 * True when `text` reveals one of the secret `values`: it contains one of at least
 * {@link MIN_SECRET_SUBSTRING} characters, or equals a shorter non-empty one.
 */
export function revealsSecret(text: string, values: Iterable<string>): boolean {
  for (const v of values) {
    if (v.length === 0) continue;
    if (v.length < MIN_SECRET_SUBSTRING ? text === v : text.includes(v)) return true;
  }
  return false;
}
