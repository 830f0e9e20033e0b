/**
 * What one audit row says about a skill call , built without ever keeping a
 * secret value:
 *
 * - parameters are reduced to a keyed hash (HMAC-SHA256, key derived from the gateway's
 *   secret key, so low-entropy values such as a phone number cannot be guessed back from the
 *   hash) of the canonical JSON of the parameters **without** secret ones: the schema's
 *   secret parameters (`x-secret`, or a name the secret rule matches — docs/skill-authoring.md,
 *   R-CFG-05), every key at any depth whose name the secret rule matches, and the confirm
 *   token (TOKEN_PARAM_KEYS);
 * - the only parameter summary kept is the list of schema-declared, non-secret top-level
 *   parameter NAMES present (names come from the skill author, never from the caller);
 * - a confirm token is kept as its SHA-256 (the digest `skillgate.confirm_tokens` stores).
 */
import { createHash, createHmac } from 'node:crypto';
import type { RunSkillRequest } from '../executor/skill-call.ts';
import { sessionIdOf } from '../executor/request.ts';
import { resolveSubcommandInput } from '../executor/validate.ts';
import type { Registry } from '../registry/discover.ts';
import { isSecretName, secretParamsOf } from '../registry/secrets.ts';
import { SUBCOMMAND_KEY } from '../registry/subcommands.ts';
import type { JsonSchema, SkillRecord } from '../registry/types.ts';
import { canonicalJson, TOKEN_PARAM_KEYS } from '../turn/confirm-tokens.ts';

/** One row of `skillgate.audit_log` (migration 0013). */
export interface AuditEntry {
  /** When the call started (the request's clock, else the system clock). */
  at: Date;
  orgId: string;
  roleId: string;
  channel: string;
  /** The run line: chat | cli | chain | schedule | async. */
  line: string;
  sessionId: string;
  actorEmpNo: string;
  actorName: string;
  /** Registered skill name, or the name asked for when it did not resolve. */
  skill: string;
  /** Sub-command or the input's `action` ('' when none). */
  action: string;
  /** Hex HMAC-SHA256 of the non-secret parameters ({@link paramsHash}). */
  paramsHash: string;
  /** Schema-declared, non-secret top-level parameter names present, sorted. */
  paramKeys: string[];
  success: boolean;
  /** The envelope's `error_type` on failure ('error' when it has none, 'exception' when the pipeline threw); null on success. */
  errorType: string | null;
  /** Wall-clock duration of the call, milliseconds (integer). */
  durationMs: number;
  /** Hex SHA-256 of the presented confirm token, or null. */
  confirmTokenHash: string | null;
}

/** How a call ended, as the audit hook saw it. */
export type AuditOutcome = { envelope: Record<string, unknown> } | { thrown: true };

/**
 * The action value kept from an input's `action`: a short identifier or word in any script
 * (`delete_by`, 「登记费用」); a token or free text would rarely look like one.
 */
const ACTION_RE = /^[\p{L}][\p{L}\p{N}_-]{0,39}$/u;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/**
 * A copy of `value` without secret keys: at the top level the names in `secretNames`, at
 * every depth any key the secret name rule matches ({@link isSecretName}) and the token keys.
 */
export function withoutSecrets(value: unknown, secretNames: ReadonlySet<string> = new Set(), depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, secretNames, depth + 1));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (depth === 0 && secretNames.has(k)) continue;
    if (TOKEN_PARAM_KEYS.includes(k) || isSecretName(k)) continue;
    out[k] = withoutSecrets(v, secretNames, depth + 1);
  }
  return out;
}

/** The HMAC key of parameter hashes, derived from the gateway's 32-byte secret key. */
function auditKey(secretKey: Buffer): Buffer {
  let key = derivedKeys.get(secretKey);
  if (!key) {
    key = createHmac('sha256', secretKey).update('skillgate audit params v1').digest();
    derivedKeys.set(secretKey, key);
  }
  return key;
}

/** Derived keys per secret-key buffer (one per process in practice). */
const derivedKeys = new WeakMap<Buffer, Buffer>();

