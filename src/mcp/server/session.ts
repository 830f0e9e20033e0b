/**
 * One stateless MCP SDK server for one caller of `POST /mcp` (src/mcp/server/router.ts, which
 * imports this module on its first request).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, CancelledNotificationSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { asMcpTool, callAs, toolsFor, type McpCaller } from './calls.ts';
import type { InFlight, McpRouterDeps } from './router.ts';

export { StreamableHTTPServerTransport };

/** One stateless MCP server for one caller. */
export function serverFor(
  deps: McpRouterDeps,
  inflight: InFlight,
  tokenId: string,
  caller: McpCaller,
  enabled: readonly string[] | '*',
): Server {
  const server = new Server({ name: 'skillgate', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsFor(deps.services, enabled).map(asMcpTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (r, extra) => {
    const args = (r.params.arguments ?? {}) as Record<string, unknown>;
    const call = inflight.begin(tokenId, extra.requestId, extra.signal);
    try {
      return await callAs(deps.services, caller, enabled, r.params.name, args, call.signal);
    } finally {
      call.end();
    }
  });
  server.setNotificationHandler(CancelledNotificationSchema, async (n) => {
    if (n.params.requestId !== undefined) inflight.cancel(tokenId, n.params.requestId, n.params.reason);
  });
  return server;
}
