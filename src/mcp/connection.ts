/**
 * One MCP server as the gateway's client sees it (docs/mcp.md "Lifecycle"): connected lazily
 * (first listing or first call), tools cached and refreshed on `notifications/tools/list_changed`,
 * reconnected with exponential backoff after the server goes away. A server that is down fails
 * its calls at once with a clear error instead of holding them; the other servers are unaffected.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { isMcpError, loadMcpClientSdk, type McpClientSdk } from './sdk.ts';
import type { Logger } from '../log/logger.ts';
import type { McpServerConfig } from '../config/mcp-servers.ts';

/** First and largest reconnect delay, ms. */
export const RECONNECT_FIRST_MS = 1000;
export const RECONNECT_MAX_MS = 60_000;

/** Connection state; `down` carries the last error. */
export type McpState = 'idle' | 'connecting' | 'ready' | 'down' | 'closed';

/** Options of one tool call. */
export interface McpCallOptions {
  /** Aborts the call; the SDK sends `notifications/cancelled` to the server. */
  signal: AbortSignal;
  /** Request timeout, ms (the SDK cancels on the server too). */
  timeoutMs: number;
  /** Progress notifications of this call (`message` when the server sends one). */
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

/** Why a call did not reach the server. */
export class McpUnavailableError extends Error {
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`MCP server "${server}" is not available: ${reason}`);
    this.name = 'McpUnavailableError';
  }
}

/** Dependencies of {@link McpConnection}. */
export interface McpConnectionDeps {
  log: Logger;
  /** Called after the tool list changed (connect, list_changed, reconnect). */
  onToolsChanged: () => void;
  /** Reconnect in the background after a loss (a long-running gateway); default false. */
  autoReconnect?: boolean;
  /** Builds the transport; default from the config (tests may pass their own). */
  transport?: (cfg: McpServerConfig) => Transport;
  /** Clock for the backoff, epoch ms (tests). */
  now?: () => number;
}

/** The SDK transport for a configured server. */
export function transportFor(cfg: McpServerConfig, sdk: McpClientSdk): Transport {
  const { StdioClientTransport, getDefaultEnvironment, StreamableHTTPClientTransport, SSEClientTransport } = sdk;
  if (cfg.transport === 'stdio') {
    // The SDK's default environment holds only PATH, HOME and the like: no gateway secret
    // reaches the child unless the operator lists it under `env:`.
    return new StdioClientTransport({
      command: cfg.command!,
      args: cfg.args,
      env: { ...getDefaultEnvironment(), ...cfg.env },
      stderr: 'pipe',
    });
  }
  const url = new URL(cfg.url!);
  const requestInit = { headers: cfg.headers };
  return cfg.transport === 'http' ? new StreamableHTTPClientTransport(url, { requestInit }) : new SSEClientTransport(url, { requestInit });
}

