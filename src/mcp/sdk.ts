/**
 * The MCP SDK's client side (with zod, ~20 MB), imported when the first MCP server is
 * connected rather than by every start (docs/performance.md "Start-up").
 */
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as SseModule from '@modelcontextprotocol/sdk/client/sse.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as HttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';

/** The parts of the SDK the client uses. */
export interface McpClientSdk {
  Client: typeof ClientModule.Client;
  SSEClientTransport: typeof SseModule.SSEClientTransport;
  StdioClientTransport: typeof StdioModule.StdioClientTransport;
  getDefaultEnvironment: typeof StdioModule.getDefaultEnvironment;
  StreamableHTTPClientTransport: typeof HttpModule.StreamableHTTPClientTransport;
  McpError: typeof TypesModule.McpError;
  ErrorCode: typeof TypesModule.ErrorCode;
}

let loading: Promise<McpClientSdk> | undefined;
let loaded: McpClientSdk | undefined;

/** Import the SDK once (concurrent callers share the import). */
export function loadMcpClientSdk(): Promise<McpClientSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([client, sse, stdio, http, types]) => {
    loaded = {
      Client: client.Client,
      SSEClientTransport: sse.SSEClientTransport,
      StdioClientTransport: stdio.StdioClientTransport,
      getDefaultEnvironment: stdio.getDefaultEnvironment,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
    };
    return loaded;
  });
  return loading;
}

/** True when `err` is the SDK's McpError with `code` (never, while the SDK was not needed yet). */
export function isMcpError(err: unknown, code?: keyof typeof TypesModule.ErrorCode): boolean {
  if (!loaded || !(err instanceof loaded.McpError)) return false;
  return code === undefined || err.code === loaded.ErrorCode[code];
}
