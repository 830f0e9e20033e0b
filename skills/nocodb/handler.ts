/**
 * `nocodb`: the historical name of the datatable entry (D-18), kept as an alias
 * of the same handler so skills probing ["datatable", "nocodb"] succeed at once. Confirmation
 * tokens are bound to the skill name `datatable` either way.
 */
import { runDatatable } from '../../src/datatable/index.ts';

export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return runDatatable(input_data, runtime_context);
}
