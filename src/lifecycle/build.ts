/**
 * Incremental discovery for the live skill set items 1 and 4; R-LOAD-04: the roots
 * in order (built-in, SKILLGATE_SKILL_DIRS, `<data>/skills/`, every `<data>/role-skills/<role>/`),
 * each skill folder fingerprinted (paths, sizes, mtimes) so an unchanged folder keeps its
 * record and only changed ones are loaded again. A changed folder whose new version is broken
 * keeps its last good record (`keptLastGood`); a role skill never shadows a built-in or shared
 * name (docs/skill-authoring.md: earlier roots win, the role skill is flagged).
 *
 * The last good in-process handler keeps answering even when it was never called before the
 * broken edit: with `preloadHandlers`, each good (re)load of a non-built-in
 * in-process handler imports it at once ({@link preloadHandlerModule}) and remembers the
 * version imported; a later broken edit pins that cached module. A new version that passes the
 * static checks but does not import (a top-level throw, an unresolvable import) is a broken
 * edit too (`handler.load_failed`), and so is a top-level `process.exit` (run under the exit
 * guard, A-04). An import slower than PRELOAD_TIMEOUT_MS is not waited for (no pin then).
 * A gateway defers the first build's imports until it listens (`deferFirstPreload`).
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isSkillFolder, loadSkill, makeRegistry, type Registry, type RegistryIssue, type SkillRoot } from '../registry/discover.ts';
import type { SkillRecord } from '../registry/types.ts';
import { runGuarded } from '../executor/exit-guard.ts';
import { pinHandlerVersion, preloadHandlerModule } from '../executor/module-loader.ts';
import { ROLE_ID_RE, ROLE_SKILLS_DIR } from './role-paths.ts';
import type { ReloadReport } from './types.ts';

/** Folder under the data dir holding installed shared skills. */
export const SHARED_SKILLS_DIR = 'skills';
/** Fingerprint bounds: deepest level walked below a skill folder, and entries counted. */
const FP_MAX_DEPTH = 4;
const FP_MAX_ENTRIES = 1000;

/** A root with the owner role of its skills (role roots). */
export interface LiveRoot extends SkillRoot {
  ownerRole?: string;
  /** A data-dir root that need not exist (no `registry.root_missing` warning). */
  optional?: boolean;
}

/** What the builder remembers of one skill folder between reloads. */
interface FolderState {
  fp: string;
  /** The record served (the last good one when `kept`). */
  rec: SkillRecord;
  /** Issues of a broken newer version while the last good record keeps serving. */
  kept?: RegistryIssue[];
  /** `mtime-size` of the entry file when `rec` was loaded (handler pinning). */
  entryVersion?: string;
}

/** The roots of a data dir after the configured ones (role roots: one per valid, non-link folder). */
export async function liveRoots(dataDir: string, configured: readonly SkillRoot[]): Promise<LiveRoot[]> {
  const roots: LiveRoot[] = configured.map((r) => ({ dir: resolve(r.dir), source: r.source }));
  roots.push({ dir: join(dataDir, SHARED_SKILLS_DIR), source: 'shared', optional: true });
  const roleBase = join(dataDir, ROLE_SKILLS_DIR);
  let names: string[] = [];
  try {
    names = (await readdir(roleBase)).sort();
  } catch {
    /* no role skills yet */
  }
  for (const n of names) {
    if (!ROLE_ID_RE.test(n)) continue;
    const st = await lstat(join(roleBase, n)).catch(() => null);
    if (st?.isDirectory()) roots.push({ dir: join(roleBase, n), source: 'role', ownerRole: n, optional: true });
  }
  return roots;
}

/** Skill folders directly under `root` (sorted); null when the root cannot be read. */
async function skillFolders(root: string): Promise<string[] | null> {
  let names: string[];
  try {
    names = (await readdir(root)).filter((n) => !n.startsWith('.') && n !== 'node_modules').sort();
  } catch {
    return null;
  }
  const out: string[] = [];
  for (const n of names) {
    const p = join(root, n);
    const st = await stat(p).catch(() => null);
    if (st?.isDirectory() && (await isSkillFolder(p))) out.push(p);
  }
  return out;
}

