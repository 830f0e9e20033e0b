/**
 * The configured MCP servers as a source of skill records for the live skill set
 * (`src/lifecycle/live.ts`; docs/mcp.md). Each server's allowed tools become records
 * `<server>__<tool>`; records keep their identity until that server's tool list changes, so a
 * reload reports only what really changed.
 */
import type { RuntimeContext } from '../runtime/types.ts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log/logger.ts';
import type { RegistryIssue } from '../registry/discover.ts';
import type { SkillRecord } from '../registry/types.ts';
import type { McpServerConfig } from '../config/mcp-servers.ts';
import { McpConnection, type McpConnectionDeps, type McpState } from './connection.ts';
import { mcpSkillName, mcpToolRecord, toolAllowed } from './records.ts';
import { runMcpTool } from './run.ts';

/** One server as the console and logs see it. */
export interface McpServerStatus {
  server: string;
  transport: McpServerConfig['transport'];
  state: McpState;
  error?: string;
  /** Skill names served from it. */
  skills: string[];
}

/** The skill records of the configured MCP servers. */
export interface McpSkillSource {
  /** Every allowed tool of every server, servers in config order. */
  records(): readonly SkillRecord[];
  /** Name clashes inside the source (two tools normalising to one name). */
  issues(): readonly RegistryIssue[];
  /** Called after a server's tool list changed (connect, list_changed, reconnect). */
  onChange(listener: () => void): void;
  /** Connect every server once (in parallel, each bounded by its `timeout_sec`); never rejects. */
  ready(): Promise<void>;
  status(): McpServerStatus[];
  close(): Promise<void>;
}

/** Options of {@link createMcpSource}. */
export interface McpSourceOptions {
  log: Logger;
  /** Reconnect after a loss in the background (the gateway); one-shot CLI runs do not. */
  autoReconnect?: boolean;
  /** Transport factory (tests). */
  transport?: McpConnectionDeps['transport'];
  /** Clock of the reconnect backoff, epoch ms (tests). */
  now?: () => number;
}

/** Create the source; nothing connects until {@link McpSkillSource.ready} or a call. */
export function createMcpSource(servers: readonly McpServerConfig[], opts: McpSourceOptions): McpSkillSource {
  const listeners: Array<() => void> = [];
  const cache = new Map<string, { tools: readonly Tool[]; records: SkillRecord[]; issues: RegistryIssue[] }>();
  const conns = servers.map(
    (cfg) =>
      new McpConnection(cfg, {
        log: opts.log,
        autoReconnect: opts.autoReconnect,
        transport: opts.transport,
        now: opts.now,
        onToolsChanged: () => {
          for (const l of listeners) l();
        },
      }),
  );

  const recordsOf = (conn: McpConnection): { records: SkillRecord[]; issues: RegistryIssue[] } => {
    const tools = conn.tools();
    const hit = cache.get(conn.config.name);
    if (hit && hit.tools === tools) return hit;
    const cfg = conn.config;
    const records: SkillRecord[] = [];
    const issues: RegistryIssue[] = [];
    const seen = new Set<string>();
    for (const tool of tools) {
      if (!toolAllowed(cfg.tools, tool.name)) continue;
      const name = mcpSkillName(cfg.name, tool.name);
      if (seen.has(name)) {
        issues.push({
          severity: 'warning',
          code: 'mcp.name_clash',
          message: `MCP tool "${tool.name}" of server "${cfg.name}" is ignored: another tool already gives the skill name "${name}"`,
          dir: '',
          skill: name,
        });
        continue;
      }
      seen.add(name);
      records.push(
        mcpToolRecord(
          name,
          tool,
          {
            server: cfg.name,
            tool: tool.name,
            roles: cfg.roles,
            run: (input, ctx, o) => runMcpTool(conn, tool.name, name, input, ctx as RuntimeContext, o),
          },
          cfg.timeout_sec,
        ),
      );
    }
    const entry = { tools, records, issues };
    cache.set(cfg.name, entry);
    return entry;
  };

  let initial: Promise<void> | undefined;
  return {
    records: () => conns.flatMap((c) => recordsOf(c).records),
    issues: () => conns.flatMap((c) => recordsOf(c).issues),
    onChange: (l) => void listeners.push(l),
    ready() {
      initial ??= Promise.all(conns.map((c) => c.connect().catch(() => undefined))).then(() => undefined);
      return initial;
    },
    status: () =>
      conns.map((c) => ({
        server: c.config.name,
        transport: c.config.transport,
        ...c.status(),
        skills: recordsOf(c).records.map((r) => r.name),
      })),
    async close() {
      await Promise.all(conns.map((c) => c.close()));
    },
  };
}
