/**
 * The model planner under the real turn (makeTurnHarness: real executor, real database, a
 * recording adapter) talking to a scripted OpenAI-compatible server over loopback.
 *
 * The harness needs the planner before its services exist, so the planner given to it
 * forwards to a ModelPlanner built right after. It also passes the adapter's display
 * capability as `PlannerTurn.display` when the turn does not (the one-line turn.ts wiring
 * this issue asks the lead for), and keeps every PlannerResult for assertions.
 */
import { fileURLToPath } from 'node:url';
import type { AdapterCapabilities } from '../../src/channel/types.ts';
import type { Db } from '../../src/store/db.ts';
import type { Planner, PlannerResult } from '../../src/turn/planner.ts';
import { ChatClient, ModelPlanner } from '../../src/turn/planners/model.ts';
import { makeTurnHarness, type TurnHarness } from '../turn/helpers.ts';
import type { FakeLlm } from './fake-llm.ts';

export const PLANNER_FIXTURES = fileURLToPath(new URL('../fixtures/planner/', import.meta.url));

/** The harness plus what the planner returned, turn by turn. */
export interface PlannerHarness extends TurnHarness {
  results: PlannerResult[];
  planner: ModelPlanner;
  /** Milliseconds the client was asked to sleep between retries. */
  sleeps: number[];
}

/** Build a turn harness whose planner is the model planner on `llm`. */
export async function plannerHarness(
  db: Db,
  llm: FakeLlm,
  opts: { capabilities?: Partial<AdapterCapabilities> } = {},
): Promise<PlannerHarness> {
  let inner: ModelPlanner | undefined;
  const results: PlannerResult[] = [];
  const sleeps: number[] = [];
  let display: 'rich' | 'text' = 'rich';
  const forward: Planner = {
    name: 'model',
    async handle(turn) {
      const r = await inner!.handle({ display, ...turn });
      results.push(r);
      return r;
    },
  };
  const h = await makeTurnHarness(db, {
    planner: forward,
    capabilities: opts.capabilities,
    skillRoots: [{ dir: PLANNER_FIXTURES, source: 'shared' }],
  });
  display = h.adapter.capabilities.display === 'text' ? 'text' : 'rich';
  const client = new ChatClient({
    baseUrl: llm.baseUrl,
    apiKey: 'sk-test-key',
    model: 'test-model',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  inner = new ModelPlanner({ client, services: h.services, roleId: 'default', now: () => new Date('2026-03-01T08:00:00Z') });
  return { ...h, results, planner: inner, sleeps };
}

/** Every outbound text of a turn, joined. */
export const textOf = (ms: { text: string }[]): string => ms.map((m) => m.text).join('\n');
