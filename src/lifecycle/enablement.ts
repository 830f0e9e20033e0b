/**
 * Per-role skill enablement overrides set in the console (docs/configuration.md
 * "the console can change it per role"): table `skillgate.role_skill_settings`
 * (migration 0014). A row beats the role's config `skills:` list for one skill.
 *
 * Cached in memory: {@link EnablementStore.refresh} reloads every row (the table is small:
 * roles × overridden skills). The lifecycle refreshes after each `set` and, on a server
 * database, on a timer so replicas converge within that period (no LISTEN needed).
 */
import type { Queryable } from '../store/db.ts';

/** role id → skill name → enabled. */
export type Overrides = ReadonlyMap<string, ReadonlyMap<string, boolean>>;

/** The cached overrides of every role. */
export interface EnablementStore {
  /** The overrides as last read (empty before the first {@link refresh}). */
  current(): Overrides;
  /** Read every row again. */
  refresh(): Promise<Overrides>;
  /** Upsert one override (then refresh). */
  set(roleId: string, skill: string, enabled: boolean): Promise<void>;
}

/** Read every override row of `db`. */
export async function readOverrides(db: Queryable): Promise<Map<string, Map<string, boolean>>> {
  const { rows } = await db.query<{ role_id: string; skill: string; enabled: boolean }>(
    'SELECT role_id, skill, enabled FROM skillgate.role_skill_settings',
  );
  const out = new Map<string, Map<string, boolean>>();
  for (const r of rows) {
    let m = out.get(r.role_id);
    if (!m) out.set(r.role_id, (m = new Map()));
    m.set(r.skill, r.enabled);
  }
  return out;
}

/** Upsert the override of `skill` for `roleId`. */
export async function writeOverride(db: Queryable, roleId: string, skill: string, enabled: boolean): Promise<void> {
  await db.query(
    `INSERT INTO skillgate.role_skill_settings (role_id, skill, enabled, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (role_id, skill) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
    [roleId, skill, enabled],
  );
}

/** An {@link EnablementStore} over `db`. */
export function createEnablementStore(db: Queryable): EnablementStore {
  let cache: Overrides = new Map();
  const refresh = async (): Promise<Overrides> => {
    cache = await readOverrides(db);
    return cache;
  };
  return {
    current: () => cache,
    refresh,
    async set(roleId, skill, enabled) {
      await writeOverride(db, roleId, skill, enabled);
      await refresh();
    },
  };
}
