/**
 * A skill-call request from a loose context map over line defaults, read by the one parser
 * the loose boundaries use (`callFromContext`, src/executor/request.ts): tests write the
 * keys a `--context` would carry.
 */
import type { ChainRunRequest } from '../../src/chain/skill.ts';
import { callFromContext, type LineDefaults, type RunSkillRequest } from '../../src/executor/request.ts';

/** A request as `skill run` builds it from `given` (the `--context` keys) and `defaults`. */
export function looseRequest(
  r: Omit<RunSkillRequest, 'actor' | 'origin' | 'session' | 'extras'> & { given?: Record<string, unknown>; defaults: LineDefaults },
): RunSkillRequest {
  const { given, defaults, ...rest } = r;
  return { ...rest, ...callFromContext(given ?? {}, defaults) };
}

/** A chain run request as `chain run` builds it from `given` (the `--context` keys) and `defaults`. */
export function looseChainRequest(
  r: Omit<ChainRunRequest, 'actor' | 'origin' | 'session' | 'extras'> & { given?: Record<string, unknown>; defaults: LineDefaults },
): ChainRunRequest {
  const { given, defaults, ...rest } = r;
  return { ...rest, ...callFromContext(given ?? {}, defaults) };
}

/** What a test adds to a loose chain run: the chain request's options and the `--context` keys. */
export type LooseChainExtra = Partial<Omit<ChainRunRequest, 'doc' | 'actor' | 'origin' | 'session' | 'extras'>> & {
  given?: Record<string, unknown>;
};
