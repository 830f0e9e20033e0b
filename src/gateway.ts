/**
 * Start and stop one gateway process: settings → data dir → database → migrations → HTTP.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './http/app.ts';
import { loadConfigFile, type ConfigFile } from './config/file.ts';
import { resolveSecretKey } from './config/secret-key.ts';
import type { Settings } from './config/settings.ts';
import type { Logger } from './log/logger.ts';
import { acquireDataDir, removeServerInfo, writeServerInfo, type DataDirLock } from './store/datadir.ts';
import type { Db } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { openEmbeddedDb, openServerDb } from './store/open.ts';
import { discoverSkills } from './registry/discover.ts';
import type { SkillServices } from './executor/run-skill.ts';

/** A running gateway. */
export interface Gateway {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  db: Db;
  config: ConfigFile;
  /** Stop accepting, close the database, release the data dir. Idempotent. */
  close(): Promise<void>;
}

/**
 * Start the gateway.
 * @throws DataDirBusyError when another process holds the embedded data dir;
 *   ConfigError on bad configuration; the database error when the server is unreachable.
 */
export async function startGateway(settings: Settings, log: Logger, env: NodeJS.ProcessEnv = process.env): Promise<Gateway> {
  const config = loadConfigFile(settings.configPath, settings, env);
  log.info({ walls: settings.walls }, 'wall clocks resolved (seconds)');

  let lock: DataDirLock | undefined;
  let db: Db;
  if (settings.databaseUrl) {
    db = openServerDb(settings.databaseUrl);
  } else {
    lock = await acquireDataDir(settings.dataDir);
    try {
      db = await openEmbeddedDb(settings.dataDir);
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  let server: Server | undefined;
  const cleanup = async (): Promise<void> => {
    if (server) await new Promise<void>((r) => server!.close(() => r()));
    await db.close().catch(() => undefined);
    if (lock) {
      removeServerInfo(settings.dataDir);
      await lock.release();
    }
  };

  try {
    const { applied, current } = await migrate(db);
    log.info({ applied, schema_version: current, engine: db.engine }, 'database ready');
    const secretKey = resolveSecretKey(settings);
    const registry = await discoverSkills(settings.skillRoots);
    const broken = registry.all().filter((s) => s.status === 'broken').map((s) => s.name);
    log.info({ skills: registry.all().length, broken }, 'skills discovered');
    const services: SkillServices = { db, registry, settings, secretKey, log };
    const localToken = randomBytes(32).toString('hex');
    const app = createApp({ db, log, localToken, skills: { services, config, defaultRoleId: settings.roleId } });
    server = await new Promise<Server>((resolveListen, reject) => {
      const s = app.listen(settings.port, '0.0.0.0', () => resolveListen(s));
      s.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    if (lock) {
      writeServerInfo(settings.dataDir, { pid: process.pid, port, token: localToken, started_at: new Date().toISOString() });
    }
    log.info(
      { port, channels: settings.channels, database: db.engine, data_dir: lock ? settings.dataDir : undefined },
      `skillgate listening on http://localhost:${port} — channels on: ${settings.channels.join(', ')}`,
    );
    let closed: Promise<void> | undefined;
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      db,
      config,
      close: () => (closed ??= cleanup()),
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
