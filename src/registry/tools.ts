/**
 * The model-facing tool list (README.md "The skillgate command", OpenAI tools form).
 *
 * Requirement ids: R-FORM-02, R-FORM-03,
 * R-FORM-04, R-LOAD-05, R-LOAD-06, R-SCH-02, R-SUBCMD-01, R-SUBCMD-02, R-CFG-06, A-03, A-09.
 */
import { detectSecretParams, SECRET_SUBSTRINGS } from './secrets.ts';
import { providerSchema } from './schema.ts';
import { fansOut, needsSubcommandEnum, subcommandToolName, withSubcommandEnum } from './subcommands.ts';
import type { JsonSchema, ModelTool, SkillRecord, SkillType } from './types.ts';

/** Skill types a model can call (R-FORM-02/03; chains too). `knowledge` never (R-FORM-04). */
const CALLABLE_TYPES: readonly SkillType[] = ['handler', 'skill_md', 'chain'];

/** Options of {@link buildTools}. */
export interface ToolOptions {
  /** A role's enabled skill names, or `"*"` for every skill (default `"*"`). */
  skills?: readonly string[] | '*';
  /** Secret substrings (D-20); default {@link SECRET_SUBSTRINGS}. */
  secretSubstrings?: readonly string[];
}

/**
 * True when the skill may appear in a tool list: `status: 'ok'`, a callable skill type and
 * trigger type `explicit` (R-LOAD-05, compared case-insensitively).
 */
export function isExposed(skill: SkillRecord): boolean {
  return (
    skill.status === 'ok' && CALLABLE_TYPES.includes(skill.skillType) && skill.frontmatter.triggerType.trim().toLowerCase() === 'explicit'
  );
}

/** Tool description: `[category] description` when a category is set (R-LOAD-06). */
export function toolDescription(skill: SkillRecord, description = skill.frontmatter.description): string {
  const category = skill.frontmatter.category;
  return category ? `[${category}] ${description}` : description;
}

/**
 * The tools of one skill (empty when not exposed): one tool per sub-command `<skill>__<sub>`
 * for 1..45 sub-commands (R-SUBCMD-01), else one tool whose schema gains a required
 * `_subcommand` enum when there are 46 or more. Every schema is the provider copy:
 * secrets removed (R-CFG-06), `x-*` stripped, bare strings repaired (R-SCH-02).
 */
export function skillTools(skill: SkillRecord, substrings: readonly string[] = SECRET_SUBSTRINGS): ModelTool[] {
  // A record never changes once loaded (a reload makes new ones): its default tools are built once.
  if (substrings !== SECRET_SUBSTRINGS) return buildSkillTools(skill, substrings);
  let made = TOOLS_OF.get(skill);
  if (!made) TOOLS_OF.set(skill, (made = buildSkillTools(skill, substrings)));
  return [...made];
}

/** The default-substring tools of each loaded record (see {@link skillTools}). */
const TOOLS_OF = new WeakMap<SkillRecord, ModelTool[]>();

function buildSkillTools(skill: SkillRecord, substrings: readonly string[]): ModelTool[] {
  if (!isExposed(skill)) return [];
  const subs = skill.subcommands;
  if (subs && fansOut(subs)) {
    return Object.entries(subs).map(([sub, schema]) => {
      const secrets = [...new Set([...skill.secretParams, ...detectSecretParams(schema, substrings)])];
      const own = typeof schema.description === 'string' && schema.description.trim() !== '' ? schema.description.trim() : undefined;
      const description = own ?? (skill.frontmatter.description ? `${skill.frontmatter.description} (${sub})` : sub);
      return tool(subcommandToolName(skill.name, sub), toolDescription(skill, description), providerSchema(schema, secrets));
    });
  }
  let parameters = providerSchema(skill.inputSchema, skill.secretParams);
  if (subs && needsSubcommandEnum(subs)) parameters = withSubcommandEnum(parameters, Object.keys(subs));
  return [tool(skill.name, toolDescription(skill), parameters)];
}

function tool(name: string, description: string, parameters: JsonSchema): ModelTool {
  return { type: 'function', function: { name, description, parameters } };
}

/**
 * The model-facing tool list for `skills` in their given order, limited to a role's enabled
 * names (`opts.skills`, default `"*"`), in the OpenAI tools form (README.md "The skillgate command").
 */
export function buildTools(skills: readonly SkillRecord[], opts: ToolOptions = {}): ModelTool[] {
  const enabled = opts.skills ?? '*';
  const allowed = enabled === '*' || enabled.includes('*') ? null : new Set(enabled);
  return skills.filter((s) => allowed === null || allowed.has(s.name)).flatMap((s) => skillTools(s, opts.secretSubstrings));
}
