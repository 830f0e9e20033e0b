/**
 * The live skill set of a gateway items 1, 2, 4: {@link createSkillLifecycle}
 * implements {@link SkillLifecycle} over
 * - the configured roots (built-in `skills/`, SKILLGATE_SKILL_DIRS),
 * - `<data>/skills/` (installed shared skills, source `shared`),
 * - every `<data>/role-skills/<role>/` (source `role`, `ownerRole` = the folder name);
 * with the per-role scope of `./scope.ts` (config `skills:` + console overrides + own skills),
 * hot reload (`./watch.ts`, debounce `SKILLGATE_SKILL_RELOAD_MS`; a broken edit keeps the last
 * good version, `./build.ts`) and install (`./install.ts`); plus the tools of the configured
 * MCP servers (`src/mcp/`, docs/mcp.md), which never shadow a skill on disk.
 *
 * Overrides are cached in memory; on a server database they are re-read every
 * {@link OVERRIDE_REFRESH_MS} so replicas agree within that period.
 * Source: docs/skill-authoring.md. R-LOAD-04, R-PRE-06.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigFile } from '../config/file.ts';
import type { Settings } from '../config/settings.ts';
import type { Logger } from '../log/logger.ts';
import type { Registry, RegistryIssue } from '../registry/discover.ts';
import { buildTools } from '../registry/tools.ts';
import type { SkillRecord } from '../registry/types.ts';
import type { SkillRoot } from '../registry/load-skill.ts';
import type { Db } from '../store/db.ts';
import { SHARED_SKILLS_DIR, SkillSetBuilder, liveRoots, type LiveRoot } from './build.ts';
import { createEnablementStore, type EnablementStore } from './enablement.ts';
import { installPackage } from './install.ts';
import { ROLE_SKILLS_DIR } from './role-paths.ts';
import { enabledFor, isOwnedRoleSkill, scopeNames } from './scope.ts';
import type { InstallResult, ReloadReport, RoleSkillState, SkillLifecycle } from './types.ts';
import { reloadMsFromEnv, watchSkillRoots, type SkillWatcher } from './watch.ts';
import { createMcpSource, type McpSkillSource } from '../mcp/source.ts';

/** How often a server-database gateway re-reads the console's overrides (ms). */
export const OVERRIDE_REFRESH_MS = 10_000;

/** Options of {@link createSkillLifecycle}. */
export interface LifecycleOptions {
  /** The database of the console's overrides; absent (a CLI without a database) → no overrides, `setEnabled` throws. */
  db?: Db;
  settings: Pick<Settings, 'dataDir' | 'skillRoots'>;
  config: ConfigFile;
  log: Logger;
  /** Watch the roots (default true; the CLI passes false). */
  watch?: boolean;
  /** Debounce of the watcher (ms); default `SKILLGATE_SKILL_RELOAD_MS` or 1000; 0 = no watching. */
  reloadMs?: number;
  /** Environment for `SKILLGATE_SKILL_RELOAD_MS` (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * The registry `skillsFor` enumerates (default {@link SkillLifecycle.registry}); the gateway
   * passes its chain-aware registry so saved chains are scoped like shared skills.
   */
  scopeRegistry?: () => Registry;
  /** The MCP servers' skills (default: from `config.mcp_servers`); tests pass their own. */
  mcp?: McpSkillSource;
  /**
   * The first discovery's handler imports wait for {@link LiveSkillLifecycle.preloadDeferred}
   * (default false: they run during it); the gateway calls that once it listens.
   */
  deferFirstPreload?: boolean;
}

/** The disk registry plus the MCP records whose names are free (a clash is a warning). */
function withMcp(disk: Registry, mcp: McpSkillSource | undefined): Registry {
  if (!mcp) return disk;
  const clashes: RegistryIssue[] = [];
  const extra = new Map<string, SkillRecord>();
  for (const rec of mcp.records()) {
    if (disk.get(rec.name)) {
      clashes.push({
        severity: 'warning',
        code: 'registry.name_clash',
        message: `MCP skill "${rec.name}" is ignored: a skill on disk has this name`,
        dir: '',
        skill: rec.name,
      });
    } else extra.set(rec.name, rec);
  }
  if (extra.size === 0 && clashes.length === 0) return disk;
  const records = [...extra.values()];
  return {
    all: () => [...disk.all(), ...records],
    get: (name) => disk.get(name) ?? extra.get(name),
    tools: (filter = {}) => [...disk.tools(filter), ...buildTools(records, { skills: filter.skills ?? '*' })],
    resolveTool: (name) => {
      const rec = extra.get(name);
      return rec ? { skill: name, record: rec } : disk.resolveTool(name);
    },
    issues: () => [...disk.issues(), ...clashes, ...mcp.issues()],
  };
}

