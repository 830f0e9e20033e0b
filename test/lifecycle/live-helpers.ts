/**
 * Shared pieces of the live skill set tests (install, scope, reload): a tiny zip writer (stored
 * entries, any name, any unix mode — so hostile packages can be built without a zip tool) and
 * a harness that opens a migrated database, a data dir and a lifecycle over built-in skills.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { parseConfigFile, type ConfigFile } from '../../src/config/file.ts';
import { resolveWalls } from '../../src/config/walls.ts';
import type { OneShotServices } from '../../src/wiring/skill-call.ts';
import { createSkillLifecycle, type LiveSkillLifecycle } from '../../src/lifecycle/live.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { tempDataDir } from './helpers.ts';
import type { LineDefaults } from '../../src/executor/request.ts';

/** The repository's built-in skills folder. */
export const BUILTIN = fileURLToPath(new URL('../../skills/', import.meta.url));

/** One zip entry: a file (string/Buffer data), a folder (name ends with `/`) or a link (`mode` 0o120777). */
export interface ZipEntry {
  name: string;
  data?: string | Buffer;
  /** Unix mode stored in the external attributes (default 0o100644, folders 0o40755). */
  mode?: number;
}

/** Build a zip archive (method "stored") of `entries`, names written as given. */
export function makeZip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data ?? '', 'utf8');
    const crc = crc32(data);
    const mode = e.mode ?? (e.name.endsWith('/') ? 0o40755 : 0o100644);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(0, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((mode & 0xffff) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A skill's SKILL.md with a handler returning `{version}` — the files of a small good skill. */
export function skillFiles(name: string, version: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'SKILL.md': `---\nname: ${name}\ndescription: "lifecycle test skill ${name}"\nversion: 1.0.0\n---\n\n# ${name}\n\nReturns its version.\n`,
    'handler.ts': `export async function execute(input_data: Record<string, unknown>, runtime_context: { role_id: string }) {\n  return { version: '${version}', role: runtime_context.role_id };\n}\n`,
    ...extra,
  };
}

/** Two roles: `sales` (every skill) and `ops` (only `help` and `datatable`). */
export const TWO_ROLES = 'roles:\n  - {id: sales, access: open, skills: ["*"]}\n  - {id: ops, access: open, skills: [help, datatable]}\n';

/** Run defaults for role `roleId` (chat line). */
export function defaultsFor(roleId: string): LineDefaults {
  return {
    role_id: roleId,
    org_id: 'demo',
    session_id: `lc-${roleId}`,
    channel: 'web',
    chat_mode: true,
    allow_sql: false,
    team_role: 'member',
    is_admin: false,
  };
}

/** A migrated database, a fresh data dir and a lifecycle over the built-in skills. */
export interface Harness {
  dataDir: string;
  config: ConfigFile;
  lifecycle: LiveSkillLifecycle;
  /** Services whose registry is the lifecycle's current one. */
  services(): OneShotServices;
  close(): Promise<void>;
}

/** Open a {@link Harness} on `db` (migrated here). `reloadMs` 0 = no watching. */
export async function openHarness(db: Db, opts: { configText?: string; reloadMs?: number; extraRoots?: string[] } = {}): Promise<Harness> {
  await migrate(db);
  const dataDir = await tempDataDir();
  const config = parseConfigFile(opts.configText ?? TWO_ROLES, { orgId: 'demo', roleId: 'sales' }, {});
  const log = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
  const skillRoots = [
    { dir: BUILTIN, source: 'builtin' as const },
    ...(opts.extraRoots ?? []).map((dir) => ({ dir, source: 'shared' as const })),
  ];
  const lifecycle = await createSkillLifecycle({ db, settings: { dataDir, skillRoots }, config, log, reloadMs: opts.reloadMs ?? 0 });
  const secretKey = randomBytes(32);
  return {
    dataDir,
    config,
    lifecycle,
    services: () =>
      ({
        db,
        registry: lifecycle.registry(),
        settings: { dataDir, walls: resolveWalls({}), fetchAllow: [], llm: undefined },
        secretKey,
        log,
        lifecycle,
        skillsFor: lifecycle.skillsFor,
      }) as unknown as OneShotServices,
    close: () => lifecycle.close(),
  };
}
