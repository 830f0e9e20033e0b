/**
 * The payload a confirmation button carries on every channel (docs/messaging.md): `<option>:<token>`
 * (`confirm:tok_…`, `cancel:tok_…`). Adapters write it with {@link buttonPayload} (then shorten it
 * through src/channel/callback-payloads.ts when the platform's limit is smaller) and read a press
 * back with {@link parseButtonPayload}.
 */

/** `confirm:<token>` / `cancel:<token>`. */
export function buttonPayload(option: string, token: string): string {
  return `${option}:${token}`;
}

/** Split a pressed button's payload: action before the first `:`, token after (null when none). */
export function parseButtonPayload(data: string): { action: string; token: string | null } {
  const i = data.indexOf(':');
  if (i <= 0) return { action: data, token: null };
  return { action: data.slice(0, i), token: data.slice(i + 1) || null };
}
