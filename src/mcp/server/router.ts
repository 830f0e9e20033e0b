/**
 * `POST /mcp` (streamable HTTP, stateless: one SDK server per request) — skillgate's skills
 * as MCP tools (docs/mcp.md "skillgate as an MCP server"). Order of checks: the `Origin`
 * header (DNS rebinding: only the public URL's origin and loopback origins) → 403; the bearer
 * token (`skillgate mcp token`) → 401 with `WWW-Authenticate`; the contact still in the
 * directory and the role still configured → 401; the role's access policy → 403. `GET` and
 * `DELETE` answer 405 (no server-initiated stream, no sessions). A `notifications/cancelled`
 * arrives in a request of its own: it stops the running call of the same token with that
 * request id ({@link InFlight}).
 */
import express, { type Request, type Response } from 'express';
import { roleSkills, type ConfigFile } from '../../config/file.ts';
import type { McpCallServices } from './calls.ts';
import { checkAccess } from '../../identity/access.ts';
import { resolveActor } from '../../identity/resolve.ts';
import type { Logger } from '../../log/logger.ts';
import type { Db } from '../../store/db.ts';
import type { McpCaller } from './calls.ts';
import { verifyMcpToken } from './tokens.ts';

/** Dependencies of {@link createMcpRouter}. */
export interface McpRouterDeps {
  db: Db;
  /** `skillsFor`: the role's enabled skills as the live skill set says now. */
  services: McpCallServices;
  config: ConfigFile;
  log: Logger;
  /** SKILLGATE_PUBLIC_URL: its origin is allowed besides loopback origins. */
  publicUrl?: string;
  /** The path to serve (default `/mcp`). */
  path?: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * True when the request may come from `origin` (absent: not a browser, allowed): the public
 * URL's origin, or an http(s) loopback origin on any port.
 */
export function originAllowed(origin: string | undefined, publicUrl: string | undefined): boolean {
  if (origin === undefined) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  if (LOOPBACK_HOSTS.has(u.hostname)) return true;
  if (publicUrl) {
    try {
      return new URL(publicUrl).origin === u.origin;
    } catch {
      return false;
    }
  }
  return false;
}

function rpcError(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  res
    .status(status)
    .set(headers)
    .json({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });
}

function langOf(req: Request): 'zh-CN' | 'en' {
  return /^en\b/i.test(String(req.headers['accept-language'] ?? '')) ? 'en' : 'zh-CN';
}

/** The caller of a request with a valid token, or a refusal already sent (null). */
async function authenticate(
  deps: McpRouterDeps,
  req: Request,
  res: Response,
): Promise<{ tokenId: string; caller: McpCaller; enabled: readonly string[] | '*' } | null> {
  const unauthorized = (): null => {
    rpcError(res, 401, 'unauthorized: a valid bearer token is required (skillgate mcp token)', {
      'WWW-Authenticate': 'Bearer realm="skillgate-mcp"',
    });
    return null;
  };
  const m = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''));
  if (!m) return unauthorized();
  const id = await verifyMcpToken(deps.db, m[1]!);
  if (!id) return unauthorized();
  const role = deps.config.roles.find((r) => r.id === id.roleId && r.org_id === id.orgId);
  if (!role) return unauthorized();
  const actor = await resolveActor(deps.db, {
    orgId: role.org_id,
    roleId: role.id,
    channel: 'mcp',
    platformId: id.contactKey,
    nickname: '',
  });
  if (!actor.known) return unauthorized();
  const lang = langOf(req);
  const access = checkAccess(role, actor, 'mcp', id.contactKey, lang);
  if (!access.allowed) {
    rpcError(res, 403, access.message);
    return null;
  }
  const enabled = deps.services.skillsFor?.(role.id) ?? roleSkills(deps.config, role.id) ?? [];
  return { tokenId: id.tokenId, caller: { orgId: role.org_id, roleId: role.id, actor, lang }, enabled };
}

/**
 * Running calls by `<token id> <request id>`: with one SDK server per HTTP request, a
 * cancellation (its own request) reaches a different server than the call it names.
 */
export class InFlight {
  private readonly calls = new Map<string, AbortController>();

  /** Register a call; the returned signal fires on cancellation or when `signal` fires. */
  begin(tokenId: string, requestId: string | number, signal: AbortSignal): { signal: AbortSignal; end(): void } {
    const key = `${tokenId} ${String(requestId)}`;
    const c = new AbortController();
    const onAbort = (): void => c.abort(signal.reason);
    if (signal.aborted) c.abort(signal.reason);
    else signal.addEventListener('abort', onAbort, { once: true });
    this.calls.set(key, c);
    return {
      signal: c.signal,
      end: () => {
        signal.removeEventListener('abort', onAbort);
        if (this.calls.get(key) === c) this.calls.delete(key);
      },
    };
  }

  /** Cancel the call of `tokenId` with `requestId`; false when none runs. */
  cancel(tokenId: string, requestId: string | number, reason?: string): boolean {
    const c = this.calls.get(`${tokenId} ${String(requestId)}`);
    c?.abort(new Error(reason ? `cancelled by the MCP client: ${reason}` : 'cancelled by the MCP client'));
    return c !== undefined;
  }
}

/** The router serving `/mcp`. */
export function createMcpRouter(deps: McpRouterDeps): express.Router {
  const router = express.Router();
  const path = deps.path ?? '/mcp';
  const inflight = new InFlight();
  router.use(path, (req, res, next) => {
    if (!originAllowed(typeof req.headers.origin === 'string' ? req.headers.origin : undefined, deps.publicUrl)) {
      deps.log.warn({ origin: req.headers.origin }, 'MCP request refused: origin not allowed');
      rpcError(res, 403, 'forbidden: origin not allowed');
      return;
    }
    next();
  });
  router.post(path, express.json({ limit: '4mb' }), (req, res) => {
    void (async () => {
      const who = await authenticate(deps, req, res);
      if (!who) return;
      // The SDK's server side is imported on the first request (docs/performance.md "Start-up").
      const { serverFor, StreamableHTTPServerTransport } = await import('./session.ts');
      const server = serverFor(deps, inflight, who.tokenId, who.caller, who.enabled);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    })().catch((err: unknown) => {
      deps.log.error({ err: (err as Error)?.message ?? String(err) }, 'MCP request failed');
      if (!res.headersSent) rpcError(res, 500, 'internal error');
    });
  });
  const notAllowed = (_req: Request, res: Response): void => {
    res
      .status(405)
      .set('Allow', 'POST')
      .json({ jsonrpc: '2.0', error: { code: -32000, message: 'method not allowed' }, id: null });
  };
  router.get(path, notAllowed);
  router.delete(path, notAllowed);
  return router;
}
