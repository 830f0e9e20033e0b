export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  return { success: true };
}
