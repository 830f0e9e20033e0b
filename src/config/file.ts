/**
 * `skillgate.config.yaml` (docs/configuration.md): roles, accounts, access policy. Optional; it
 * overrides `.env` for what it names. Validated with ajv; errors name the key
 * (`roles[0].access`).
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajvClass, yamlPackage } from './lazy-packages.ts';
import { ConfigError } from './errors.ts';
import { MCP_SERVER_SCHEMA, parseMcpServers, type McpServerConfig } from './mcp-servers.ts';
import { isTimeZone, orgTimeZone } from '../present/clock.ts';

/** Who may talk to a role (docs/configuration.md). */
export type AccessPolicy = 'open' | 'directory' | 'allowlist';

/** One role of the config file. */
export interface RoleConfig {
  id: string;
  org_id: string;
  /** `["*"]` (every discovered skill) or a list of names. */
  skills: string[];
  access: AccessPolicy;
  /** Contact keys or `<channel>:<id>`, for `allowlist`. */
  allow: string[];
  /** Optional per-role model. */
  model?: { base_url?: string; model?: string; api_key?: string };
  /**
   * IANA zone the role's people read times in (docs/results.md "Times"); absent = the
   * organisation's (`SKILLGATE_TIMEZONE`, else the host's).
   */
  timezone?: string;
}

/** One channel account (the `.env` one is `default`). Values may be `$VAR` references. */
export interface AccountConfig {
  /** A declared channel's name (adapters/index.ts). */
  channel: string;
  id: string;
  role: string;
  /** Channel-specific settings (token, webhook_secret, app_id…), `$VAR` already substituted. */
  [key: string]: unknown;
}

/** The whole file after defaults. */
export interface ConfigFile {
  roles: RoleConfig[];
  accounts: AccountConfig[];
  /** MCP servers whose tools become skills (docs/mcp.md); absent or `[]` when none. */
  mcp_servers?: McpServerConfig[];
}

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    roles: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id'],
        properties: {
          id: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
          org_id: { type: 'string', minLength: 1 },
          skills: { type: 'array', items: { type: 'string', minLength: 1 } },
          access: { enum: ['open', 'directory', 'allowlist'] },
          allow: { type: 'array', items: { type: 'string', minLength: 1 } },
          model: {
            type: 'object',
            additionalProperties: false,
            properties: { base_url: { type: 'string' }, model: { type: 'string' }, api_key: { type: 'string' } },
          },
          timezone: { type: 'string', minLength: 1 },
        },
      },
    },
    accounts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['channel', 'id'],
        properties: {
          channel: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,31}$' },
          id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          role: { type: 'string' },
        },
      },
    },
    mcp_servers: { type: 'array', items: MCP_SERVER_SCHEMA },
  },
} as const;

let compiled: ValidateFunction | undefined;

/**
 * The schema above, compiled at the first file with content (an empty file or none is valid
 * as it is: the schema requires no key). It is this file's own constant: no meta-schema check of
 * it (compiling the meta-schema was most of ajv's cost here; docs/performance.md "Start-up").
 */
function validator(): ValidateFunction {
  compiled ??= new (ajvClass())({ allErrors: true, validateSchema: false }).compile(schema);
  return compiled;
}

/** `{}`: what an empty file parses to. */
function isEmptyDocument(doc: unknown): boolean {
  return typeof doc === 'object' && doc !== null && !Array.isArray(doc) && Object.keys(doc).length === 0;
}

/** `/roles/0/access` → `roles[0].access`. */
function keyOf(err: ErrorObject): string {
  const parts = err.instancePath.split('/').filter(Boolean);
  let key = '';
  for (const p of parts) key += /^\d+$/.test(p) ? `[${p}]` : key ? `.${p}` : p;
  if (err.keyword === 'additionalProperties') {
    const extra = (err.params as { additionalProperty: string }).additionalProperty;
    key = key ? `${key}.${extra}` : extra;
  }
  if (err.keyword === 'required') {
    const missing = (err.params as { missingProperty: string }).missingProperty;
    key = key ? `${key}.${missing}` : missing;
  }
  return key || '(root)';
}

function substitute(value: unknown, env: NodeJS.ProcessEnv, key: string): unknown {
  if (typeof value === 'string' && /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
    const v = env[value.slice(1)];
    if (v === undefined || v === '') {
      throw new ConfigError(`${key} refers to ${value}, which is not set`, key);
    }
    return v;
  }
  return value;
}

/**
 * Parse and validate the config file's text, applying defaults: a role's `org_id` defaults
 * to `defaults.orgId`, `skills` to `["*"]`, `access` to `open`, `allow` to `[]`; an
 * account's `role` to `defaults.roleId`. When the file names no role, the default role
 * (`defaults.roleId` in `defaults.orgId`) is added.
 * @throws ConfigError naming the key (`roles[1].access`) on a YAML or schema error, a
 *   duplicate role id, an account naming an unknown role, or a `$VAR` that is unset.
 */
