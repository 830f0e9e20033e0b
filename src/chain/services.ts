/**
 * Wiring shared by the chain CLI commands, the HTTP routes and schedules: the registry with
 * the saved chains, validation against it, and saving after validation.
 */
import type { SkillServices } from '../executor/skill-call.ts';
import type { Registry } from '../registry/discover.ts';
import type { Queryable } from '../store/db.ts';
import type { ChainDocument } from './document.ts';
import { registryWithChains } from './skill.ts';
import { listChains, saveChain, type StoredChain } from './store.ts';
import { validateChain, type ChainProblem } from './validate.ts';

/** The base registry plus the enabled saved chains, and the names of all saved chains. */
export async function chainAwareRegistry(db: Queryable, base: Registry): Promise<{ registry: Registry; chainNames: Set<string> }> {
  const chains = await listChains(db);
  return { registry: registryWithChains(base, chains), chainNames: new Set(chains.map((c) => c.name)) };
}

/** Services whose registry also holds the saved chains. */
export async function withChainRegistry<S extends Pick<SkillServices, 'db' | 'registry'>>(services: S): Promise<S> {
  const { registry } = await chainAwareRegistry(services.db, services.registry);
  return { ...services, registry };
}

/** Outcome of {@link validateAndSave}. */
export type SaveOutcome = { ok: true; chain: StoredChain } | { ok: false; problems: ChainProblem[] };

/**
 * Validate `doc` against the skills and saved chains, then save it.
 * Re-saving an existing chain under its own name is allowed.
 */
export async function validateAndSave(db: Queryable, base: Registry, doc: unknown): Promise<SaveOutcome> {
  const { registry, chainNames } = await chainAwareRegistry(db, base);
  const name = (doc as { name?: unknown })?.name;
  const others = new Set([...chainNames].filter((n) => n !== name));
  const problems = validateChain(doc, { registry, chainNames: others });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, chain: await saveChain(db, doc as ChainDocument) };
}
