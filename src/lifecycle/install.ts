/**
 * Installing a skill package, a zip file or a folder
 * (R-PRE-01, R-PRE-06): unpack safely into a hidden staging folder next to the target, refuse
 * path escapes (`..`, absolute, backslash entries), symbolic links (zip entries with a link
 * mode; links in a folder that point outside it), and packages over the caps; unwrap a single
 * top folder; preflight in install mode (problems are warnings); then move the skill into
 * `<data>/skills/<name>/` (shared) or `<data>/role-skills/<role>/<name>/` atomically (rename),
 * replacing an earlier install at that place but never a skill of another root (built-in,
 * SKILLGATE_SKILL_DIRS, another role).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, lstat, mkdir, readdir, realpath, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createRequire } from 'node:module';
import type yauzlType from 'yauzl';
import { isSkillFolder, type Registry } from '../registry/discover.ts';
import { loadSkill } from '../registry/load-skill.ts';
import { confine, isInside } from '../registry/paths.ts';
import { preflight } from '../registry/preflight.ts';
import { SHARED_SKILLS_DIR } from './build.ts';
import { ensureRoleDir, ROLE_ID_RE, roleSkillsDir, SKILL_NAME_RE } from './role-paths.ts';
import type { InstallResult } from './types.ts';

/** Caps of one package: total uncompressed bytes, number of files, bytes per file. */
export interface InstallCaps {
  totalBytes: number;
  files: number;
  fileBytes: number;
}

/** Default caps: 50 MB unpacked, 500 files, 20 MB per file. */
export const INSTALL_CAPS: Readonly<InstallCaps> = { totalBytes: 50 * 1024 * 1024, files: 500, fileBytes: 20 * 1024 * 1024 };

/** A refusal with a bilingual message (zh-CN first). */
export class InstallRefusal extends Error {}

const refuse = (zh: string, en: string): never => {
  throw new InstallRefusal(`${zh} / ${en}`);
};

/** Options of {@link installPackage}. */
export interface InstallOptions {
  dataDir: string;
  /** Install as a skill of this role; else shared. */
  roleId?: string;
  /** The current registry (name clashes with other roots are refused). */
  registry: Registry;
  caps?: Partial<InstallCaps>;
}

/** Counts bytes and files against the caps. */
class Budget {
  files = 0;
  bytes = 0;
  constructor(private caps: InstallCaps) {}
  file(name: string, size: number): void {
    if (++this.files > this.caps.files)
      refuse(`文件数量超过上限 ${this.caps.files}（在 "${name}" 处）`, `more than ${this.caps.files} files (at "${name}")`);
    if (size > this.caps.fileBytes)
      refuse(
        `文件 "${name}" 超过单个文件上限 ${this.caps.fileBytes} 字节`,
        `file "${name}" is over the per-file cap of ${this.caps.fileBytes} bytes`,
      );
    this.bytes += size;
    if (this.bytes > this.caps.totalBytes)
      refuse(
        `解压后总大小超过上限 ${this.caps.totalBytes} 字节（在 "${name}" 处）`,
        `unpacked size over the cap of ${this.caps.totalBytes} bytes (at "${name}")`,
      );
  }
}

/** Unpack the zip `file` into the empty folder `dest`. */
async function unzipInto(file: string, dest: string, budget: Budget): Promise<void> {
  // yauzl is loaded at the first archive install, not by every start (docs/performance.md "Start-up").
  const yauzl = createRequire(import.meta.url)('yauzl') as typeof yauzlType;
  let zip: yauzlType.ZipFile;
  try {
    zip = await yauzl.openPromise(file, { strictFileNames: true, validateEntrySizes: true, decodeStrings: true });
  } catch (err) {
    return refuse(`无法读取压缩包：${(err as Error).message}`, `cannot read the zip: ${(err as Error).message}`);
  }
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
      if (mode === 0o120000) refuse(`压缩包条目 "${name}" 是符号链接，拒绝安装`, `zip entry "${name}" is a symbolic link`);
      const rel = name.replace(/\/+$/, '');
      if (rel === '') continue;
      const target = confine(dest, rel);
      if (target === null) refuse(`压缩包条目 "${name}" 的路径越出安装目录`, `zip entry "${name}" escapes the target folder`);
      if (name.endsWith('/')) {
        await mkdir(target!, { recursive: true });
        continue;
      }
      budget.file(name, entry.uncompressedSize);
      await mkdir(dirname(target!), { recursive: true });
      const stream = await zip.openReadStreamPromise(entry);
      let seen = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          seen += chunk.length;
          cb(seen > entry.uncompressedSize ? new Error(`entry "${name}" is larger than declared`) : null, chunk);
        },
      });
      // Only the executable bit is kept from the entry's mode (scripts of SHELL/RUBY skills).
      const exec = ((entry.externalFileAttributes >>> 16) & 0o111) !== 0;
      await pipeline(stream, cap, createWriteStream(target!, { flags: 'wx', mode: exec ? 0o755 : 0o644 }));
    }
  } catch (err) {
    if (err instanceof InstallRefusal) throw err;
    const msg = (err as Error).message;
    // yauzl validates names itself: "invalid relative path: ../evil", "absolute path: /x".
    return refuse(`压缩包条目不安全或已损坏：${msg}`, `unsafe or corrupt zip entry: ${msg}`);
  } finally {
    zip.close();
  }
}

