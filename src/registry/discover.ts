/**
 * Discovering skills under ordered roots and the {@link Registry} they form.
 *
 * Source: docs/skill-authoring.md (built-in `skills/` first, then `SKILLGATE_SKILL_DIRS`), §4.
 * Requirement ids: R-LOAD-01, R-LOAD-05, R-LOAD-14, R-SUBCMD-03, D-14.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { HANDLER_FILES } from './exec-type.ts';
import { asyncCalleeIssues } from './async-callees.ts';
import { loadSkill, type LoadOptions, type SkillRoot } from './load-skill.ts';
import { locateSkillMd } from './locate.ts';
import { resolveToolName, type ResolvedToolName } from './subcommands.ts';
import { buildTools, type ToolOptions } from './tools.ts';
import type { ModelTool, SkillIssue, SkillRecord } from './types.ts';

export { loadSkill, type SkillRoot, type LoadOptions } from './load-skill.ts';

/** Files whose presence makes a folder a skill. */
export const SKILL_MARKERS: readonly string[] = ['SKILL.md', 'skill.md', 'README.md', 'skill.toml', ...HANDLER_FILES];

/** An issue with the folder (and registered name) it belongs to. */
export interface RegistryIssue extends SkillIssue {
  /** Absolute skill folder, or the root for root-level problems. */
  dir: string;
  /** Registered skill name, when known. */
  skill?: string;
}

/** The skills found under the roots, by registered name. */
export interface Registry {
  /** Every registered skill (broken ones included), roots in order, folders sorted by name. */
  all(): SkillRecord[];
  /** The skill registered under `name` (possibly broken: callers check `status`). */
  get(name: string): SkillRecord | undefined;
  /**
   * The model-facing tools (README.md "The skillgate command"). `skills`: a role's enabled names, or `"*"`
   * (default) for every skill.
   */
  tools(filter?: { skills?: readonly string[] | '*' }): ModelTool[];
  /** A tool name → registered skill + sub-command (R-SUBCMD-03), or undefined when unknown (frozen; resolved once per name). */
  resolveTool(toolName: string): (ResolvedToolName & { record: SkillRecord }) | undefined;
  /** Every skill's issues plus discovery problems (missing roots, name clashes). */
  issues(): RegistryIssue[];
}

/** True for folder names discovery skips: hidden folders and node_modules. */
function ignored(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * True when `dir` holds one of {@link SKILL_MARKERS} (as a file), or a SKILL.md is found for it
 * under `optional-skills/` or `docs/` (R-LOAD-02 steps 3–4, A-02; OpenClaw / Hermes layouts).
 */
export async function isSkillFolder(dir: string): Promise<boolean> {
  return (await hasMarker(dir)) || (await locateSkillMd(dir)).path !== null;
}

async function hasMarker(dir: string): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return false;
  }
  for (const marker of SKILL_MARKERS) {
    if (!entries.includes(marker)) continue;
    try {
      if ((await stat(join(dir, marker))).isFile()) return true;
    } catch {
      /* dangling link: not a marker */
    }
  }
  return false;
}

/** Skill folders directly under `root` (sorted by folder name); null when the root is unreadable. */
async function skillFolders(root: string): Promise<string[] | null> {
  let names: string[];
  try {
    names = (await readdir(root)).filter((n) => !ignored(n)).sort();
  } catch {
    return null;
  }
  const checks = await Promise.all(
    names.map(async (n) => {
      const p = join(root, n);
      return (await isDir(p)) && (await isSkillFolder(p)) ? p : null;
    }),
  );
  return checks.filter((p): p is string => p !== null);
}

/** Options of {@link discoverSkills}. */
export type DiscoverOptions = LoadOptions;

/**
 * Discover every skill under `roots`, in order (docs/skill-authoring.md). A root that does not exist
 * is a warning; an earlier root (or an earlier folder of the same root) wins a name clash and
 * the loser is reported (`registry.name_clash`) and dropped; a bad skill never stops discovery.
 */
