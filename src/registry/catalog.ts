/**
 * The skill catalog of this process, for built-in skills that describe the platform itself
 * (`help` lists what a role can do). The gateway and the CLI publish their registry and role
 * configuration here once loaded; nothing else reads or writes it.
 */
import type { ConfigFile } from '../config/file.ts';
import { roleSkills } from '../config/file.ts';
import type { JsonSchema, ModelTool } from './types.ts';
import type { Registry } from './discover.ts';

interface Catalog {
  registry: Registry;
  config: ConfigFile;
  skillsFor?: (roleId: string) => readonly string[];
}

let current: Catalog | undefined;

/**
 * Publish the process's registry and configuration (the last call wins). `skillsFor`: the
 * live per-role scope (`SkillLifecycle.skillsFor`: config list, console overrides, the
 * role's own skills); without it the config `skills:` list decides.
 */
export function publishCatalog(registry: Registry, config: ConfigFile, skillsFor?: (roleId: string) => readonly string[]): void {
  current = { registry, config, skillsFor };
}

/**
 * The tools `roleId` may call, exactly as a model sees them (README.md "The skillgate command"), or undefined
 * when no catalog was published in this process. An unknown role sees every skill.
 */
export function catalogTools(roleId: string): ModelTool[] | undefined {
  if (!current) return undefined;
  return current.registry.tools({ skills: current.skillsFor?.(roleId) ?? roleSkills(current.config, roleId) ?? '*' });
}

/** The full input schema of `tool` (with `x-actions`, which the model-facing copy drops), if published. */
export function catalogSchema(tool: string): JsonSchema | undefined {
  return current?.registry.resolveTool(tool)?.record.inputSchema;
}