/** The store of a lifecycle without a database: no overrides. */
function noOverrides(): EnablementStore {
  const empty = new Map();
  return {
    current: () => empty,
    refresh: async () => empty,
    set: async () => {
      throw new Error('skill enablement needs the database');
    },
  };
}

/**
 * The refusal of an install for a role that `skillgate.config.yaml` does not configure (zh-CN /
 * en, one text for the CLI and the console; fresh-user test).
 */
export function unknownRoleMessage(roleId: string, config: ConfigFile): string {
  const ids = config.roles.map((r) => r.id).join(', ');
  return `未知角色 "${roleId}"（已配置：${ids}）/ unknown role "${roleId}" (roles: ${ids})`;
}

/** A role's `skills:` as written (`*` and names may stand together), undefined for an unknown role. */
function roleList(config: ConfigFile, roleId: string): readonly string[] | undefined {
  return config.roles.find((r) => r.id === roleId)?.skills;
}

/** The lifecycle plus helpers the gateway and CLI use. */
export interface LiveSkillLifecycle extends SkillLifecycle {
  /** Problems of broken newer versions whose last good version serves, by skill. */
  keptIssues(skill: string): RegistryIssue[];
  /**
   * Import the handlers whose preload the first discovery deferred (`deferFirstPreload`);
   * resolves once they settled, never rejects (a handler that does not load reports it when called).
   */
  preloadDeferred(): Promise<void>;
}

/**
 * Create the live skill set: discover every root once, read the overrides, start watching.
 * @throws when the overrides table cannot be read (migrations not applied).
 */
