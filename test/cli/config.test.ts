import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { runCli } from '../helpers/cli.ts';
import { ENGINES, serverDatabaseUrl } from '../helpers/db.ts';

interface Captured {
  io: CliIO & { stdin?: NodeJS.ReadableStream };
  out: () => string;
  err: () => string;
}

function capture(stdinText?: string): Captured {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: (t) => void (out += t),
      stderr: (t) => void (err += t),
      ...(stdinText === undefined ? {} : { stdin: Readable.from([stdinText]) }),
    },
    out: () => out,
    err: () => err,
  };
}

async function run(args: string[], stdinText?: string): Promise<{ code: number; out: string; err: string }> {
  const c = capture(stdinText);
  const code = await main(['node', 'skillgate', ...args], c.io);
  return { code, out: c.out(), err: c.err() };
}

const SECRET = 'sk-from-stdin-7781';

for (const engine of ENGINES) {
  describe(`skillgate config set / get [${engine}]`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sg-config-'));
    beforeAll(async () => {
      vi.stubEnv('SKILLGATE_DATA_DIR', dataDir);
      vi.stubEnv('SKILLGATE_ROLE_ID', '');
      vi.stubEnv('LOG_LEVEL', 'silent');
      if (engine === 'server') {
        vi.stubEnv('DATABASE_URL', await serverDatabaseUrl('_cfgcli', true));
        vi.stubEnv('SKILLGATE_SECRET_KEY', Buffer.alloc(32, 3).toString('base64'));
      } else {
        vi.stubEnv('DATABASE_URL', '');
        vi.stubEnv('SKILLGATE_SECRET_KEY', '');
      }
    });
    afterAll(() => {
      vi.unstubAllEnvs();
    });

    it('R-CFG-01, R-CFG-03: config set stores a plain parameter (dashed key normalised) for the default role', async () => {
      const r = await run(['config', 'set', 'weather', '--base-url', 'https://api.example.test']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toBe('set weather.base_url for role default\n');
    });

    it('R-CFG-05: a secret-named key with its value on argv is refused (exit 1) with a hint to use --secret', async () => {
      const r = await run(['config', 'set', 'weather', 'api_token', 'sk-on-argv-1']);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/--secret/);
      expect(r.err).not.toContain('sk-on-argv-1');
      const both = await run(['config', 'set', 'weather', 'api_token', 'sk-on-argv-1', '--secret'], 'x\n');
      expect(both.code).toBe(1);
      expect(both.err).toMatch(/stdin/);
    });

    it('R-CFG-05: --secret reads the value from stdin (trailing newline trimmed) and stores it encrypted', async () => {
      const r = await run(['config', 'set', 'weather', '--api-token', '--secret'], `${SECRET}\n`);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toBe('set weather.api_token for role default (encrypted)\n');
      const other = await run(['config', 'set', 'weather', 'city', 'Oslo', '--role', 'ops']);
      expect(other.code).toBe(0);
    });

    it('config get masks secrets and shows plain values; --json prints one document; roles are separate', async () => {
      const text = await run(['config', 'get', 'weather']);
      expect(text.code).toBe(0);
      expect(text.out).toBe('api_token = ********\nbase_url = https://api.example.test\n');
      expect(text.out).not.toContain(SECRET);
      const json = await run(['config', 'get', 'weather', '--json']);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.out)).toEqual({
        role_id: 'default',
        skill: 'weather',
        values: { api_token: '********', base_url: 'https://api.example.test' },
        encrypted: ['api_token'],
      });
      const ops = await run(['config', 'get', 'weather', '--role', 'ops', '--json']);
      expect(JSON.parse(ops.out).values).toEqual({ city: 'Oslo' });
    });

    if (engine === 'embedded') {
      it('R-CFG-05: the real command reads a --secret value piped on its stdin', async () => {
        const set = await runCli(['config', 'set', 'mail', 'smtp_password', '--secret'], {
          cwd: dataDir,
          env: { SKILLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
          input: 'pw-piped-1\n',
        });
        expect(set.stderr).toBe('');
        expect(set.code).toBe(0);
        expect(set.stdout).toBe('set mail.smtp_password for role default (encrypted)\n');
        const get = await run(['config', 'get', 'mail']);
        expect(get.out).toBe('smtp_password = ********\n');
      });

      it('R-CFG-05: no secret is in plain text anywhere in the data dir', () => {
        const walk = (dir: string): string[] =>
          readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
        for (const file of walk(dataDir)) {
          const bytes = readFileSync(file);
          expect(bytes.includes(SECRET), file).toBe(false);
          expect(bytes.includes('pw-piped-1'), file).toBe(false);
        }
      });
    }
  });
}
