/**
 * Installing a skill package (R-PRE-01, R-PRE-06): hostile
 * zips and folders are refused with nothing written, caps hold, a good package installs with
 * its preflight problems as warnings, registers, and runs; a built-in is never replaced.
 */
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { installPackage } from '../../src/lifecycle/install.ts';
import type { Db } from '../../src/store/db.ts';
import { openEmbeddedDb } from '../../src/store/open.ts';
import { tempDataDir, tree } from './helpers.ts';
import { defaultsFor, makeZip, openHarness, skillFiles, TWO_ROLES, type Harness } from './live-helpers.ts';
import { looseRequest } from '../helpers/request.ts';

let db: Db;
let h: Harness;
let work: string;

beforeAll(async () => {
  db = await openEmbeddedDb();
  h = await openHarness(db);
  work = await tempDataDir();
});
afterAll(async () => {
  await h.close();
  await db.close();
});

/** Write `entries` as a zip under the work dir. */
async function zipFile(name: string, entries: Parameters<typeof makeZip>[0]): Promise<string> {
  const p = join(work, name);
  await writeFile(p, makeZip(entries));
  return p;
}

/** Every entry under the data dir's install roots (staging folders included). */
async function installed(): Promise<string[]> {
  return [...(await tree(join(h.dataDir, 'skills'))), ...(await tree(join(h.dataDir, 'role-skills')))];
}

describe('refused packages leave nothing behind', () => {
  it('R-PRE-01 a zip with a "../evil" entry is refused naming the entry; nothing is written outside (or inside)', async () => {
    const before = await readdir(tmpdir());
    const zip = await zipFile('evil.zip', [
      ...Object.entries(skillFiles('evil', '1')).map(([name, data]) => ({ name: `evil/${name}`, data })),
      { name: '../evil.txt', data: 'pwned' },
    ]);
    const r = await h.lifecycle.install(zip);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/\.\.\/evil\.txt/);
    expect(r.error).toMatch(/压缩包/);
    expect(await installed()).toEqual([]);
    expect((await readdir(tmpdir())).filter((n) => !before.includes(n) && n.includes('evil'))).toEqual([]);
    expect(await readdir(join(h.dataDir, '..'))).not.toContain('evil.txt');
  });

  it('R-PRE-01 absolute and backslash entries are refused', async () => {
    for (const bad of ['/tmp/abs.txt', 'x\\..\\..\\y.txt']) {
      const zip = await zipFile('bad.zip', [
        ...Object.entries(skillFiles('bad', '1')).map(([name, data]) => ({ name, data })),
        { name: bad, data: 'x' },
      ]);
      const r = await h.lifecycle.install(zip);
      expect(r.ok, bad).toBe(false);
    }
    expect(await installed()).toEqual([]);
  });

  it('R-PRE-01 a zip with a symbolic link entry is refused', async () => {
    const zip = await zipFile('link.zip', [
      ...Object.entries(skillFiles('linky', '1')).map(([name, data]) => ({ name, data })),
      { name: 'passwd', data: '/etc/passwd', mode: 0o120777 },
    ]);
    const r = await h.lifecycle.install(zip);
    expect(r).toMatchObject({ ok: false });
    expect(r.error).toMatch(/"passwd".*符号链接/);
    expect(await installed()).toEqual([]);
  });

  it('R-PRE-01 a folder holding a symbolic link that escapes it is refused; a link inside it is copied as a file', async () => {
    const dir = join(work, 'linkdir');
    await mkdir(dir);
    for (const [n, c] of Object.entries(skillFiles('linkdir', '1'))) await writeFile(join(dir, n), c);
    await symlink('/etc/hostname', join(dir, 'host.txt'));
    const r = await h.lifecycle.install(dir);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/host\.txt/);
    expect(await installed()).toEqual([]);
  });

  it('a folder inside (or holding) an install root is refused: no copy of a root into itself', async () => {
    for (const src of [join(h.dataDir, 'skills'), h.dataDir]) {
      const r = await h.lifecycle.install(src);
      expect(r.ok, src).toBe(false);
      expect(r.error).toMatch(/不能从技能目录本身安装/);
    }
    expect(await installed()).toEqual([]);
  });

  it('caps: file count, per-file size and total unpacked size are enforced (bounded, before writing past them)', async () => {
    const files = Object.entries(skillFiles('capped', '1')).map(([name, data]) => ({ name, data }));
    const zip = await zipFile('caps.zip', [...files, { name: 'a.txt', data: 'x'.repeat(2000) }, { name: 'b.txt', data: 'y'.repeat(2000) }]);
    const opts = { dataDir: h.dataDir, registry: h.lifecycle.registry() };
    expect((await installPackage(zip, { ...opts, caps: { files: 3 } })).error).toMatch(/文件数量超过上限 3/);
    expect((await installPackage(zip, { ...opts, caps: { fileBytes: 1999 } })).error).toMatch(/"a\.txt".*单个文件上限/);
    expect((await installPackage(zip, { ...opts, caps: { totalBytes: 3000 } })).error).toMatch(/总大小超过上限/);
    expect(await installed()).toEqual([]);
  });
});