/** One server: lazy connect, cached tools, backoff, calls. */
export class McpConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private list: Tool[] = [];
  private st: McpState = 'idle';
  private lastError = '';
  private failures = 0;
  private retryAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly now: () => number;

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: McpConnectionDeps,
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** Current state and, when down, why. */
  status(): { state: McpState; error?: string } {
    return this.st === 'down' ? { state: this.st, error: this.lastError } : { state: this.st };
  }

  /** The last tool list the server gave (kept while it is down). */
  tools(): readonly Tool[] {
    return this.list;
  }

  /**
   * Connect (when not yet connected) and list the tools.
   * @throws McpUnavailableError when it cannot connect within `timeout_sec`.
   */
  async connect(): Promise<void> {
    await this.ensure(true);
  }

  private ensure(force: boolean): Promise<Client> {
    if (this.st === 'closed') return Promise.reject(new McpUnavailableError(this.config.name, 'closed'));
    if (this.client && this.st === 'ready') return Promise.resolve(this.client);
    if (this.connecting) return this.connecting;
    if (!force && this.st === 'down' && this.now() < this.retryAt) {
      return Promise.reject(new McpUnavailableError(this.config.name, this.lastError));
    }
    this.connecting = this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<Client> {
    this.st = 'connecting';
    const cfg = this.config;
    const sdk = await loadMcpClientSdk();
    const client = new sdk.Client(
      { name: 'skillgate', version: '0.1.0' },
      {
        capabilities: {},
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (err, tools) => {
              if (client !== this.client) return;
              if (err) {
                this.deps.log.warn({ server: cfg.name, err: err.message }, 'MCP tools/list after list_changed failed');
                return;
              }
              this.list = tools ?? [];
              this.deps.onToolsChanged();
            },
          },
        },
      },
    );
    const transport = this.deps.transport ? this.deps.transport(cfg) : transportFor(cfg, sdk);
    const stderr = (transport as { stderr?: NodeJS.ReadableStream | null }).stderr;
    stderr?.on('data', (chunk: Buffer) =>
      this.deps.log.debug({ server: cfg.name, stderr: String(chunk).slice(0, 2000) }, 'MCP server stderr'),
    );
    const timeoutMs = cfg.timeout_sec * 1000;
    try {
      await client.connect(transport, { timeout: timeoutMs });
      const tools = await listAll(client, timeoutMs);
      if (this.closed) throw new Error('closed while connecting');
      this.client = client;
      this.list = tools;
      this.st = 'ready';
      this.failures = 0;
      client.onclose = () => this.lost(client, 'the connection closed');
      client.onerror = (e) => {
        this.deps.log.debug({ server: cfg.name, err: e.message }, 'MCP transport error');
        // HTTP+SSE: an error of the event stream means the server is gone (pending calls would
        // otherwise wait for their timeout). Other transports report recoverable errors here.
        if (cfg.transport === 'sse') this.lost(client, e.message);
      };
      this.deps.log.info({ server: cfg.name, tools: tools.length }, 'MCP server connected');
      this.deps.onToolsChanged();
      return client;
    } catch (err) {
      await client.close().catch(() => undefined);
      const reason = (err as Error)?.message ?? String(err);
      this.markDown(reason);
      throw new McpUnavailableError(cfg.name, reason);
    }
  }

  private lost(client: Client, reason: string): void {
    if (client !== this.client || this.st === 'closed') return;
    this.client = undefined;
    this.markDown(reason);
    void client.close().catch(() => undefined);
  }

  private markDown(reason: string): void {
    if (this.st === 'closed') return;
    this.st = 'down';
    this.lastError = reason;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** this.failures);
    this.failures += 1;
    this.retryAt = this.now() + delay;
    this.deps.log.warn({ server: this.config.name, err: reason, retry_in_ms: delay }, 'MCP server unavailable');
    if (this.deps.autoReconnect && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.ensure(true).catch(() => undefined);
      }, delay);
      this.timer.unref();
    }
  }

  /**
   * Call `tool` with `args`.
   * @throws McpUnavailableError when the server is down (without waiting while its backoff
   *   runs); the SDK's McpError / AbortError when the call fails, times out or is aborted.
   */
  async call(tool: string, args: Record<string, unknown>, opts: McpCallOptions): Promise<CallToolResult> {
    const client = await this.ensure(false);
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: opts.signal,
        timeout: opts.timeoutMs,
        ...(opts.onProgress ? { onprogress: opts.onProgress, resetTimeoutOnProgress: false } : {}),
      });
      return result as CallToolResult;
    } catch (err) {
      if (isMcpError(err) || opts.signal.aborted) throw err;
      // A transport failure (HTTP: the server went away mid-request): the connection is lost.
      const reason = (err as Error)?.message ?? String(err);
      this.lost(client, reason);
      const { McpError, ErrorCode } = await loadMcpClientSdk();
      throw new McpError(ErrorCode.ConnectionClosed, reason);
    }
  }

  /** Close the connection (stdio: the child is ended); no reconnect afterwards. */
  async close(): Promise<void> {
    this.st = 'closed';
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    await this.connecting?.catch(() => undefined);
    await c?.close().catch(() => undefined);
  }
}

/** Every page of `tools/list`. */
async function listAll(client: Client, timeoutMs: number): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const out: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    out.push(...r.tools);
    cursor = r.nextCursor;
    if (!cursor) break;
  }
  return out;
}
