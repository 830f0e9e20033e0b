/**
 * The built-in `send_message` skill (R-MSG-02..08, A-49): a thin entry over
 * src/orchestration/send-message.ts.
 */
import { runSendMessage } from '../../src/orchestration/send-message.ts';

export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return runSendMessage(input_data, runtime_context);
}
