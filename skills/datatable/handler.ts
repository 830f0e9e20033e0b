/**
 * The built-in `datatable` skill: a thin entry over the gateway's own
 * implementation in src/datatable/ (R-DT-01, R-DT-02).
 */
import { runDatatable } from '../../src/datatable/index.ts';

export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return runDatatable(input_data, runtime_context);
}
