/**
 * An MCP server's tools as skill records (docs/mcp.md "What maps to what"): one skill
 * `<server>__<tool>` per allowed tool, exec type `MCP`, description and input schema from the
 * server, normalised like every skill's schema (bare strings repaired, object top level, secret
 * parameters detected so the model never fills them).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { normalizeSchema } from '../registry/schema.ts';
import { detectSecretParams } from '../registry/secrets.ts';
import type { JsonSchema, McpBinding, SkillRecord } from '../registry/types.ts';

/** Longest skill name (model tool names are limited to 64 characters). */
export const MAX_SKILL_NAME = 64;

/**
 * The skill name of `tool` on server `server`: `<server>__<tool>` lower-cased, characters
 * outside `[a-z0-9_-]` as `_`, cut to {@link MAX_SKILL_NAME}.
 */
export function mcpSkillName(server: string, tool: string): string {
  const t = tool.toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  return `${server}__${t}`.slice(0, MAX_SKILL_NAME);
}

/** True when `tool` passes the server's `tools:` allow-list. */
export function toolAllowed(allow: readonly string[], tool: string): boolean {
  return allow.includes('*') || allow.includes(tool);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The input schema of a tool as a skill sees it: the server's object schema without `$schema`
 * (the gateway validates with its own dialect), normalised (R-SCH-02).
 */
export function toolInputSchema(tool: Pick<Tool, 'inputSchema'>): JsonSchema {
  const raw: JsonSchema = isRecord(tool.inputSchema) ? { ...tool.inputSchema } : { type: 'object' };
  delete raw.$schema;
  return normalizeSchema(raw).schema;
}

/**
 * The skill record of one MCP tool; `binding` is how the executor calls it, `timeoutSec` the
 * server's `timeout_sec` (the skill's declared wall, so the usual caps apply).
 */
export function mcpToolRecord(name: string, tool: Tool, binding: McpBinding, timeoutSec: number): SkillRecord {
  const inputSchema = toolInputSchema(tool);
  const description = (tool.description ?? tool.title ?? tool.name).trim() || tool.name;
  return {
    name,
    dir: '',
    root: '',
    source: 'shared',
    skillType: 'handler',
    execType: 'MCP',
    version: '0.0.0',
    skillMdPath: null,
    doc: '',
    frontmatter: {
      name,
      description,
      triggerType: 'explicit',
      tags: ['mcp', binding.server],
      async: false,
      // The server's own hints (MCP tool annotations): a read-only or idempotent tool may run again after a crash.
      idempotent: tool.annotations?.readOnlyHint === true || tool.annotations?.idempotentHint === true,
      forceRawPrompt: false,
      skillType: 'handler',
      timeoutSec,
      requires: { env: [], bins: [] },
      raw: { mcp_server: binding.server, mcp_tool: tool.name },
    },
    inputSchema,
    schemaSource: 'code',
    subcommands: null,
    secretParams: detectSecretParams(inputSchema),
    status: 'ok',
    issues: [],
    mcp: binding,
  };
}
