/**
 * The skill registry: discovery, SKILL.md frontmatter, schemas,
 * the tool list a model sees, and the pre-execution `requires` check.
 * docs/skill-authoring.md.
 */
export type * from './types.ts';
export {
  discoverSkills,
  makeRegistry,
  isSkillFolder,
  SKILL_MARKERS,
  type Registry,
  type RegistryIssue,
  type DiscoverOptions,
} from './discover.ts';
export { loadSkill, type SkillRoot, type LoadOptions } from './load-skill.ts';
export { splitSkillMd, readFrontmatter, parseTags, type ParsedSkillMd } from './frontmatter.ts';
export { readSkillToml, type SkillToml } from './skill-toml.ts';
export { locateSkillMd, type LocateOptions, type LocateResult, type LocateStep } from './locate.ts';
export { SECRET_SUBSTRINGS, isSecretName, detectSecretParams } from './secrets.ts';
export { normalizeSchema, loadInputSchema, providerSchema, stripExtensions, type LoadedSchema } from './schema.ts';
export {
  resolveToolName,
  subcommandToolName,
  fansOut,
  MAX_FANOUT,
  SUBCOMMAND_KEY,
  TOOL_NAME_SEPARATOR,
  type ResolvedToolName,
} from './subcommands.ts';
export { buildTools, skillTools, isExposed, toolDescription, type ToolOptions } from './tools.ts';
export { checkRequires, whichSync, needsConfigMessage, type NeedsConfigEnvelope, type RequiresContext } from './requires.ts';
export { HANDLER_FILES, TOML_EXEC_TYPES, type Inspector } from './exec-type.ts';
