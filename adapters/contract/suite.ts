/**
 * `describeAdapterContract(opts)`: the one call that registers the whole adapter contract suite
 * for a channel, once per database engine. See docs/adapter-authoring.md.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { registerGoldenCases } from './golden.ts';
import { openBed, type Bed } from './harness.ts';
import { registerInboundChecks } from './inbound-checks.ts';
import { registerOutboundChecks } from './outbound-checks.ts';
import { registerSuggestionChecks } from './suggestion-checks.ts';
import { registerFuzz } from './fuzz.ts';
import type { AdapterContractOptions } from './types.ts';

/**
 * Register the contract suite of one adapter: for each of `opts.databases`, a `describe` block
 * `adapter contract: <channel> [<db>]` with a fresh fake platform, migrated database, fake clock
 * and adapter, containing:
 * - one test per golden case in `opts.casesDir` (`*.inbound.json`, `*.outbound.json`);
 * - verification: missing / altered signing headers → 401 with nothing reaching the host or the
 *   platform, unparseable body → 400, ignored event types → 2xx, the replay window (when the
 *   platform signs a timestamp), the declared handshakes;
 * - dedup: one event delivered 5 times concurrently → exactly one `accepted` (real inbox);
 * - the bot's own and other bots' messages ignored; group mention gating (`/cmd@ourbot` counts);
 * - outbound: chunking after rendering in the platform's unit (surrogate pairs, fences, no empty
 *   chunk, never a throw), plain-text retry on rejected formatting, media upload then send with a
 *   Unicode file name, button payloads within the limit and resolved on the press, 429 honoured
 *   and bounded, every failure surfaced as `{ok:false, retryable, error}`;
 * - attachments in with a Unicode file name (when `opts.attachments`);
 * - fuzz: ≥1000 mutated inbound payloads → only 2xx/4xx, no throw, no unhandled rejection.
 * Call it at the top level of a `*.test.ts` file.
 */
export function describeAdapterContract(opts: AdapterContractOptions): void {
  for (const database of opts.databases) {
    describe(`adapter contract: ${opts.channel} [${database.name}]`, () => {
      let bed: Bed | undefined;
      beforeAll(async () => {
        bed = await openBed(opts, () => database.open());
      });
      afterAll(async () => {
        await bed?.close();
      });
      const get = (): Bed => {
        if (!bed) throw new Error('contract bed not open yet');
        return bed;
      };
      describe('golden cases', () => registerGoldenCases(opts, get));
      describe('inbound rules', () => registerInboundChecks(opts, get));
      describe('outbound rules', () => registerOutboundChecks(opts, get));
      describe('suggestions', () => registerSuggestionChecks(opts, get));
      describe('fuzz', () => registerFuzz(opts, get));
    });
  }
}
