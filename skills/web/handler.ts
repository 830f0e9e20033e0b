/**
 * The built-in `web` skill: a single-use web chat sign-in link for the person asking
 * (src/orchestration/web-signin.ts; docs/web-protocol.md "Sign-in links").
 */
import { runWebSigninRequest } from '../../src/orchestration/web-signin.ts';

export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return runWebSigninRequest(input_data, runtime_context);
}
