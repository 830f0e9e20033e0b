/**
 * skillgate's skills as MCP tools for one caller (docs/mcp.md "skillgate as an MCP server"):
 * the role's enabled tools exactly as the model sees them (secrets stripped), and a call run
 * as the token's contact on channel `mcp` through the normal pipeline (`runSkill`: actor_*
 * from the directory, permissions, confirmations, audit), its envelope mapped to a
 * `CallToolResult`.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Envelope } from '../../envelope/types.ts';
import type { RunSkillRequest, SkillCall, SkillServices } from '../../executor/skill-call.ts';
import { callActorOf, chatLineOrigin } from '../../executor/request.ts';

/** The services a call over /mcp needs: the process's composed skill call among them. */
export type McpCallServices = SkillServices & { readonly call: SkillCall };
import { actorFieldsFor } from '../../identity/resolve.ts';
import type { ResolvedActor } from '../../identity/types.ts';
import type { ModelTool } from '../../registry/types.ts';
import { mimeTypes } from '../../config/lazy-packages.ts';

/** Images up to this size are inlined as image content; larger artifacts are only named. */
export const INLINE_IMAGE_BYTES = 5 * 1024 * 1024;

/** Everything a call needs about the caller. */
export interface McpCaller {
  orgId: string;
  roleId: string;
  actor: ResolvedActor;
  lang: 'zh-CN' | 'en';
}

/** The MCP session id (workspace) of a caller: stable per org, role and contact. */
export function mcpSessionId(orgId: string, roleId: string, contactKey: string): string {
  return 'mcp_' + createHash('sha256').update(`${orgId}\u0000${roleId}\u0000${contactKey}`, 'utf8').digest('base64url').slice(0, 22);
}

/** A model tool as an MCP tool (same name, description and input schema). */
export function asMcpTool(t: ModelTool): Tool {
  return { name: t.function.name, description: t.function.description, inputSchema: t.function.parameters as Tool['inputSchema'] };
}

/** The tools role `roleId` sees, in the model's form. */
export function toolsFor(services: SkillServices, enabled: readonly string[] | '*'): ModelTool[] {
  return services.registry.tools({ skills: enabled });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The human text of an envelope: display_md, user_message, the result, or the JSON. */
function envelopeText(env: Envelope): string {
  const failed = env.success === false || env.ok === false;
  if (failed) return str(env.user_message) ?? str(env.error) ?? 'failed';
  const shown = str(env.display_md) ?? str(env.user_message) ?? (typeof env.result === 'string' ? str(env.result) : undefined);
  if (shown) return shown;
  const { artifacts: _a, ...rest } = env;
  return JSON.stringify(rest, null, 2);
}

/** The confirmation hint: how the agent's user confirms with a second call (zh-CN / en). */
function confirmHint(tool: string, token: string, lang: 'zh-CN' | 'en'): string {
  return lang === 'en'
    ? `This action needs confirmation. To confirm, call ${tool} again with the same arguments plus "confirm_token": "${token}" (valid 5 minutes, single use).`
    : `此操作需要确认。确认请再次调用 ${tool}，参数不变并加上 "confirm_token": "${token}"（5 分钟内有效，仅限一次）。`;
}

/** `env` as an MCP result: text, inline images, and the envelope as structured content. */
export async function envelopeResult(tool: string, env: Envelope, lang: 'zh-CN' | 'en'): Promise<CallToolResult> {
  const content: CallToolResult['content'] = [{ type: 'text', text: envelopeText(env) }];
  const token = str(env.confirm_token);
  if (token) content.push({ type: 'text', text: confirmHint(tool, token, lang) });
  const artifacts = env.artifacts ?? [];
  for (const a of artifacts) {
    const type = mimeTypes().lookup(a.filename) || 'application/octet-stream';
    const size = await stat(a.local_path)
      .then((s) => s.size)
      .catch(() => -1);
    if (a.media === 'image' && size > 0 && size <= INLINE_IMAGE_BYTES) {
      content.push({ type: 'image', data: (await readFile(a.local_path)).toString('base64'), mimeType: type });
    } else {
      content.push({ type: 'text', text: `[${a.media}] ${a.filename}` });
    }
  }
  // Server paths stay on the server: artifacts are named, not located.
  const structured = { ...env, artifacts: artifacts.map((a) => ({ filename: a.filename, media: a.media })) };
  return {
    content,
    structuredContent: JSON.parse(JSON.stringify(structured)) as Record<string, unknown>,
    isError: env.success === false || env.ok === false,
  };
}

/**
 * Run tool `tool` with `args` as `caller` on channel `mcp` (the chat line: confirmations and
 * walls as in chat). `enabled` are the role's names; a tool outside them is refused as unknown.
 * @throws only on infrastructure failures (database unreachable).
 */
export async function callAs(
  services: McpCallServices,
  caller: McpCaller,
  enabled: readonly string[] | '*',
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const allowed = toolsFor(services, enabled).some((t) => t.function.name === tool);
  if (!allowed) {
    const text = caller.lang === 'en' ? `There is no tool named "${tool}".` : `没有名为「${tool}」的工具。`;
    return { content: [{ type: 'text', text }], isError: true };
  }
  const { actor } = caller;
  const req: RunSkillRequest = {
    skill: tool,
    input: args,
    actor: callActorOf(actorFieldsFor(actor, { channel: 'mcp', actingAsAdmin: false }), actor.contactKey),
    origin: chatLineOrigin({ roleId: caller.roleId, orgId: caller.orgId, channel: 'mcp', rawInput: '', teamRole: actor.teamRole }),
    session: { open: { id: mcpSessionId(caller.orgId, caller.roleId, actor.contactKey) } },
    line: 'chat',
    abortSignal: signal,
    lang: caller.lang,
  };
  const env = await services.call(req);
  return envelopeResult(tool, env, caller.lang);
}
