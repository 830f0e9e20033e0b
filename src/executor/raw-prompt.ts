/**
 * `force_raw_prompt`: the user's own words replace the model's paraphrase of the prompt field.
 *
 * Requirement ids: R-RAW-01, R-RAW-02, R-RAW-03, A-12.
 */
import { SUBCOMMAND_KEY } from '../registry/subcommands.ts';
import type { JsonSchema, SkillRecord } from '../registry/types.ts';

/** Options of {@link applyForceRawPrompt}. */
export interface RawPromptOptions {
  /**
   * True for delegated invocations — `call_skill`, chain / workflow / schedule steps, async
   * replays — where the value was produced upstream, not typed by the user (R-RAW-02, A-12).
   */
  delegated: boolean;
  /**
   * The schema the call validates against (a sub-command's, from `resolveSubcommandInput`);
   * default `skill.inputSchema`.
   */
  schema?: JsonSchema;
}

/**
 * The field `force_raw_prompt` overwrites: the first string entry of the schema's `required`
 * skipping the platform's `_subcommand`; undefined when there is none.
 */
export function rawPromptField(schema: JsonSchema): string | undefined {
  const required = Array.isArray(schema.required) ? schema.required : [];
  return required.find((r): r is string => typeof r === 'string' && r !== SUBCOMMAND_KEY);
}

/**
 * Apply `force_raw_prompt` (R-RAW-01..03, A-12): when the skill's frontmatter sets it, the call
 * is not delegated and `rawInput` is not empty (after trimming), the first required field of
 * the schema is set to `rawInput` (as given, untrimmed). Default false: no overwrite; a schema
 * without `required` entries: no overwrite.
 * @returns a new object in every case; `input` is never modified.
 */
export function applyForceRawPrompt(
  skill: SkillRecord,
  input: Record<string, unknown>,
  rawInput: string,
  opts: RawPromptOptions,
): Record<string, unknown> {
  const out = { ...input };
  if (!skill.frontmatter.forceRawPrompt || opts.delegated) return out;
  if (typeof rawInput !== 'string' || rawInput.trim() === '') return out;
  const field = rawPromptField(opts.schema ?? skill.inputSchema);
  if (field !== undefined) out[field] = rawInput;
  return out;
}
