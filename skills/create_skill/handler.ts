/**
 * The built-in `create_skill` tool (R-PRE-06, R-PRE-08,
 * R-PRE-09): a thin entry over src/lifecycle/chat-tools.ts.
 */
import { runCreateSkill } from '../../src/lifecycle/chat-tools.ts';

export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return runCreateSkill(input_data, runtime_context);
}