export async function createSkillLifecycle(opts: LifecycleOptions): Promise<LiveSkillLifecycle> {
  const { db, settings, config, log } = opts;
  const dataDir = settings.dataDir;
  const configured: SkillRoot[] = settings.skillRoots;
  if (opts.watch !== false) {
    // Watched from the start, so the first install or role skill is seen.
    await mkdir(join(dataDir, SHARED_SKILLS_DIR), { recursive: true }).catch(() => undefined);
    await mkdir(join(dataDir, ROLE_SKILLS_DIR), { recursive: true }).catch(() => undefined);
  }

  // A long-running gateway imports good handlers as they load, so a broken edit always falls
  // back to a cached module (build.ts); a one-shot CLI lifecycle (watch false) does not.
  const builder = new SkillSetBuilder({ preloadHandlers: opts.watch !== false, deferFirstPreload: opts.deferFirstPreload === true });
  const store: EnablementStore = db ? createEnablementStore(db) : noOverrides();
  await store.refresh();
  let roots: LiveRoot[] = await liveRoots(dataDir, configured);
  let built = await builder.build(roots);
  // MCP servers (docs/mcp.md): a one-shot CLI waits for their first listing (each bounded by
  // its timeout_sec); a gateway connects in the background and reconnects after a loss.
  const mcp =
    opts.mcp ??
    (config.mcp_servers?.length ? createMcpSource(config.mcp_servers, { log, autoReconnect: opts.watch !== false }) : undefined);
  if (mcp && opts.watch === false) await mcp.ready();
  let composed = withMcp(built.registry, mcp);
  const listeners: Array<(r: ReloadReport) => void | Promise<void>> = [];
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const doReload = async (reason: string): Promise<ReloadReport> => {
    roots = await liveRoots(dataDir, configured);
    built = await builder.build(roots);
    composed = withMcp(built.registry, mcp);
    const r = built.report;
    const changed = r.added.length + r.changed.length + r.removed.length + r.keptLastGood.length > 0;
    if (changed) {
      log.info({ reason, added: r.added, changed: r.changed, removed: r.removed }, 'skills reloaded');
      for (const k of r.keptLastGood) {
        log.warn(
          { skill: k.skill, dir: k.dir, issues: k.issues.map((i) => `${i.code}: ${i.message}`) },
          'skill edit is broken: the last good version keeps serving',
        );
      }
      await notify(r);
    }
    return r;
  };
  const notify = async (r: ReloadReport): Promise<void> => {
    for (const l of listeners) {
      try {
        await l(r);
      } catch (err) {
        log.warn({ err: (err as Error)?.message ?? String(err) }, 'skill reload listener failed');
      }
    }
  };
  // A server's tool list changed: recompose (in the reload queue) and tell the listeners.
  mcp?.onChange(() => {
    if (closed) return;
    queue = queue
      .then(async () => {
        const before = composed;
        composed = withMcp(built.registry, mcp);
        const names = new Set(composed.all().map((x) => x.name));
        const r: ReloadReport = {
          added: composed
            .all()
            .filter((x) => !before.get(x.name))
            .map((x) => x.name),
          changed: composed
            .all()
            .filter((x) => before.get(x.name) && before.get(x.name) !== x)
            .map((x) => x.name),
          removed: before
            .all()
            .filter((x) => !names.has(x.name))
            .map((x) => x.name),
          keptLastGood: [],
        };
        if (r.added.length + r.changed.length + r.removed.length === 0) return;
        log.info({ reason: 'mcp', added: r.added, changed: r.changed, removed: r.removed }, 'MCP skills changed');
        await notify(r);
      })
      .catch(() => undefined);
  });
  if (mcp && opts.watch !== false) void mcp.ready();
  const reload = (reason = 'request'): Promise<ReloadReport> => {
    const run = queue.then(() => doReload(reason));
    queue = run.catch(() => undefined);
    return run;
  };

  const reloadMs = opts.reloadMs ?? reloadMsFromEnv(opts.env ?? process.env);
  let watcher: SkillWatcher | undefined;
  if (opts.watch !== false && reloadMs > 0) {
    const dirs = [...configured.map((r) => r.dir), join(dataDir, SHARED_SKILLS_DIR), join(dataDir, ROLE_SKILLS_DIR)];
    watcher = watchSkillRoots(
      dirs,
      reloadMs,
      () => {
        if (!closed)
          reload('watch').catch((err: unknown) => log.warn({ err: (err as Error)?.message ?? String(err) }, 'skill reload failed'));
      },
      log,
    );
  }
  const refreshTimer =
    db?.engine === 'server' && opts.watch !== false
      ? setInterval(
          () => void store.refresh().catch((err: unknown) => log.warn({ err: (err as Error)?.message }, 'reading skill overrides failed')),
          OVERRIDE_REFRESH_MS,
        )
      : undefined;
  refreshTimer?.unref();

  let installs: Promise<unknown> = Promise.resolve();
  const installNow = async (source: string, roleId: string | undefined): Promise<InstallResult> => {
    if (roleId !== undefined && !config.roles.some((r) => r.id === roleId)) {
      return { ok: false, warnings: [], error: unknownRoleMessage(roleId, config) };
    }
    const result = await installPackage(source, { dataDir, roleId, registry: built.registry });
    if (!result.ok || !result.skill) return result;
    await reload('install');
    // Enable: a role skill for its owner; a shared one for the installing role when given,
    // else it follows each role's config list (`*` roles see it at once).
    if (roleId) await store.set(roleId, result.skill, true);
    const rec = built.registry.get(result.skill);
    if (!rec || rec.dir !== result.dir) {
      return {
        ...result,
        ok: false,
        error: `安装后未能注册技能 "${result.skill}"（名称可能与已有技能冲突）/ skill "${result.skill}" was copied but not registered (name clash?)`,
      };
    }
    return result;
  };

  const registry = (): Registry => composed;
  const scopeRegistry = opts.scopeRegistry ?? registry;

  return {
    registry,
    skillsFor: (roleId) => scopeNames(scopeRegistry().all(), roleId, roleList(config, roleId), store.current()),
    reload,
    async setEnabled(roleId, skill, enabled) {
      await store.set(roleId, skill, enabled);
    },
    async roleState(roleId): Promise<RoleSkillState[]> {
      await store.refresh();
      const list = roleList(config, roleId);
      const overrides = store.current();
      return scopeRegistry()
        .all()
        .filter((r) => !isOwnedRoleSkill(r) || r.ownerRole === roleId)
        .map((r) => ({
          skill: r.name,
          source: r.source,
          ...(r.ownerRole !== undefined ? { ownerRole: r.ownerRole } : {}),
          enabled: enabledFor(r, roleId, list, overrides),
          status: r.status,
          issues: [...r.issues, ...(built.kept.get(r.name) ?? []).map(({ severity, code, message }) => ({ severity, code, message }))],
          dir: r.dir,
        }));
    },
    install(source, o = {}): Promise<InstallResult> {
      // One install at a time: two installs of one name must not interleave their renames.
      const run = installs.then(() => installNow(source, o.roleId));
      installs = run.catch(() => undefined);
      return run;
    },
    onChange(listener) {
      listeners.push(listener);
    },
    preloadDeferred: () => (closed ? Promise.resolve() : builder.preloadDeferred()),
    async close() {
      closed = true;
      builder.dropDeferred();
      if (refreshTimer) clearInterval(refreshTimer);
      await watcher?.close();
      await mcp?.close();
      await queue;
    },
    keptIssues: (skill) => built.kept.get(skill) ?? [],
  };
}