export function parseConfigFile(
  text: string,
  defaults: ConfigDefaults,
  env: NodeJS.ProcessEnv = process.env,
  file = 'skillgate.config.yaml',
): ConfigFile {
  let doc: unknown;
  try {
    // Blank text is an empty document: yaml is not loaded for it.
    doc = text.trim() === '' ? {} : (yamlPackage().parse(text) ?? {});
  } catch (err) {
    const where = err instanceof yamlPackage().YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : '';
    throw new ConfigError(`${file}: not valid YAML${where}: ${(err as Error).message.split('\n')[0]}`, '(root)');
  }
  const validate = isEmptyDocument(doc) ? undefined : validator();
  if (validate && !validate(doc)) {
    const err = validate.errors![0]!;
    const key = keyOf(err);
    const detail = err.keyword === 'additionalProperties' ? 'is not a known key' : (err.message ?? 'is invalid');
    throw new ConfigError(`${file}: ${key} ${detail}`, key);
  }
  const raw = doc as { roles?: Partial<RoleConfig>[]; accounts?: Record<string, unknown>[]; mcp_servers?: Record<string, unknown>[] };
  const roles: RoleConfig[] = (raw.roles ?? []).map((r) => ({
    id: r.id!,
    org_id: r.org_id ?? defaults.orgId,
    skills: r.skills ?? ['*'],
    access: r.access ?? 'open',
    allow: r.allow ?? [],
    ...(r.model ? { model: r.model } : {}),
    ...(r.timezone ? { timezone: r.timezone.trim() } : {}),
  }));
  const seen = new Set<string>();
  roles.forEach((r, i) => {
    if (seen.has(r.id)) throw new ConfigError(`${file}: roles[${i}].id "${r.id}" is used twice`, `roles[${i}].id`);
    seen.add(r.id);
    if (r.timezone !== undefined && !isTimeZone(r.timezone)) {
      throw new ConfigError(
        `${file}: roles[${i}].timezone "${r.timezone}" is not an IANA time zone (e.g. Asia/Shanghai)`,
        `roles[${i}].timezone`,
      );
    }
  });
  if (!seen.has(defaults.roleId)) {
    roles.unshift({ id: defaults.roleId, org_id: defaults.orgId, skills: ['*'], access: 'open', allow: [] });
  }
  const accounts: AccountConfig[] = (raw.accounts ?? []).map((a, i) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(a)) out[k] = substitute(v, env, `accounts[${i}].${k}`);
    out.role ??= defaults.roleId;
    if (defaults.channels && !defaults.channels.includes(String(out.channel))) {
      const known = defaults.channels.join(', ');
      throw new ConfigError(
        `${file}: accounts[${i}].channel "${String(out.channel)}" is not a channel of this build (${known})`,
        `accounts[${i}].channel`,
      );
    }
    if (!roles.some((r) => r.id === out.role)) {
      throw new ConfigError(`${file}: accounts[${i}].role "${String(out.role)}" is not a role`, `accounts[${i}].role`);
    }
    return out as AccountConfig;
  });
  const pairs = new Set<string>();
  accounts.forEach((a, i) => {
    const k = `${a.channel}/${a.id}`;
    if (pairs.has(k)) throw new ConfigError(`${file}: accounts[${i}] repeats ${k}`, `accounts[${i}].id`);
    pairs.add(k);
  });
  const mcp_servers = parseMcpServers(
    raw.mcp_servers ?? [],
    roles.map((r) => r.id),
    env,
    file,
  );
  return { roles, accounts, ...(mcp_servers.length > 0 ? { mcp_servers } : {}) };
}

/** What the file's omissions default to, and the channels an account may name. */
export interface ConfigDefaults {
  orgId: string;
  roleId: string;
  /**
   * The declared channels (`channelNames(channelDeclarations)` from adapters/index.ts); an
   * account of another channel is refused. Absent: only the name's form is checked.
   */
  channels?: readonly string[];
}

/**
 * Load the config file at `path`, or the defaults when `path` is undefined.
 * @throws ConfigError as {@link parseConfigFile}, or when the file cannot be read.
 */
export function loadConfigFile(path: string | undefined, defaults: ConfigDefaults, env: NodeJS.ProcessEnv = process.env): ConfigFile {
  if (!path) return parseConfigFile('', defaults, env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${path}: ${(err as Error).message}`, 'SKILLGATE_CONFIG');
  }
  return parseConfigFile(text, defaults, env, path);
}

/**
 * The skills a role enables: `"*"` (every discovered skill) or a list of names; undefined
 * when the role is unknown (docs/skill-authoring.md).
 */
export function roleSkills(config: ConfigFile, roleId: string): readonly string[] | '*' | undefined {
  const role = config.roles.find((r) => r.id === roleId);
  if (!role) return undefined;
  return role.skills.includes('*') ? '*' : role.skills;
}

/**
 * The IANA zone `roleId`'s people read times in (docs/results.md "Times"): the role's
 * `timezone`, else {@link orgTimeZone} of `env` (`SKILLGATE_TIMEZONE`, else the host's).
 */
export function roleTimeZone(config: ConfigFile, roleId: string, env: NodeJS.ProcessEnv = process.env): string {
  return config.roles.find((r) => r.id === roleId)?.timezone ?? orgTimeZone(env);
}
