/**
 * Skill parameters and secrets per role (table `skillgate.skill_config`,
 * migration 0003): saved by the operator (`skillgate config set`) or by the config-save tool
 * the model uses in chat, read before each execution and injected into the context.
 *
 * Requirement ids: R-CFG-01, R-CFG-03, R-CFG-05, R-CFG-08, R-CFG-09, R-SUB-07, A-45, A-46.
 *
 * Secrets (names matching isSecretName, R-CFG-05) are stored AES-256-GCM encrypted, bound to
 * their row (role, skill, name) as associated data. Values never reach a log line: logs name
 * the parameter under `param` and never carry a value.
 */
import { announceChange, SKILL_CONFIG_CHANNEL } from '../store/invalidated-cache.ts';
import type { Logger } from 'pino';
import { log } from '../log/logger.ts';
import { isSecretName, SECRET_SUBSTRINGS } from '../registry/secrets.ts';
import type { Queryable } from '../store/db.ts';
import { decryptSecret, encryptSecret } from './crypto.ts';
import { processSecrets } from '../log/secret-values.ts';
import { isFixedOrPlatformKey } from './keys.ts';

/** Longest accepted parameter name after normalisation (characters). */
export const MAX_CONFIG_KEY_LENGTH = 64;
/** Longest accepted value (UTF-16 code units). */
export const MAX_CONFIG_VALUE_LENGTH = 65_536;

/**
 * Normalise a parameter name (R-CFG-03): trim, strip leading dashes, turn the remaining
 * dashes into underscores — `--api-token` → `api_token`. Case is kept as written
 * (`--API-TOKEN` → `API_TOKEN`); lookups are case-sensitive. No validation (see
 * {@link configKeyProblem}).
 */
export function normalizeConfigKey(raw: string): string {
  return raw.trim().replace(/^-+/, '').replace(/-/g, '_');
}

/**
 * Why a normalised name cannot be saved, or null when it can: `invalid_key` unless it is an
 * identifier of ASCII letters, digits and `_` (≤ 64 characters, not starting with a digit —
 * names become environment variables, R-CFG-09); `reserved_key` when it collides with the
 * context's own vocabulary or starts with `_`.
 */
export function configKeyProblem(key: string): 'invalid_key' | 'reserved_key' | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || key.length > MAX_CONFIG_KEY_LENGTH) return 'invalid_key';
  if (isFixedOrPlatformKey(key)) return 'reserved_key';
  return null;
}

/** Who is saving: the model's config-save tool in a chat turn, or an operator (CLI/console). */
export type ConfigVia = 'chat' | 'operator';

/** Arguments of {@link setSkillConfig}. */
export interface SetSkillConfigArgs {
  roleId: string;
  skill: string;
  /** The name as typed; normalised by {@link normalizeConfigKey}. */
  key: string;
  value: string;
  /** This turn's raw_input; required for secrets when `via` is `chat` (R-CFG-08). */
  rawInput?: string;
  via: ConfigVia;
  /** Encrypt even when the name is not secret-named (e.g. `config set --secret`). */
  encrypt?: boolean;
  /** Language of `user_message` (default zh-CN). */
  lang?: 'zh-CN' | 'en';
  /** Secret-name substrings (default SECRET_SUBSTRINGS; D-20 makes the list configurable). */
  secretSubstrings?: readonly string[];
  /** Where to log (default the process logger). */
  logger?: Logger;
}

/** Why a save was refused. */
export type SetConfigRefusal =
  | 'invalid_target'
  | 'invalid_key'
  | 'reserved_key'
  | 'empty_value'
  | 'value_too_long'
  | 'secret_not_in_message';

/** Result of {@link setSkillConfig}: refusals are results, never throws (STYLE "results"). */
export type SetSkillConfigResult =
  | { ok: true; key: string; encrypted: boolean }
  | {
      ok: false;
      code: SetConfigRefusal;
      /** Model/operator-facing reason (English; never contains the value). */
      error: string;
      error_type: 'recoverable' | 'config';
      need_param?: string;
      /** Text for the chat user, in `lang`. */
      user_message: string;
    };