/** Copy the folder `src` into `dest`: links must stay inside `src` (their content is copied). */
async function copyFolder(src: string, dest: string, budget: Budget): Promise<void> {
  const realSrc = await realpath(src);
  const walk = async (from: string, to: string, rel: string): Promise<void> => {
    await mkdir(to, { recursive: true });
    for (const ent of (await readdir(from, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (ent.name === '.git') continue;
      const p = join(from, ent.name);
      const r = rel + ent.name;
      let st = await lstat(p);
      if (st.isSymbolicLink()) {
        const real = await realpath(p).catch(() => null);
        if (real === null || !isInside(realSrc, real))
          refuse(`"${r}" 是指向目录之外的符号链接，拒绝安装`, `"${r}" is a symbolic link pointing outside the folder`);
        st = await stat(p);
        if (st.isDirectory()) refuse(`"${r}" 是指向目录的符号链接，拒绝安装`, `"${r}" is a symbolic link to a folder`);
      }
      if (st.isDirectory()) await walk(p, join(to, ent.name), r + '/');
      else if (st.isFile()) {
        budget.file(r, st.size);
        await copyFile(p, join(to, ent.name));
      }
    }
  };
  await walk(src, dest, '');
}

/** The folder holding the skill inside the unpacked `dir`: `dir`, or its single top folder. */
async function unwrap(dir: string): Promise<string> {
  if (await isSkillFolder(dir)) return dir;
  const ents = (await readdir(dir, { withFileTypes: true })).filter((e) => !e.name.startsWith('.') && e.name !== '__MACOSX');
  if (ents.length === 1 && ents[0]!.isDirectory()) return join(dir, ents[0]!.name);
  return dir;
}

/**
 * Install the zip file or folder `source`.
 * @returns `{ok: true, skill, dir, warnings}` or `{ok: false, error, warnings}`; never throws
 *   for a bad package.
 */
export async function installPackage(sourceArg: string, opts: InstallOptions): Promise<InstallResult> {
  const source = resolve(sourceArg);
  const caps = { ...INSTALL_CAPS, ...opts.caps };
  let staging: string | undefined;
  // A role folder this call creates is removed again when the install fails (nothing left behind).
  let newRoleDir: string | undefined;
  let installed = false;
  try {
    if (opts.roleId !== undefined && !ROLE_ID_RE.test(opts.roleId))
      refuse(`角色名 "${opts.roleId}" 不合法`, `invalid role id "${opts.roleId}"`);
    if (opts.roleId !== undefined) {
      const dir = roleSkillsDir(opts.dataDir, opts.roleId);
      if (
        !(await lstat(dir).then(
          () => true,
          () => false,
        ))
      )
        newRoleDir = dir;
    }
    const root = opts.roleId !== undefined ? await ensureRoleDir(opts.dataDir, opts.roleId) : join(opts.dataDir, SHARED_SKILLS_DIR);
    if (root === null) return refuse('角色技能目录是符号链接或不在数据目录内', 'the role skill folder is a link or outside the data dir');
    await mkdir(root, { recursive: true });
    const st = await stat(source).catch(() => null);
    if (!st) return refuse(`找不到 "${source}"`, `"${source}" does not exist`);
    staging = join(root, `.install-${randomBytes(6).toString('hex')}`);
    const unpacked = join(staging, 'pkg');
    await mkdir(unpacked, { recursive: true });
    const budget = new Budget(caps);
    if (st.isDirectory()) {
      const [realSource, realRoot] = await Promise.all([realpath(source), realpath(root)]);
      if (isInside(realSource, realRoot) || isInside(realRoot, realSource)) {
        refuse('不能从技能目录本身安装', 'cannot install from inside a skill root (or a folder holding it)');
      }
      await copyFolder(source, unpacked, budget);
    } else await unzipInto(source, unpacked, budget);
    const inner = await unwrap(unpacked);
    if (!(await isSkillFolder(inner)))
      refuse(
        '包里没有技能（需要 SKILL.md、skill.toml 或 handler 文件）',
        'the package holds no skill (SKILL.md, skill.toml or a handler file)',
      );
    // The folder name: the package's top folder, else the zip / folder name.
    const fallback = inner !== unpacked ? basename(inner) : basename(source, extname(source));
    let named = join(staging, 'named', fallback);
    await mkdir(dirname(named), { recursive: true });
    await rename(inner, named);
    const rec = await loadSkill(named, { dir: dirname(named), source: opts.roleId ? 'role' : 'shared' });
    const name = rec.name;
    if (!SKILL_NAME_RE.test(name))
      refuse(`技能名 "${name}" 不合法（只能用小写字母、数字、_ 和 -）`, `skill name "${name}" is invalid (a-z, 0-9, _ and -)`);
    if (name !== fallback) {
      const renamed = join(staging, 'named', name);
      await rename(named, renamed);
      named = renamed;
    }
    const final = join(root, name);
    const existing = opts.registry.get(name);
    if (existing && existing.dir !== final) {
      refuse(
        `已有同名技能 "${name}"（来源 ${existing.source}，${existing.dir}），不能替换`,
        `a ${existing.source} skill named "${name}" exists (${existing.dir}); it is never replaced`,
      );
    }
    const warnings = await preflight(named, { mode: 'install' });
    if (warnings.some((w) => w.code === 'dir.unreadable')) refuse('技能目录无法读取', 'the skill folder cannot be read');
    // Atomic switch: an earlier install moves aside, the new folder takes its name.
    const old = join(staging, 'old');
    const hadOld = await stat(final).then(
      () => true,
      () => false,
    );
    if (hadOld) await rename(final, old);
    await rename(named, final);
    installed = true;
    return { ok: true, skill: name, dir: final, warnings };
  } catch (err) {
    if (err instanceof InstallRefusal) return { ok: false, warnings: [], error: err.message };
    return { ok: false, warnings: [], error: `安装失败：${(err as Error).message} / install failed: ${(err as Error).message}` };
  } finally {
    if (staging) await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    // rmdir removes only an empty folder: a concurrent install's files are never touched.
    if (newRoleDir && !installed) await rmdir(newRoleDir).catch(() => undefined);
  }
}
