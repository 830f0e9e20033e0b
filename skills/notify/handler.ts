/**
 * The built-in `notify` skill (R-MSG-01..08): a thin entry over src/orchestration/notify.ts.
 */
import { runNotify } from '../../src/orchestration/notify.ts';

export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return runNotify(input_data, runtime_context);
}