const MESSAGES: Record<SetConfigRefusal, { en: (k: string) => string; zh: (k: string) => string; type: 'recoverable' | 'config' }> = {
  invalid_target: {
    en: () => 'The role or skill name is empty.',
    zh: () => '角色或技能名为空。',
    type: 'config',
  },
  invalid_key: {
    en: (k) => `"${k}" is not a valid parameter name: use letters, digits and _ (at most ${MAX_CONFIG_KEY_LENGTH}).`,
    zh: (k) => `「${k}」不是合法的参数名：只能用字母、数字和下划线（最多 ${MAX_CONFIG_KEY_LENGTH} 个字符）。`,
    type: 'recoverable',
  },
  reserved_key: {
    en: (k) => `The parameter name "${k}" is reserved by the platform; choose another name.`,
    zh: (k) => `参数名「${k}」与平台保留字段冲突，请换一个名字。`,
    type: 'recoverable',
  },
  empty_value: {
    en: (k) => `The value for "${k}" is empty.`,
    zh: (k) => `参数「${k}」的值为空。`,
    type: 'recoverable',
  },
  value_too_long: {
    en: (k) => `The value for "${k}" is too long (at most ${MAX_CONFIG_VALUE_LENGTH} characters).`,
    zh: (k) => `参数「${k}」的值过长（最多 ${MAX_CONFIG_VALUE_LENGTH} 个字符）。`,
    type: 'recoverable',
  },
  secret_not_in_message: {
    en: (k) =>
      `For security, the credential "${k}" can only be saved from a value you type yourself in this message. Please send it in your message and try again.`,
    zh: (k) => `出于安全考虑，凭证「${k}」只能由您在本条消息中直接提供。请把它原样发在消息里后重试。`,
    type: 'recoverable',
  },
};

const ERRORS: Record<SetConfigRefusal, (k: string) => string> = {
  invalid_target: () => 'refused: role id and skill name must be non-empty',
  invalid_key: (k) => `refused: "${k}" is not a valid parameter name (letters, digits, _; at most ${MAX_CONFIG_KEY_LENGTH})`,
  reserved_key: (k) => `refused: "${k}" collides with a runtime_context key (A-45); choose another name`,
  empty_value: (k) => `refused: empty value for "${k}"`,
  value_too_long: (k) => `refused: value for "${k}" longer than ${MAX_CONFIG_VALUE_LENGTH} characters`,
  secret_not_in_message: (k) =>
    `refused: the value for secret parameter "${k}" does not appear in the user's message of this turn (R-CFG-08); ask the user to type it, never fill a credential yourself`,
};

function refuse(code: SetConfigRefusal, key: string, lang: 'zh-CN' | 'en'): SetSkillConfigResult {
  const m = MESSAGES[code];
  return {
    ok: false,
    code,
    error: ERRORS[code](key),
    error_type: m.type,
    ...(code === 'invalid_target' ? {} : { need_param: key }),
    user_message: lang === 'en' ? m.en(key) : m.zh(key),
  };
}

/** Associated data binding an encrypted value to its row. */
function rowAad(roleId: string, skill: string, key: string): string {
  return `skillgate.skill_config\u0000${roleId}\u0000${skill}\u0000${key}`;
}

/**
 * Save one parameter for (role, skill) — insert or replace (R-CFG-01).
 *
 * - The name is normalised (R-CFG-03) and must pass {@link configKeyProblem}.
 * - Secret-named (R-CFG-05) or `encrypt` values are trimmed and stored encrypted with `key32`;
 *   other values are stored as given. An empty secret is refused.
 * - `via: 'chat'` and a secret: refused unless the trimmed value is an exact substring of
 *   `rawInput` (R-CFG-08, A-46) — the model can only relay what the user typed.
 * @returns `{ok:true, key, encrypted}` or a refusal `{ok:false, code, error, error_type,
 *   need_param, user_message}`.
 * @throws the database error when the statement fails; TypeError when `key32` is not 32 bytes.
 */
export async function setSkillConfig(q: Queryable, key32: Buffer, args: SetSkillConfigArgs): Promise<SetSkillConfigResult> {
  const logger = args.logger ?? log();
  const lang = args.lang ?? 'zh-CN';
  const roleId = args.roleId.trim();
  const skill = args.skill.trim();
  const key = normalizeConfigKey(args.key);
  const outcome = (r: SetSkillConfigResult): SetSkillConfigResult => {
    if (!r.ok) logger.warn({ role_id: roleId, skill, param: key, via: args.via, reason: r.code }, 'skill parameter refused');
    return r;
  };
  if (roleId === '' || skill === '') return outcome(refuse('invalid_target', key, lang));
  const problem = configKeyProblem(key);
  if (problem) return outcome(refuse(problem, key, lang));
  const encrypted = args.encrypt === true || isSecretName(key, args.secretSubstrings ?? SECRET_SUBSTRINGS);
  const value = encrypted ? args.value.trim() : args.value;
  if (encrypted && value === '') return outcome(refuse('empty_value', key, lang));
  if (value.length > MAX_CONFIG_VALUE_LENGTH) return outcome(refuse('value_too_long', key, lang));
  if (encrypted && args.via === 'chat' && !(args.rawInput ?? '').includes(value)) {
    return outcome(refuse('secret_not_in_message', key, lang));
  }
  const stored = encrypted ? encryptSecret(key32, value, rowAad(roleId, skill, key)) : value;
  await q.query(
    `INSERT INTO skillgate.skill_config (role_id, skill, key, value, encrypted, updated_at)
     VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (role_id, skill, key)
     DO UPDATE SET value = EXCLUDED.value, encrypted = EXCLUDED.encrypted, updated_at = now()`,
    [roleId, skill, key, stored, encrypted],
  );
  await announceChange(q, SKILL_CONFIG_CHANNEL);
  logger.info({ role_id: roleId, skill, param: key, encrypted, via: args.via }, 'skill parameter saved');
  return { ok: true, key, encrypted };
}