describe('a good package', () => {
  it('R-PRE-06 a zip under one top folder is unwrapped, installs with its preflight problems as warnings, registers as shared and runs', async () => {
    // A synchronous execute: an error in create mode, a warning in install mode (R-PRE-04, R-PRE-06).
    const files = skillFiles('pkg_echo', 'v1', {
      'handler.ts':
        'export function execute(input_data: Record<string, unknown>, runtime_context: { role_id: string }) {\n  return { version: "v1", role: runtime_context.role_id };\n}\n',
    });
    const zip = await zipFile(
      'pkg.zip',
      Object.entries(files).map(([name, data]) => ({ name: `pkg_echo-main/${name}`, data })),
    );
    const r = await h.lifecycle.install(zip);
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ ok: true, skill: 'pkg_echo', dir: join(h.dataDir, 'skills', 'pkg_echo') });
    expect(r.warnings.length).toBeGreaterThan(0);
    expect(r.warnings.every((w) => w.severity !== 'error')).toBe(true);
    expect(await tree(join(h.dataDir, 'skills'))).toEqual(['pkg_echo/', 'pkg_echo/SKILL.md', 'pkg_echo/handler.ts']);
    expect(h.lifecycle.registry().get('pkg_echo')).toMatchObject({ source: 'shared', status: 'ok' });
    expect(h.lifecycle.skillsFor('sales')).toContain('pkg_echo');
    const env = await runSkill(h.services(), looseRequest({ skill: 'pkg_echo', input: {}, defaults: defaultsFor('sales'), line: 'chat' }));
    expect(env).toMatchObject({ version: 'v1' });
  });

  it('R-LOAD-04 a folder installs as a role skill (enabled for that role only); reinstalling replaces it atomically', async () => {
    const dir = join(work, 'ops_tool');
    await mkdir(dir);
    for (const [n, c] of Object.entries(skillFiles('ops_tool', 'one'))) await writeFile(join(dir, n), c);
    const r1 = await h.lifecycle.install(dir, { roleId: 'ops' });
    expect(r1).toMatchObject({ ok: true, skill: 'ops_tool', dir: join(h.dataDir, 'role-skills', 'ops', 'ops_tool') });
    expect(h.lifecycle.registry().get('ops_tool')).toMatchObject({ source: 'role', ownerRole: 'ops' });
    expect(h.lifecycle.skillsFor('ops')).toContain('ops_tool');
    expect(h.lifecycle.skillsFor('sales')).not.toContain('ops_tool');
    await writeFile(join(dir, 'handler.ts'), skillFiles('ops_tool', 'two')['handler.ts']!);
    const r2 = await h.lifecycle.install(dir, { roleId: 'ops' });
    expect(r2.ok).toBe(true);
    const env = await runSkill(h.services(), looseRequest({ skill: 'ops_tool', input: {}, defaults: defaultsFor('ops'), line: 'chat' }));
    expect(env).toMatchObject({ version: 'two' });
    expect((await readdir(join(h.dataDir, 'role-skills', 'ops'))).sort()).toEqual(['ops_tool']);
  });

  it('a package named like a built-in skill is refused; the built-in is untouched', async () => {
    const zip = await zipFile(
      'help.zip',
      Object.entries(skillFiles('help', 'fake')).map(([name, data]) => ({ name, data })),
    );
    for (const roleId of [undefined, 'ops']) {
      const r = await h.lifecycle.install(zip, { roleId });
      expect(r.ok).toBe(false);
      expect(r.error).toMatch(/已有同名技能 "help"（来源 builtin/);
    }
    expect(h.lifecycle.registry().get('help')).toMatchObject({ source: 'builtin' });
  });
});

