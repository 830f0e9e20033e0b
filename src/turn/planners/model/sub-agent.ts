/**
 * `skill_md` skills as isolated sub-agents (R-FORM-03, R-LOAD-11, R-LOAD-12):
 * a fresh conversation whose instructions are the skill's SKILL.md (the head, at most
 * {@link SKILL_MD_HEAD} characters), with the role's tools (the skill itself left out) plus
 * `read_skill_file` for the skill's own files. Its final answer is the skill's result:
 * `{success: true, result: <answer>}`. It shares the turn's failure budget.
 */
import type { Envelope } from '../../../envelope/types.ts';
import { ModelCallError } from './client.ts';
import { converse, type LocalHandler, type TurnRun } from './conversation.ts';
import { FILE_READ_TOOL, READ_SKILL_FILE, READ_SKILL_FILE_TOOL, readSkillFile } from './local-tools.ts';
import { subAgentSystemPrompt } from './prompt.ts';

/** Characters of SKILL.md a sub-agent receives; the tail beyond is cut (R-LOAD-11). */
export const SKILL_MD_HEAD = 8000;
/** Deepest sub-agent nesting (a document skill may call one more document skill). */
export const MAX_DEPTH = 2;

/** The head of a document: at most `max` characters (code points kept whole). */
export function docHead(doc: string, max = SKILL_MD_HEAD): { text: string; truncated: boolean } {
  const points = [...doc];
  return points.length <= max ? { text: doc, truncated: false } : { text: points.slice(0, max).join(''), truncated: true };
}

/**
 * Run the `skill_md` skill behind `tool` with `args` as a sub-agent.
 * @returns the skill's envelope: success with the answer as `result`; a failure when the
 *   sub-agent could not finish (model unavailable, budget spent, too deep).
 */
export async function runDocumentSkill(run: TurnRun, tool: string, args: Record<string, unknown>, depth: number): Promise<Envelope> {
  const record = run.registry.resolveTool(tool)?.record;
  if (record?.skillType !== 'skill_md') {
    return { success: false, error: `"${tool}" is not a document skill`, error_type: 'recoverable', artifacts: [] };
  }
  if (depth > MAX_DEPTH) {
    return {
      success: false,
      error: `document skills nest at most ${MAX_DEPTH} deep; answer without "${record.name}"`,
      error_type: 'recoverable',
      non_retriable: true,
      artifacts: [],
    };
  }
  const head = docHead(record.doc);
  const own = (name: string): boolean => name === record.name || name.startsWith(`${record.name}__`);
  const tools = [...run.turn.tools.filter((t) => !own(t.function.name)), READ_SKILL_FILE_TOOL, FILE_READ_TOOL];
  const local = new Map<string, LocalHandler>([[READ_SKILL_FILE, (a) => readSkillFile(record.dir, a)]]);
  const messages = [
    {
      role: 'system' as const,
      content: subAgentSystemPrompt({
        skill: record.name,
        instructions: head.text,
        truncated: head.truncated,
        lang: run.turn.lang,
        now: run.now().toISOString(),
        materials: run.turn.materials,
      }),
    },
    { role: 'user' as const, content: `Input of this call (JSON): ${JSON.stringify(args)}\n\nThe user's message: ${run.turn.raw_input}` },
  ];
  try {
    const end = await converse(run, { messages, tools, local, depth });
    if (end.stop) {
      return {
        success: false,
        error: `the document skill "${record.name}" stopped before finishing (${end.stop})`,
        error_type: 'transient',
        artifacts: [],
      };
    }
    return { success: true, result: end.text, artifacts: [] };
  } catch (err) {
    if (err instanceof ModelCallError) {
      run.log.warn({ skill: record.name, status: err.status }, 'sub-agent model call failed');
      return {
        success: false,
        error: `the document skill "${record.name}" could not reach the model: ${err.message}`,
        error_type: 'transient',
        artifacts: [],
      };
    }
    throw err;
  }
}
