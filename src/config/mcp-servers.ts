/**
 * The `mcp_servers:` block of `skillgate.config.yaml` (docs/mcp.md "Configuration"): MCP
 * servers whose tools become skills `<name>__<tool>`. Operators declare them; chat never does.
 */
import { ConfigError } from './errors.ts';

/** How the gateway reaches one MCP server. */
export type McpTransportKind = 'stdio' | 'http' | 'sse';

/** One declared MCP server, defaults applied and `$VAR` references substituted. */
export interface McpServerConfig {
  /** Prefix of its skills (`<name>__<tool>`); `^[a-z0-9][a-z0-9_-]*$`, no `__`. */
  name: string;
  transport: McpTransportKind;
  /** stdio: the program and its arguments. */
  command?: string;
  args: string[];
  /** stdio: extra environment of the child (added to the SDK's minimal default environment). */
  env: Record<string, string>;
  /** http / sse: the endpoint. */
  url?: string;
  /** http / sse: request headers (e.g. `Authorization: Bearer $TOKEN`). */
  headers: Record<string, string>;
  /** Roles that see its tools; `["*"]` = every role. */
  roles: string[];
  /** Allow-list of the server's tool names (as the server spells them); `["*"]` = all. */
  tools: string[];
  /** Cap of one call and of connecting, seconds (default 60); the call's wall still applies. */
  timeout_sec: number;
}

/** Default `timeout_sec`. */
export const MCP_DEFAULT_TIMEOUT_SEC = 60;

/** Valid server names: a skill-name prefix without the fan-out separator. */
export const MCP_SERVER_NAME_RE = /^[a-z0-9][a-z0-9-]*(?:_[a-z0-9-]+)*$/;

/** The JSON schema of one entry (checked by the config file's ajv pass). */
export const MCP_SERVER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'transport'],
  properties: {
    name: { type: 'string', pattern: MCP_SERVER_NAME_RE.source, maxLength: 40 },
    transport: { enum: ['stdio', 'http', 'sse'] },
    command: { type: 'string', minLength: 1 },
    args: { type: 'array', items: { type: 'string' } },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    url: { type: 'string', minLength: 1 },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    roles: { type: 'array', items: { type: 'string', minLength: 1 } },
    tools: { type: 'array', items: { type: 'string', minLength: 1 } },
    timeout_sec: { type: 'number', exclusiveMinimum: 0 },
  },
} as const;

/** `$VAR` / `${VAR}` anywhere in `value`, each replaced from `env`; an unset one is an error. */
function substituteAll(value: string, env: NodeJS.ProcessEnv, key: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    const v = env[name];
    if (v === undefined || v === '') throw new ConfigError(`${key} refers to $${name}, which is not set`, key);
    return v;
  });
}

function substituteMap(map: Record<string, string> | undefined, env: NodeJS.ProcessEnv, key: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {})) out[k] = substituteAll(v, env, `${key}.${k}`);
  return out;
}

/**
 * Apply defaults and substitute `$VAR` in `env` and `headers` values (already schema-checked).
 * @throws ConfigError naming the key: a duplicate name, stdio without `command`, http/sse
 *   without a valid http(s) `url`, a role that is not configured, an unset `$VAR`.
 */
export function parseMcpServers(
  raw: readonly Record<string, unknown>[],
  roleIds: readonly string[],
  env: NodeJS.ProcessEnv,
  file: string,
): McpServerConfig[] {
  const seen = new Set<string>();
  return raw.map((r, i) => {
    const at = `mcp_servers[${i}]`;
    const name = String(r.name);
    if (seen.has(name)) throw new ConfigError(`${file}: ${at}.name "${name}" is used twice`, `${at}.name`);
    seen.add(name);
    const transport = r.transport as McpTransportKind;
    const s: McpServerConfig = {
      name,
      transport,
      args: (r.args as string[] | undefined) ?? [],
      env: substituteMap(r.env as Record<string, string> | undefined, env, `${at}.env`),
      headers: substituteMap(r.headers as Record<string, string> | undefined, env, `${at}.headers`),
      roles: (r.roles as string[] | undefined) ?? ['*'],
      tools: (r.tools as string[] | undefined) ?? ['*'],
      timeout_sec: (r.timeout_sec as number | undefined) ?? MCP_DEFAULT_TIMEOUT_SEC,
    };
    if (transport === 'stdio') {
      if (typeof r.command !== 'string') throw new ConfigError(`${file}: ${at}.command is required for transport stdio`, `${at}.command`);
      s.command = r.command;
    } else {
      const url = typeof r.url === 'string' ? substituteAll(r.url, env, `${at}.url`) : '';
      let ok = false;
      try {
        ok = ['http:', 'https:'].includes(new URL(url).protocol);
      } catch {
        ok = false;
      }
      if (!ok) throw new ConfigError(`${file}: ${at}.url must be an http(s) URL for transport ${transport}`, `${at}.url`);
      s.url = url;
    }
    for (const role of s.roles) {
      if (role !== '*' && !roleIds.includes(role))
        throw new ConfigError(`${file}: ${at}.roles names "${role}", which is not a role`, `${at}.roles`);
    }
    return s;
  });
}
