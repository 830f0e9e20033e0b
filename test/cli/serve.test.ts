import { mkdtempSync, readFileSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServe, type ServeChild } from '../helpers/cli.ts';
import { serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';
import { readMigrations } from '../../src/store/migrate.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('skillgate serve on the embedded default', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'sg-serve-'));
  let server: ServeChild | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('starts, answers /healthz and /readyz, and writes server.json (0600) and secret.key (0600)', async () => {
    server = startServe({ cwd });
    const port = await server.ready;
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ database: 'embedded' });
    const info = JSON.parse(readFileSync(join(cwd, 'data', 'server.json'), 'utf8'));
    expect(info.port).toBe(port);
    expect(info.token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(cwd, 'data', 'server.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(cwd, 'data', 'secret.key')).mode & 0o777).toBe(0o600);
    expect(server.stderr()).toMatch(/wall clocks resolved/);
    expect(server.stderr()).toMatch(/"toolWallSec":1800/);
  });

  it('refuses a second serve on the same data dir with a clear message (exit 2)', async () => {
    const second = await runCli(['serve'], { cwd, env: { PORT: '0' } });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/data dir .* is in use by a running skillgate server/);
    expect(second.stdout).toBe('');
  });

  it('a port already in use is refused with a clear message (exit 2) and the data dir is released', async () => {
    const port = await server!.ready;
    const other = mkdtempSync(join(tmpdir(), 'sg-serve-port-'));
    const run = await runCli(['serve'], { cwd: other, env: { PORT: String(port) } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`port ${port} is already in use`);
    expect(run.stderr).not.toMatch(/Cannot read properties/);
    expect(existsSync(join(other, 'data', 'server.json'))).toBe(false);
    const migrate = await runCli(['db', 'migrate'], { cwd: other });
    expect(migrate.code).toBe(0);
  });

  it('the local admin API refuses a request without the server.json token (401)', async () => {
    const port = await server!.ready;
    const res = await fetch(`http://127.0.0.1:${port}/api/local/db/migrate`, { method: 'POST' });
    expect(res.status).toBe(401);
    const wrong = await fetch(`http://127.0.0.1:${port}/api/local/db/migrate`, {
      method: 'POST',
      headers: { authorization: 'Bearer ' + '0'.repeat(64) },
    });
    expect(wrong.status).toBe(401);
  });

  it('db migrate while serve runs goes through the running server (server.json hand-off)', async () => {
    const run = await runCli(['db', 'migrate'], { cwd });
    expect(run.stderr).not.toMatch(/in use/);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`applied 0 migration(s); schema version ${Math.max(...readMigrations().map((m) => m.version))}\n`);
  });

  it('stops on SIGTERM, removes server.json and releases the data dir', async () => {
    expect(await server!.stop()).toBe(0);
    expect(existsSync(join(cwd, 'data', 'server.json'))).toBe(false);
    const run = await runCli(['db', 'migrate'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^applied 0 migration\(s\)/);
  });
});

