/**
 * What the chat tools `create_skill` / `edit_skill` need from the running platform (issue 10
 * item 3; spec 003 §安装预检; R-PRE-06..09): where role skills live, the registry to refuse
 * names of built-in/shared/market skills, and the live skill set's reload so a written skill
 * is callable in the very next turn.
 *
 * The executor builds one per call from its {@link SkillServices} and the runtime context
 * carries it as the in-process-only key `lifecycle` (never serialised, like `messaging`).
 */
import type { SkillServices } from '../executor/run-skill.ts';
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
 * The authoring services of a gateway or CLI process: the data dir from the settings,
 * `services.registry` read at call time (the gateway replaces it after a reload), and the
 * live skill set's reload when `services.lifecycle` is set (none in a one-shot CLI run).
 */
export function authoringServicesFor(services: Pick<SkillServices, 'registry' | 'settings' | 'lifecycle'>): AuthoringServices {
  const lifecycle = services.lifecycle;
  return {
    dataDir: services.settings.dataDir,
    registry: () => services.registry,
    ...(lifecycle ? { reload: (reason: string) => lifecycle.reload(reason) } : {}),
  };
}

/** The authoring services of a runtime context, or undefined (a subprocess, a bare harness). */
export function authoringOf(ctx: Record<string, unknown> | undefined): AuthoringServices | undefined {
  const a = ctx?.[AUTHORING_CTX_KEY] as Partial<AuthoringServices> | undefined;
  return a && typeof a === 'object' && typeof a.dataDir === 'string' && a.dataDir !== '' && typeof a.registry === 'function' ? (a as AuthoringServices) : undefined;
}
