/** A minimal in-memory SkillRecord for executor tests. */
import type { JsonSchema, SkillRecord } from '../../src/registry/types.ts';

/** A loaded-looking handler skill with the given schema, sub-commands and frontmatter flags. */
export function makeSkill(opts: {
  name?: string;
  inputSchema?: JsonSchema;
  subcommands?: Record<string, JsonSchema> | null;
  forceRawPrompt?: boolean;
}): SkillRecord {
  const name = opts.name ?? 'demo';
  return {
    name,
    dir: `/skills/${name}`,
    root: '/skills',
    source: 'shared',
    skillType: 'handler',
    execType: 'IN_PROCESS',
    version: '1.0.0',
    skillMdPath: null,
    doc: '',
    frontmatter: {
      name,
      description: 'demo skill',
      triggerType: 'explicit',
      tags: [],
      async: false,
      idempotent: false,
      forceRawPrompt: opts.forceRawPrompt ?? false,
      requires: { env: [], bins: [] },
      raw: {},
    },
    inputSchema: opts.inputSchema ?? { type: 'object', properties: {} },
    schemaSource: 'schema.json',
    subcommands: opts.subcommands ?? null,
    secretParams: [],
    status: 'ok',
    issues: [],
  };
}