export async function discoverSkills(roots: readonly SkillRoot[], opts: DiscoverOptions = {}): Promise<Registry> {
  const rootIssues: RegistryIssue[] = [];
  const records: SkillRecord[] = [];
  const byName = new Map<string, SkillRecord>();
  for (const root of roots) {
    const rootDir = resolve(root.dir);
    const folders = await skillFolders(rootDir);
    if (folders === null) {
      rootIssues.push({
        severity: 'warning',
        code: 'registry.root_missing',
        message: `skill root ${rootDir} cannot be read`,
        dir: rootDir,
      });
      continue;
    }
    const loaded = await Promise.all(
      folders.map((f) =>
        loadSkill(f, root, opts).catch((e: unknown) => {
          rootIssues.push({
            severity: 'error',
            code: 'registry.load_failed',
            message: `cannot load: ${(e as Error)?.message ?? String(e)}`,
            dir: f,
          });
          return null;
        }),
      ),
    );
    for (const rec of loaded) {
      if (rec === null) continue;
      const first = byName.get(rec.name);
      if (first) {
        rootIssues.push({
          severity: 'warning',
          code: 'registry.name_clash',
          message: `skill "${rec.name}" in ${rec.dir} is ignored: the name is already registered by ${first.dir}`,
          dir: rec.dir,
          skill: rec.name,
        });
        continue;
      }
      byName.set(rec.name, rec);
      records.push(rec);
    }
  }
  return makeRegistry(records, rootIssues, opts);
}

/** How many tool names one registry keeps resolved. */
const RESOLVED_TOOLS_MAX = 4096;
/** Tool lists kept per registry (one per distinct skill filter: a role's list). */
const TOOL_LISTS_MAX = 256;

/** Build a {@link Registry} over already loaded records (order kept; names must be unique). */
export function makeRegistry(
  records: readonly SkillRecord[],
  extraIssues: readonly RegistryIssue[] = [],
  opts: Pick<ToolOptions, 'secretSubstrings'> = {},
): Registry {
  const byName = new Map(records.map((r) => [r.name, r]));
  // Cross-skill lint (R-CALL-16), read from the handler files on first use.
  let lint: Map<string, SkillIssue[]> | undefined;
  type Resolved = ResolvedToolName & { record: SkillRecord };
  const resolveTool = (toolName: string): Resolved | undefined => {
    const resolved = resolveToolName(toolName, (n) => byName.has(n));
    const record = byName.get(resolved.skill);
    if (!record) return undefined;
    if (resolved.subcommand !== undefined && !(record.subcommands && resolved.subcommand in record.subcommands)) return undefined;
    return Object.freeze({ ...resolved, record });
  };
  // The records never change after this point: each tool name is resolved once (null: unknown).
  const resolvedTools = new Map<string, Resolved | null>();
  const toolLists = new Map<string, ModelTool[]>();
  return {
    all: () => [...records],
    get: (name) => byName.get(name),
    tools(filter = {}) {
      // The records never change (a reload makes a new registry): one list per filter, copied out.
      const skills = filter.skills ?? '*';
      const key = skills === '*' ? '*' : skills.join('\u0000');
      let list = toolLists.get(key);
      if (!list) {
        list = buildTools(records, { skills, secretSubstrings: opts.secretSubstrings });
        if (toolLists.size < TOOL_LISTS_MAX) toolLists.set(key, list);
      }
      return [...list];
    },
    resolveTool(toolName) {
      const hit = resolvedTools.get(toolName);
      if (hit !== undefined) return hit ?? undefined;
      const resolved = resolveTool(toolName);
      // Bounded: names the model makes up are answered, not all kept.
      if (resolvedTools.size < RESOLVED_TOOLS_MAX) resolvedTools.set(toolName, resolved ?? null);
      return resolved;
    },
    issues: () => {
      lint ??= asyncCalleeIssues(records);
      return [
        ...records.flatMap((r) => [...r.issues, ...(lint!.get(r.name) ?? [])].map((i) => ({ ...i, dir: r.dir, skill: r.name }))),
        ...extraIssues,
      ];
    },
  };
}