describe('configuration errors name the variable', () => {
  it('a bad PORT is refused with exit 1 naming PORT', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-cfg-'));
    const run = await runCli(['serve'], { cwd, env: { PORT: 'eighty' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/PORT must be a port number/);
  });

  it('DATABASE_URL without SKILLGATE_SECRET_KEY is refused naming SKILLGATE_SECRET_KEY', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-cfg-'));
    const run = await runCli(['db', 'migrate'], { cwd, env: { DATABASE_URL: 'postgres://127.0.0.1:1/x' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/SKILLGATE_SECRET_KEY is required/);
  });

  it('an unreachable DATABASE_URL is exit 2 (the command could not run), no stack trace', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-cfg-'));
    const run = await runCli(['db', 'migrate'], {
      cwd,
      env: { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nope', SKILLGATE_SECRET_KEY: KEY },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot reach the database/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

// Several processes on one real server: only where a server exists.
describe.runIf(TEST_DATABASE_URL)('migrations from several processes on one server', () => {
  it('two concurrent `db migrate` runs leave one consistent schema', async () => {
    const url = await serverDatabaseUrl('_mig', true);
    const cwd = mkdtempSync(join(tmpdir(), 'sg-mig-'));
    const env = { DATABASE_URL: url, SKILLGATE_SECRET_KEY: KEY };
    const runs = await Promise.all([runCli(['db', 'migrate'], { cwd, env }), runCli(['db', 'migrate'], { cwd, env })]);
    const all = readMigrations().map((m) => m.version);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const applied = runs.map((r) => Number(/applied (\d+)/.exec(r.stdout)?.[1]));
    expect(applied.sort()).toEqual([0, all.length]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query('SELECT version FROM skillgate.schema_migrations ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual(all);
      const meta = await c.query("SELECT count(*)::int AS n FROM skillgate.meta WHERE key = 'instance_id'");
      expect(meta.rows[0].n).toBe(1);
    } finally {
      await c.end();
    }
  });

  it('two gateways start at once on one server and both serve /readyz', async () => {
    const url = await serverDatabaseUrl('_two', true);
    const env = { DATABASE_URL: url, SKILLGATE_SECRET_KEY: KEY };
    const a = startServe({ cwd: mkdtempSync(join(tmpdir(), 'sg-a-')), env });
    const b = startServe({ cwd: mkdtempSync(join(tmpdir(), 'sg-b-')), env });
    try {
      const ports = await Promise.all([a.ready, b.ready]);
      for (const port of ports) {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ database: 'server' });
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});

describe('skillgate skill run', () => {
  const FIXTURE = new URL('../fixtures/pipeline/ctx_echo', import.meta.url).pathname;

  it('prints the envelope as one JSON document and exits 0, even for a failed skill', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-run-'));
    const ok = await runCli(['skill', 'run', FIXTURE, '--input', '{"note":"hi"}', '--raw-input', '你好'], { cwd });
    expect(ok.code, ok.stderr).toBe(0);
    const env = JSON.parse(ok.stdout);
    expect(env).toMatchObject({ success: true, input: { note: 'hi' }, artifacts: [] });
    expect(env.values.raw_input).toBe('你好');
    const failed = await runCli(['skill', 'run', FIXTURE, '--input', '{}'], { cwd });
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.stdout)).toMatchObject({ success: false, need_param: 'note', artifacts: [] });
  });

  it('a careless handler: BigInt and cycles are made JSON-safe, its console.log stays off stdout, a floating rejection does not crash', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-run-'));
    const dir = new URL('../fixtures/pipeline/misbehaves', import.meta.url).pathname;
    const a = await runCli(['skill', 'run', dir, '--input', '{"mode":"bigint_cycle"}'], { cwd });
    expect(a.code, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout)).toMatchObject({ success: true, n: '10', self: '[circular]' });
    const b = await runCli(['skill', 'run', dir, '--input', '{"mode":"console"}'], { cwd });
    expect(JSON.parse(b.stdout)).toMatchObject({ success: true });
    expect(b.stderr).toContain('stdout log from a handler');
    const c = await runCli(['skill', 'run', dir, '--input', '{"mode":"floating"}'], { cwd });
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ success: true, survived: true });
  });

  it('R-CFG-10: a stored secret echoed in a handler error is redacted in the envelope', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-run-'));
    const dir = new URL('../fixtures/pipeline/misbehaves', import.meta.url).pathname;
    const set = await runCli(['config', 'set', 'misbehaves', 'api_token', '--secret'], { cwd, input: 'LEAKME-12345\n' });
    expect(set.code, set.stderr).toBe(0);
    const run = await runCli(['skill', 'run', dir, '--input', '{"mode":"leak"}'], { cwd });
    expect(run.code).toBe(0);
    const env = JSON.parse(run.stdout);
    expect(env.success).toBe(false);
    expect(env.error).toContain('[redacted]');
    expect(run.stdout).not.toContain('LEAKME-12345');
  });

  it('bad --input JSON is refused with exit 1 and nothing on stdout', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-run-'));
    const run = await runCli(['skill', 'run', FIXTURE, '--input', '{not json'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/--input is not valid JSON/);
  });

  it('runs inside the running server when serve holds the embedded data dir', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-run-srv-'));
    const server = startServe({ cwd });
    try {
      await server.ready;
      const run = await runCli(['skill', 'run', FIXTURE, '--input', '{"note":"via server"}'], { cwd });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ success: true, input: { note: 'via server' } });
      expect(server.stderr()).toMatch(/skill call finished/);
    } finally {
      await server.stop();
    }
  });
});