/** A cheap fingerprint of a folder: relative path, size and mtime of its entries (bounded walk). */
export async function fingerprint(dir: string): Promise<string> {
  const h = createHash('sha1');
  let count = 0;
  const walk = async (d: string, rel: string, depth: number): Promise<void> => {
    let ents;
    try {
      ents = (await readdir(d, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
    } catch {
      return;
    }
    for (const e of ents) {
      if (e.name.startsWith('.') || e.name === 'node_modules' || e.name === '__pycache__' || ++count > FP_MAX_ENTRIES) continue;
      const p = join(d, e.name);
      const st = await stat(p).catch(() => null);
      if (!st) continue;
      h.update(`${rel}${e.name}\0${st.size}\0${Math.trunc(st.mtimeMs)}\n`);
      if (st.isDirectory() && depth < FP_MAX_DEPTH) await walk(p, `${rel}${e.name}/`, depth + 1);
    }
  };
  await walk(dir, '', 0);
  return h.digest('hex');
}

const noop = (): void => undefined;

async function entryVersion(rec: SkillRecord): Promise<string | undefined> {
  if (!rec.entryFile) return undefined;
  const st = await stat(rec.entryFile).catch(() => null);
  return st ? `${Math.trunc(st.mtimeMs)}-${st.size}` : undefined;
}

/** Result of one {@link SkillSetBuilder.build}. */
export interface BuildResult {
  registry: Registry;
  report: ReloadReport;
  /** Issues of broken newer versions by skill name (kept last good). */
  kept: ReadonlyMap<string, RegistryIssue[]>;
}

/** Options of {@link SkillSetBuilder}. */
export interface BuilderOptions {
  /**
   * Import each good non-built-in in-process handler when it is (re)loaded, so a broken edit
   * can always fall back to it (default false; a long-running gateway sets it, one-shot CLI
   * commands do not). The handler's top-level code then runs at load time, not at first call.
   */
  preloadHandlers?: boolean;
  /**
   * With `preloadHandlers`: the first build does not import its handlers itself; they are
   * imported by {@link SkillSetBuilder.preloadDeferred} (a gateway calls it once it listens, so
   * its start waits neither for tsx nor for the handlers' top-level code). Any later build runs
   * them first, so a broken edit still finds the first version cached.
   */
  deferFirstPreload?: boolean;
}

/** Keeps folder state between builds; `build` is not re-entrant (the lifecycle serialises it). */
export class SkillSetBuilder {
  private folders = new Map<string, FolderState>();
  private served = new Map<string, SkillRecord>();
  /** First-load preloads not started yet (`deferFirstPreload`), and those started. */
  private deferred: Array<() => Promise<void>> = [];
  private preloading: Promise<unknown> = Promise.resolve();
  /** True until {@link preloadDeferred} first runs: only the first build defers. */
  private deferring: boolean;
  private builds = 0;

  constructor(private readonly opts: BuilderOptions = {}) {
    this.deferring = opts.deferFirstPreload === true;
  }

  /**
   * Import the handlers whose preload the first build deferred (`deferFirstPreload`); resolves
   * when every import started so far settled. Never rejects: a handler that does not load is
   * served as is and its call reports the error, as when the preload runs inside the build.
   */
  preloadDeferred(): Promise<void> {
    this.deferring = false;
    const tasks = this.deferred.splice(0);
    this.preloading = Promise.all([this.preloading, ...tasks.map((t) => t())]);
    return this.preloading.then(() => undefined);
  }

  /** Forget the deferred preloads not started yet (the lifecycle closes). */
  dropDeferred(): void {
    this.deferred = [];
  }

  /** Re-discover `roots` (see the module comment). */
  async build(roots: readonly LiveRoot[]): Promise<BuildResult> {
    if (this.builds++ > 0) await this.preloadDeferred();
    const issues: RegistryIssue[] = [];
    const report: ReloadReport = { added: [], changed: [], removed: [], keptLastGood: [] };
    const next = new Map<string, FolderState>();
    const records: SkillRecord[] = [];
    const byName = new Map<string, SkillRecord>();
    const kept = new Map<string, RegistryIssue[]>();
    for (const root of roots) {
      const folders = await skillFolders(root.dir);
      if (folders === null) {
        if (!root.optional)
          issues.push({
            severity: 'warning',
            code: 'registry.root_missing',
            message: `skill root ${root.dir} cannot be read`,
            dir: root.dir,
          });
        continue;
      }
      // Folders of one root load side by side (as discoverSkills does); order is kept.
      const states = await Promise.all(
        folders.map((dir) =>
          this.load(dir, root, report).catch((e: unknown) => {
            issues.push({
              severity: 'error',
              code: 'registry.load_failed',
              message: `cannot load: ${(e as Error)?.message ?? String(e)}`,
              dir,
            });
            return null;
          }),
        ),
      );
      for (const [i, dir] of folders.entries()) {
        const state = states[i];
        if (!state) continue;
        next.set(dir, state);
        const rec = state.rec;
        if (state.kept) {
          kept.set(rec.name, state.kept);
          issues.push(...state.kept);
        }
        const first = byName.get(rec.name);
        if (first) {
          const shadow = root.source === 'role' && first.source !== 'role';
          issues.push({
            severity: shadow ? 'error' : 'warning',
            code: shadow ? 'lifecycle.role_shadows' : 'registry.name_clash',
            message: shadow
              ? `role skill "${rec.name}" in ${rec.dir} is ignored: a role skill may not replace the ${first.source} skill of that name (${first.dir})`
              : `skill "${rec.name}" in ${rec.dir} is ignored: the name is already registered by ${first.dir}`,
            dir: rec.dir,
            skill: rec.name,
          });
          continue;
        }
        byName.set(rec.name, rec);
        records.push(rec);
      }
    }
    for (const [name, rec] of byName) {
      const before = this.served.get(name);
      if (!before) report.added.push(name);
      else if (before !== rec) report.changed.push(name);
    }
    for (const name of this.served.keys()) if (!byName.has(name)) report.removed.push(name);
    for (const [dir, s] of this.folders) if (!next.has(dir) && s.rec.entryFile) pinHandlerVersion(s.rec.entryFile, undefined);
    this.folders = next;
    this.served = byName;
    return { registry: makeRegistry(records, issues), report, kept };
  }

  /** The state of folder `dir`: unchanged, freshly loaded, or the last good record kept. */
  private async load(dir: string, root: LiveRoot, report: ReloadReport): Promise<FolderState> {
    const fp = await fingerprint(dir);
    const old = this.folders.get(dir);
    if (old && old.fp === fp) return old;
    let rec: SkillRecord;
    try {
      rec = await loadSkill(dir, root);
    } catch (e) {
      const issue = {
        severity: 'error' as const,
        code: 'registry.load_failed',
        message: `cannot load: ${(e as Error)?.message ?? String(e)}`,
      };
      if (old && old.rec.status === 'ok') return this.keep(old, fp, [{ ...issue, dir, skill: old.rec.name }], report);
      throw e;
    }
    if (root.ownerRole !== undefined) rec.ownerRole = root.ownerRole;
    if (rec.status === 'broken' && old && old.rec.status === 'ok' && old.rec.name === rec.name) {
      return this.keep(
        old,
        fp,
        rec.issues.map((i) => ({ ...i, dir, skill: rec.name })),
        report,
      );
    }
    let version: string | undefined;
    if (this.opts.preloadHandlers && root.source !== 'builtin' && rec.status === 'ok' && rec.execType === 'IN_PROCESS' && rec.entryFile) {
      if (!old && this.deferring) {
        const file = rec.entryFile;
        pinHandlerVersion(file, undefined);
        this.deferred.push(() => runGuarded({}, () => preloadHandlerModule(file)).then(noop, noop));
        return { fp, rec, entryVersion: await entryVersion(rec) };
      }
      try {
        // Under the exit guard: a top-level process.exit fails the import, not the gateway.
        const file = rec.entryFile;
        version = await runGuarded({}, () => preloadHandlerModule(file));
      } catch (e) {
        const message = `handler does not load: ${(e as Error)?.message ?? String(e)}`.slice(0, 2000);
        if (old && old.rec.status === 'ok' && old.rec.name === rec.name) {
          return this.keep(old, fp, [{ severity: 'error', code: 'handler.load_failed', message, dir, skill: rec.name }], report);
        }
        // Nothing good to fall back to: served as is; a call reports the load error.
      }
    }
    if (rec.entryFile) pinHandlerVersion(rec.entryFile, undefined);
    return { fp, rec, entryVersion: version ?? (await entryVersion(rec)) };
  }

  private keep(old: FolderState, fp: string, problems: RegistryIssue[], report: ReloadReport): FolderState {
    report.keptLastGood.push({
      skill: old.rec.name,
      dir: old.rec.dir,
      issues: problems.map(({ severity, code, message }) => ({ severity, code, message })),
    });
    // The last good handler module keeps serving when it was loaded before (module-loader pin).
    if (old.rec.entryFile && old.entryVersion) pinHandlerVersion(old.rec.entryFile, old.entryVersion);
    return { ...old, fp, kept: problems };
  }
}
