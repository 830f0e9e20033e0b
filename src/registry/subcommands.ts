/**
 * Sub-commands (`cli_commands`): where they are declared, when a skill fans out into
 * `<skill>__<sub>` tools, and how a tool name is restored to skill + sub-command.
 *
 * Source: docs/skill-authoring.md. Requirement ids: R-SUBCMD-01, R-SUBCMD-02,
 * R-SUBCMD-03, A-03.
 */
import type { JsonSchema, SkillIssue } from './types.ts';

/** Largest number of sub-commands that still fans out (R-SUBCMD-01). */
export const MAX_FANOUT = 45;
/** Separator between skill and sub-command in a fanned-out tool name (R-SUBCMD-01). */
export const TOOL_NAME_SEPARATOR = '__';
/** Input key carrying the sub-command into the skill (R-SUBCMD-03, A-03). */
export const SUBCOMMAND_KEY = '_subcommand';

/**
 * Choose the declared sub-commands: SKILL.md frontmatter `cli_commands` first, then
 * schema.json `x-cli-commands`, then a code constant. Null when none declares any.
 * A warning is added when the frontmatter and schema.json both declare them.
 */
export function chooseSubcommands(
  fromFrontmatter: Record<string, JsonSchema> | undefined,
  fromSchema: { cliCommands?: Record<string, JsonSchema>; cliCommandsSource?: 'schema.json' | 'code' },
  issues: SkillIssue[],
): Record<string, JsonSchema> | null {
  if (fromFrontmatter) {
    if (fromSchema.cliCommandsSource === 'schema.json')
      issues.push({
        severity: 'warning',
        code: 'subcommands.twice',
        message: 'cli_commands is declared in both SKILL.md and schema.json (x-cli-commands); the frontmatter wins',
      });
    return fromFrontmatter;
  }
  return fromSchema.cliCommands ?? null;
}

/** True when a skill with these sub-commands fans out: 1..45 entries (R-SUBCMD-01/02). */
export function fansOut(subcommands: Record<string, JsonSchema> | null): boolean {
  const n = subcommands ? Object.keys(subcommands).length : 0;
  return n >= 1 && n <= MAX_FANOUT;
}

/** True when the single tool needs a `_subcommand` enum: 46 or more entries. */
export function needsSubcommandEnum(subcommands: Record<string, JsonSchema> | null): boolean {
  return subcommands !== null && Object.keys(subcommands).length > MAX_FANOUT;
}

/** `<skill>__<sub>` (R-SUBCMD-01). */
export function subcommandToolName(skill: string, sub: string): string {
  return `${skill}${TOOL_NAME_SEPARATOR}${sub}`;
}

/**
 * Copy of `schema` with a required string property `_subcommand` whose enum lists `names`
 * (A-03, for skills with ≥46 sub-commands).
 */
export function withSubcommandEnum(schema: JsonSchema, names: readonly string[]): JsonSchema {
  const props = typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => r !== SUBCOMMAND_KEY) : [];
  return {
    ...schema,
    properties: {
      [SUBCOMMAND_KEY]: { type: 'string', enum: [...names], description: 'Sub-command to run' },
      ...(props as Record<string, unknown>),
    },
    required: [SUBCOMMAND_KEY, ...required],
  };
}

/** A tool name restored to its skill and sub-command (R-SUBCMD-03). */
export interface ResolvedToolName {
  skill: string;
  subcommand?: string;
}

/**
 * Restore a tool name to `{skill, subcommand?}` (R-SUBCMD-03).
 *
 * Without `isSkill`, a name containing `__` is split at its first `__`. With `isSkill` (e.g.
 * `name => registry.get(name) !== undefined`), a name that is itself a skill is returned
 * whole, else the first split whose left part is a skill is used, else the name is returned
 * whole — so a skill named `a__b` is not mistaken for skill `a` + sub-command `b`.
 */
export function resolveToolName(name: string, isSkill?: (skill: string) => boolean): ResolvedToolName {
  if (isSkill?.(name)) return { skill: name };
  let at = name.indexOf(TOOL_NAME_SEPARATOR);
  while (at > 0) {
    const skill = name.slice(0, at);
    const subcommand = name.slice(at + TOOL_NAME_SEPARATOR.length);
    if (subcommand !== '' && (!isSkill || isSkill(skill))) return { skill, subcommand };
    at = name.indexOf(TOOL_NAME_SEPARATOR, at + 1);
  }
  return { skill: name };
}
