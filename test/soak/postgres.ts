/**
 * The soak's PostgreSQL server (docs/reliability.md "PostgreSQL"): by default a private cluster
 * of the machine's PostgreSQL binaries (`initdb`, `pg_ctl` under /usr/lib/postgresql/<v>/bin)
 * in a temporary directory on a free loopback port — the one the soak restarts; it is removed
 * at the end. With `SOAK_DATABASE_URL` the given server is used and restarted only through the
 * shell command in `SOAK_PG_RESTART` (never otherwise: it may be shared).
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A server the soak uses. */
export interface SoakPostgres {
  /** Connection URL of the soak's database. */
  url: string;
  /** How it was provided, for the report. */
  describe: string;
  /** Stop and start the server again (fast shutdown: open connections are cut). Null when it cannot be restarted. */
  restart: (() => Promise<void>) | null;
  /** Stop the private cluster and remove its files (nothing for a given server). */
  close(): Promise<void>;
}

function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env: opts.env ?? process.env, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The newest /usr/lib/postgresql/<v>/bin that has initdb, or an error naming what is missing. */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error('soak: no PostgreSQL binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql), or set SOAK_DATABASE_URL');
  return join(root, versions[0]!, 'bin');
}

/** Wait until the server at `url` answers `SELECT 1` (polls; throws after `ms`). */
export async function waitReachable(url: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      await c.end();
      return;
    } catch (err) {
      await c.end().catch(() => undefined);
      if (Date.now() > end)
        throw new Error(`soak: PostgreSQL at ${url.replace(/:[^@/]*@/, ':***@')} not reachable: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * A private cluster: initdb (trust auth, user `postgres`) in a temp dir, started on a free
 * port with its socket in that dir, database `soak` created. As root the binaries run as the
 * `postgres` user (initdb refuses root).
 */
export async function startPrivateCluster(): Promise<SoakPostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'sg-soak-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = await pgUser();
    chownSync(dir, uid, gid);
  }
  const pgRun = (tool: string, args: string[]): Promise<string> =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  await pgRun('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = (): Promise<string> => pgRun('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  await start();
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitReachable(admin);
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query('CREATE DATABASE soak');
  await c.end();
  const url = `postgres://postgres@127.0.0.1:${port}/soak`;
  return {
    url,
    describe: `private cluster (${bin}, port ${port}, fsync off), restarted with pg_ctl stop -m fast + start`,
    async restart() {
      await pgRun('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      await start();
      await waitReachable(url);
    },
    async close() {
      await pgRun('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function pgUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

/** `SOAK_DATABASE_URL`, restarted by the shell command `restartCommand` when given. */
export function givenServer(url: string, restartCommand: string | undefined): SoakPostgres {
  const cmd = restartCommand?.trim();
  return {
    url,
    describe: cmd
      ? `given server (SOAK_DATABASE_URL), restarted by SOAK_PG_RESTART`
      : 'given server (SOAK_DATABASE_URL), not restarted (SOAK_PG_RESTART unset)',
    restart: cmd
      ? async () => {
          await run('sh', ['-c', cmd]);
          await waitReachable(url);
        }
      : null,
    async close() {},
  };
}

/** Open connections to the database of `url` (pg_stat_activity), not counting this query's own; null when unreachable. */
export async function openConnections(url: string): Promise<number | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    const { rows } = await c.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows[0]!.n;
  } catch {
    return null;
  } finally {
    await c.end().catch(() => undefined);
  }
}