/** One stored parameter without its secret: for listings (`config get`, console). */
export interface SkillConfigEntry {
  key: string;
  encrypted: boolean;
  /** The plain value; null for an encrypted one (never decrypted for a listing). */
  value: string | null;
  updated_at: Date;
}

interface Row {
  key: string;
  value: string;
  encrypted: boolean;
  updated_at: Date;
}

async function rows(q: Queryable, roleId: string, skill: string): Promise<Row[]> {
  const r = await q.query<Row>(
    `SELECT key, value, encrypted, updated_at FROM skillgate.skill_config
      WHERE role_id = $1 AND skill = $2 ORDER BY key`,
    [roleId.trim(), skill.trim()],
  );
  return r.rows;
}

/**
 * The parameters of (role, skill), decrypted, names normalised (R-CFG-01, R-CFG-03) — what
 * the executor injects (R-CFG-02) and call_skill re-reads for a callee (R-CALL-05).
 * Another role's values are never visible.
 * @throws SecretDecryptError when a secret does not decrypt with `key32` (wrong key, a
 *   value moved from another row, tampering) — never garbage; the database error otherwise.
 */
export async function getSkillConfig(
  q: Queryable,
  key32: Buffer,
  roleId: string,
  skill: string,
  opts: { logger?: Logger } = {},
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const found = await rows(q, roleId, skill);
  for (const r of found) {
    const name = normalizeConfigKey(r.key);
    if (name === '__proto__') continue;
    out[name] = r.encrypted ? decryptSecret(key32, r.value, rowAad(roleId.trim(), skill.trim(), r.key)) : r.value;
    if (r.encrypted) processSecrets().add(out[name]); // scrubbed by value wherever text leaves
  }
  (opts.logger ?? log()).debug(
    { role_id: roleId, skill, params: found.map((r) => r.key), encrypted_count: found.filter((r) => r.encrypted).length },
    'skill parameters read',
  );
  return out;
}

/** The parameters of (role, skill) for display: secrets not decrypted (`value: null`). */
export async function listSkillConfig(q: Queryable, roleId: string, skill: string): Promise<SkillConfigEntry[]> {
  return (await rows(q, roleId, skill)).map((r) => ({
    key: r.key,
    encrypted: r.encrypted,
    value: r.encrypted ? null : r.value,
    updated_at: r.updated_at,
  }));
}

/**
 * Delete one parameter (name normalised) or, without `key`, every parameter of (role, skill).
 * @returns the number of rows deleted.
 */
export async function deleteSkillConfig(q: Queryable, roleId: string, skill: string, key?: string): Promise<number> {
  const r =
    key === undefined
      ? await q.query('DELETE FROM skillgate.skill_config WHERE role_id = $1 AND skill = $2', [roleId.trim(), skill.trim()])
      : await q.query('DELETE FROM skillgate.skill_config WHERE role_id = $1 AND skill = $2 AND key = $3', [
          roleId.trim(),
          skill.trim(),
          normalizeConfigKey(key),
        ]);
  if (r.rowCount > 0) await announceChange(q, SKILL_CONFIG_CHANNEL);
  return r.rowCount;
}

/**
 * Environment variables carrying a skill's credentials into a subprocess (R-SUB-07,
 * R-CFG-09): each secret-named value (isSecretName, or named in `extraSecretKeys`) under its
 * own name AND its upper-case form — `api_token` → `api_token` and `API_TOKEN` — so a
 * program reads `$API_TOKEN` as conventional. Names that are not valid environment names
 * and values holding a NUL character are left out. Non-secret parameters are not exported
 * (they reach the skill through SKILL_CONTEXT).
 */
export function secretEnvFor(values: Record<string, string>, extraSecretKeys: Iterable<string> = []): Record<string, string> {
  const extra = new Set(extraSecretKeys);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if (!(isSecretName(k) || extra.has(k))) continue;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== 'string' || v.includes('\u0000')) continue;
    env[k] = v;
    env[k.toUpperCase()] = v;
  }
  return env;
}
