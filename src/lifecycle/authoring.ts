/**
 * What the chat tools `create_skill` / `edit_skill` need from the running platform
 * (R-PRE-06..09): where role skills live, the registry to refuse
 * names of built-in/shared/market skills, and the live skill set's reload so a written skill
 * is callable in the very next turn.
 *
 * The wiring composes {@link authoringPart} into the skill call; the runtime context of a
 * built-in skill carries it as the in-process-only key `lifecycle` (never serialised).
 */
import type { ContextPart } from '../executor/skill-call.ts';
import type { Registry } from '../registry/discover.ts';
import type { ReloadReport } from './types.ts';

/** The runtime_context key that carries {@link AuthoringServices} (in process only). */
export const AUTHORING_CTX_KEY = 'lifecycle';

/** The platform side of create_skill / edit_skill. */
export interface AuthoringServices {
  /** The data dir: role skills live in `<dataDir>/role-skills/<role>/<name>/`. */
  dataDir: string;
  /**
   * The registry the turn uses, as it is now (chains included): used to refuse names
   * of built-in, shared and market skills and of another role's skills (R-PRE-09), and to
   * describe the written skill after the reload.
   */
  registry(): Pick<Registry, 'get' | 'tools'>;
  /**
   * Re-discover the skills so the change is live; absent when nothing serves skills live
   * (a one-shot `skill run`): the files are written and the next process sees them.
   */
  reload?(reason: string): Promise<ReloadReport | void>;
}

/**
 * The authoring services of a gateway or CLI process: the data dir, the registry read at call
 * time (a live view in the gateway), and the live skill set's reload when there is one (none
 * in a one-shot CLI run).
 */
export function authoringServicesFor(deps: {
  dataDir: string;
  registry: () => Pick<Registry, 'get' | 'tools'>;
  reload?: (reason: string) => Promise<ReloadReport | void>;
}): AuthoringServices {
  return { dataDir: deps.dataDir, registry: deps.registry, ...(deps.reload ? { reload: deps.reload } : {}) };
}

/** The context part that gives built-in skills (create_skill / edit_skill) their `lifecycle` key. */
export function authoringPart(services: AuthoringServices): ContextPart {
  return (frame) => (frame.skill.source === 'builtin' ? { lifecycle: services } : {});
}

/** The authoring services of a runtime context, or undefined (a subprocess, a bare harness). */
export function authoringOf(ctx: Record<string, unknown> | undefined): AuthoringServices | undefined {
  const a = ctx?.[AUTHORING_CTX_KEY] as Partial<AuthoringServices> | undefined;
  return a && typeof a === 'object' && typeof a.dataDir === 'string' && a.dataDir !== '' && typeof a.registry === 'function'
    ? (a as AuthoringServices)
    : undefined;
}