describe('skillgate skill install (CLI, in process)', () => {
  const saved: Record<string, string | undefined> = {};
  const vars = ['SKILLGATE_DATA_DIR', 'SKILLGATE_CONFIG', 'SKILLGATE_SKILL_DIRS', 'DATABASE_URL', 'SKILLGATE_ROLE_ID'];
  let dataDir: string;
  beforeAll(async () => {
    for (const v of vars) saved[v] = process.env[v];
    dataDir = await tempDataDir();
    const cfg = join(dataDir, 'skillgate.config.yaml');
    await writeFile(cfg, TWO_ROLES);
    process.env.SKILLGATE_DATA_DIR = dataDir;
    process.env.SKILLGATE_CONFIG = cfg;
    delete process.env.SKILLGATE_SKILL_DIRS;
    delete process.env.DATABASE_URL;
    delete process.env.SKILLGATE_ROLE_ID;
  });
  afterAll(() => {
    for (const v of vars)
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
  });
  const cli = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await main(['node', 'skillgate', ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
    return { code, out, err };
  };

  it('R-PRE-06 install --role --json prints the result; skill run --role runs it; a hostile zip exits 1 naming the entry', async () => {
    const zip = await zipFile(
      'cli_tool.zip',
      Object.entries(skillFiles('cli_tool', 'cli')).map(([name, data]) => ({ name, data })),
    );
    const done = await cli('skill', 'install', zip, '--role', 'ops', '--json');
    expect(done.code, done.err).toBe(0);
    expect(JSON.parse(done.out)).toMatchObject({ ok: true, skill: 'cli_tool', dir: join(dataDir, 'role-skills', 'ops', 'cli_tool') });
    const ran = await cli('skill', 'run', 'cli_tool', '--role', 'ops');
    expect(JSON.parse(ran.out)).toMatchObject({ version: 'cli', role: 'ops' });
    const evil = await zipFile('evil2.zip', [
      { name: 'SKILL.md', data: skillFiles('evil2', '1')['SKILL.md']! },
      { name: '../../evil2.txt', data: 'x' },
    ]);
    const refused = await cli('skill', 'install', evil);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/\.\.\/\.\.\/evil2\.txt/);
    expect(refused.out).toBe('');
  });

  it('install --role <unknown role> exits 1 with the zh-CN/en refusal and writes no role-skills/<role>/ folder', async () => {
    const zip = await zipFile(
      'typo_tool.zip',
      Object.entries(skillFiles('typo_tool', 't')).map(([name, data]) => ({ name, data })),
    );
    const refused = await cli('skill', 'install', zip, '--role', 'typo_role');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/未知角色 "typo_role"（已配置：.*sales, ops）\/ unknown role "typo_role" \(roles: .*sales, ops\)/);
    expect(refused.out).toBe('');
    expect(await readdir(join(dataDir, 'role-skills')).catch(() => [])).not.toContain('typo_role');
  });
});

it('a refused install for a configured role that had no folder yet leaves no empty role-skills/<role>/ behind', async () => {
  const zip = await zipFile('noskill.zip', [{ name: 'readme.txt', data: 'no skill here' }]);
  const r = await h.lifecycle.install(zip, { roleId: 'sales' });
  expect(r.ok).toBe(false);
  expect(await readdir(join(h.dataDir, 'role-skills'))).not.toContain('sales');
});
