/**
 * The shared state of the fixture skills in test/fixtures/async-req (see its README): per tag a
 * gate the test opens, a "started" mark and what the skill observed; the tick of `poll_ticks`.
 */
import { fileURLToPath } from 'node:url';

export const REQ_FIXTURES = fileURLToPath(new URL('../fixtures/async-req/', import.meta.url));

type ReqState = { gates: Record<string, Promise<void>>; started: Set<string>; seen: Record<string, unknown> };
type Ticks = { polls: number; tick?: () => void };
const g = globalThis as unknown as { __req?: ReqState; __ticks?: Ticks };

function state(): ReqState {
  return (g.__req ??= { gates: {}, started: new Set(), seen: {} });
}

/** Hold runs of `tag` until the returned function is called. */
export function gate(tag: string): () => void {
  let open!: () => void;
  state().gates[tag] = new Promise<void>((r) => (open = r));
  return open;
}

/** Whether a run of `tag` has started. */
export function started(tag: string): boolean {
  return state().started.has(tag);
}

/** What `bg_config` observed for `tag`. */
export function seen(tag: string): Record<string, unknown> | undefined {
  return state().seen[tag] as Record<string, unknown> | undefined;
}

/** The `poll_ticks` loop state (reset by {@link resetTicks}). */
export function ticks(): Ticks {
  return (g.__ticks ??= { polls: 0 });
}

/** Reset the `poll_ticks` state before a run. */
export function resetTicks(): void {
  g.__ticks = { polls: 0 };
}