/** Recent hashes per audit key: calls repeat the same arguments (`{}` for a bare command). */
const recentHashes = new WeakMap<Buffer, Map<string, string>>();
const RECENT_HASHES = 256;

/** Hex HMAC-SHA256 of the canonical JSON of `params` (already without secrets). */
export function paramsHash(secretKey: Buffer, params: unknown): string {
  const key = auditKey(secretKey);
  const json = canonicalJson(params);
  let recent = recentHashes.get(key);
  if (!recent) recentHashes.set(key, (recent = new Map()));
  const known = json.length <= 512 ? recent.get(json) : undefined;
  if (known !== undefined) return known;
  const hash = createHmac('sha256', key).update(json).digest('hex');
  if (json.length <= 512) {
    if (recent.size >= RECENT_HASHES) recent.delete(recent.keys().next().value as string);
    recent.set(json, hash);
  }
  return hash;
}

/** Hex SHA-256 of a confirm token (as `skillgate.confirm_tokens.token_hash`). */
export function confirmTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What the registry says about the call's target: record, schema, sub-command. */
function resolveTarget(
  registry: Registry,
  target: string | SkillRecord,
  input: Record<string, unknown>,
): { skill: string; schema: JsonSchema | null; subcommand?: string } {
  const toolName = typeof target === 'string' ? target : target.name;
  const record = typeof target === 'string' ? registry.resolveTool(target)?.record : target;
  if (!record) return { skill: toolName, schema: null };
  try {
    const r = resolveSubcommandInput(record, toolName, input);
    return { skill: record.name, schema: r.schema, subcommand: r.subcommand };
  } catch {
    return { skill: record.name, schema: record.inputSchema };
  }
}

function actionOf(input: Record<string, unknown>, subcommand: string | undefined): string {
  if (subcommand) return subcommand;
  for (const key of [SUBCOMMAND_KEY, 'action']) {
    const v = input[key];
    if (typeof v === 'string' && ACTION_RE.test(v)) return v;
  }
  // A continuation call (a pending reply) carries the action it continues in `state`.
  const state = input.state;
  if (isRecord(state) && typeof state.action === 'string' && ACTION_RE.test(state.action)) return state.action;
  return '';
}

/**
 * Build the audit row of one finished call from the request as the caller made it (before
 * the pipeline injected stored secrets). Pure apart from hashing; never throws for odd input.
 */
export function buildAuditEntry(
  deps: { registry: Registry; secretKey: Buffer },
  req: RunSkillRequest,
  outcome: AuditOutcome,
  timing: { at: Date; durationMs: number },
): AuditEntry {
  const input = isRecord(req.input) ? req.input : {};
  const target = resolveTarget(deps.registry, req.skill, input);
  const secretNames = new Set<string>(target.schema ? secretParamsOf(target.schema) : []);
  const clean = withoutSecrets(input, secretNames) as Record<string, unknown>;
  const declared = target.schema && isRecord(target.schema.properties) ? Object.keys(target.schema.properties) : [];
  const token = input.confirm_token;
  let success = false;
  let errorType: string | null = 'exception';
  if ('envelope' in outcome) {
    const env = outcome.envelope;
    success = !(env.success === false || env.ok === false);
    errorType = success ? null : str(env.error_type) || 'error';
  }
  return {
    at: timing.at,
    orgId: req.origin.orgId,
    roleId: req.origin.roleId,
    channel: req.origin.channel,
    line: req.line,
    sessionId: sessionIdOf(req.session),
    actorEmpNo: req.actor.fields.actor_emp_no,
    actorName: req.actor.fields.actor_name,
    skill: target.skill,
    action: actionOf(input, target.subcommand),
    paramsHash: paramsHash(deps.secretKey, clean),
    paramKeys: Object.keys(clean)
      .filter((k) => declared.includes(k))
      .sort(),
    success,
    errorType,
    durationMs: Math.max(0, Math.round(timing.durationMs)),
    confirmTokenHash: typeof token === 'string' && token !== '' ? confirmTokenHash(token) : null,
  };
}
