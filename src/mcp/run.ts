/**
 * One call of an MCP tool under the skill's wall (docs/mcp.md "Calls"): the wall (and the
 * user's stop) abort the request, which makes the SDK send `notifications/cancelled`; a server
 * that is down, crashes mid-call or answers with a protocol error becomes a failed outcome with
 * a clear message; progress notifications are logged and handed to `onProgress` as notes.
 */
import type { RawOutcome } from '../envelope/types.ts';
import { startWall, stopMessage, wallMs } from '../executor/wall.ts';
import type { Logger } from '../log/logger.ts';
import type { RuntimeContext } from '../runtime/types.ts';
import { McpUnavailableError, type McpConnection } from './connection.ts';
import { toolResultValue } from './results.ts';
import { isMcpError } from './sdk.ts';

/** A progress line: `<skill>: <message> (<percent>%)`, the parts the server gave. */
export function progressNote(skill: string, p: { progress: number; total?: number; message?: string }): string {
  const pct = p.total && p.total > 0 ? ` (${Math.round((100 * p.progress) / p.total)}%)` : '';
  return `${skill}: ${p.message?.trim() || `${p.progress}${p.total ? `/${p.total}` : ''}`}${pct}`;
}

/** The failure shown when a server cannot be reached (zh-CN / en). */
export function unavailableMessage(server: string, lang: 'zh-CN' | 'en' = 'zh-CN'): string {
  return lang === 'en'
    ? `The MCP server "${server}" is not available right now; try again later.`
    : `MCP 服务「${server}」暂时不可用，请稍后再试。`;
}

/**
 * Call `tool` of `conn` for skill `skill`.
 * @param opts.wallSec the call's wall, seconds (cut to the server's `timeout_sec`).
 * @returns `returned` with the mapped result (results.ts) or `failed` (never throws).
 */
export async function runMcpTool(
  conn: McpConnection,
  tool: string,
  skill: string,
  input: Record<string, unknown>,
  ctx: RuntimeContext,
  opts: { wallSec: number; abortSignal?: AbortSignal; log: Logger; onProgress?: (note: string) => void; lang?: 'zh-CN' | 'en' },
): Promise<RawOutcome> {
  const server = conn.config.name;
  const sec = Math.min(conn.config.timeout_sec, Number.isFinite(opts.wallSec) && opts.wallSec > 0 ? opts.wallSec : conn.config.timeout_sec);
  const wall = startWall(sec, [opts.abortSignal, ctx.abort_signal ?? undefined]);
  try {
    const res = await conn.call(tool, input, {
      signal: wall.signal,
      timeoutMs: wallMs(sec),
      onProgress: (p) => {
        opts.log.info({ skill, server, progress: p.progress, total: p.total, message: p.message }, 'MCP tool progress');
        opts.onProgress?.(progressNote(skill, p));
      },
    });
    const workspace = typeof ctx.workspace_dir === 'string' && ctx.workspace_dir ? ctx.workspace_dir : process.cwd();
    return { kind: 'returned', value: await toolResultValue(res, tool, workspace) };
  } catch (err) {
    const cause = wall.cause();
    const timedOut = cause?.kind === 'timeout' || (isMcpError(err, 'RequestTimeout') && !cause);
    if (timedOut) {
      const afterSec = cause?.kind === 'timeout' ? cause.afterSec : sec;
      return {
        kind: 'failed',
        error: stopMessage(skill, { kind: 'timeout', afterSec }),
        error_type: 'transient',
        details: { timeout: true, timeout_sec: afterSec, mcp_server: server },
      };
    }
    if (cause) return { kind: 'failed', error: stopMessage(skill, cause), details: { aborted: true, mcp_server: server } };
    if (err instanceof McpUnavailableError) {
      return {
        kind: 'returned',
        value: {
          success: false,
          error: err.message,
          error_type: 'transient',
          user_message: unavailableMessage(server, opts.lang),
          details: { mcp_server: server },
        },
      };
    }
    if (isMcpError(err, 'ConnectionClosed')) {
      return {
        kind: 'returned',
        value: {
          success: false,
          error: `MCP server "${server}" closed the connection during the call of "${tool}"`,
          error_type: 'transient',
          user_message: unavailableMessage(server, opts.lang),
          details: { mcp_server: server },
        },
      };
    }
    const message = (err as Error)?.message ?? String(err);
    opts.log.warn({ skill, server, err: message }, 'MCP tool call failed');
    return {
      kind: 'failed',
      error: `skill "${skill}": MCP call failed (${message})`,
      error_type: 'recoverable',
      details: { mcp_server: server },
    };
  } finally {
    wall.dispose();
  }
}
