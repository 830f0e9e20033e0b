/**
 * Example in-process skill: a slow task that honours the user's stop (R-WALL-05).
 * It waits one second at a time and checks `abort_signal`; when stopped it returns what was
 * done so far instead of failing.
 */
function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve) => {
    // The abort listener goes when the second is over: one per second would pile up on the signal.
    const onAbort = (): void => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Count `input_data.seconds` (1–600, required: schema.json and this check agree, R-SCH-06).
 * @returns `{seconds, completed, stopped, message, user_message}`; a missing or non-numeric
 *   `seconds` → `{success: false, error_type: "recoverable", need_param: "seconds"}`
 */
export async function execute(
  input_data: { seconds?: number },
  runtime_context: { abort_signal?: AbortSignal | null; report_progress?: (note: string) => void },
): Promise<Record<string, unknown>> {
  const asked = Number(input_data.seconds);
  if (input_data.seconds === undefined || input_data.seconds === null || !Number.isFinite(asked)) {
    return {
      success: false,
      error: 'seconds is required: a number of seconds from 1 to 600',
      error_type: 'recoverable',
      need_param: 'seconds',
      user_message: '请给出倒计时秒数（1–600），例如 /countdown seconds=10。',
    };
  }
  const total = Math.max(1, Math.min(600, Math.floor(asked)));
  const signal = runtime_context.abort_signal ?? null;
  let done = 0;
  while (done < total && !signal?.aborted) {
    await sleep(1000, signal);
    if (!signal?.aborted) {
      done++;
      // a progress line for the person waiting (the web page's status line, typing elsewhere)
      if (done < total) runtime_context.report_progress?.(`倒计时：${done}/${total} 秒`);
    }
  }
  const stopped = done < total;
  return {
    seconds: total,
    completed: done,
    stopped,
    message: stopped ? `stopped after ${done} of ${total} seconds` : `counted ${total} seconds`,
    user_message: stopped ? `已停止：完成了 ${done}/${total} 秒。` : `倒计时 ${total} 秒完成。`,
  };
}
