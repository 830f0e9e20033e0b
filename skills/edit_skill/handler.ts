/**
 * The built-in `edit_skill` tool (R-PRE-06, R-PRE-07,
 * R-PRE-09): a thin entry over src/lifecycle/chat-tools.ts.
 */
import { runEditSkill } from '../../src/lifecycle/chat-tools.ts';

export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return runEditSkill(input_data, runtime_context);
}
