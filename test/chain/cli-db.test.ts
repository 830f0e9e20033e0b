/**
 * `skillgate chain check|run|save|enable|disable` and `skillgate schedule add|list|remove`
 * with a database (README.md#the-skillgate-command; docs/chains.md): exit codes and one JSON
 * document on stdout.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { ENGINES, serverDatabaseUrl } from '../helpers/db.ts';
import { CHAIN_FIXTURES } from './helpers.ts';

const GOOD = join(CHAIN_FIXTURES, 'chain_samples/good.json');
const BAD = join(CHAIN_FIXTURES, 'chain_samples/bad.json');

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'skillgate', ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
  return { code, out, err };
}

// Every embedded command reopens PGlite from the data dir (about 0.2 s on an idle machine, far
// more on a loaded one), and these tests run several commands each.
const MANY_COMMANDS = { timeout: 180_000 };

for (const engine of ENGINES) {
  describe(`chain and schedule CLI with a database [${engine}]`, () => {
    beforeAll(async () => {
      vi.stubEnv('SKILLGATE_DATA_DIR', mkdtempSync(join(tmpdir(), 'sg-chain-cli-')));
      vi.stubEnv('SKILLGATE_SKILL_DIRS', CHAIN_FIXTURES);
      vi.stubEnv('SKILLGATE_ROLE_ID', '');
      vi.stubEnv('SKILLGATE_CONFIG', '');
      vi.stubEnv('LOG_LEVEL', 'silent');
      if (engine === 'server') {
        vi.stubEnv('DATABASE_URL', await serverDatabaseUrl('_chaincli2', true));
        vi.stubEnv('SKILLGATE_SECRET_KEY', Buffer.alloc(32, 5).toString('base64'));
      } else {
        vi.stubEnv('DATABASE_URL', '');
        vi.stubEnv('SKILLGATE_SECRET_KEY', '');
      }
      // Create and migrate the database once, so each test only reopens it.
      expect((await cli('db', 'migrate')).code).toBe(0);
    });
    afterAll(() => {
      vi.unstubAllEnvs();
    });

    it('chain run <file>: prints the return object, exit 0', MANY_COMMANDS, async () => {
      const r = await cli('chain', 'run', GOOD, '--input', '{"city":"北京"}');
      expect(r.code).toBe(0);
      const res = JSON.parse(r.out) as {
        ok: boolean;
        steps: Record<string, { input: Record<string, unknown> }>;
        failed: string[];
        error: string;
        duration_ms: number;
      };
      expect(res.ok).toBe(true);
      expect(res.failed).toEqual([]);
      expect(res.steps.show!.input).toEqual({ city: '北京', total: 2, first: '甲' });
      expect(Object.keys(res).sort()).toEqual(['duration_ms', 'error', 'failed', 'last', 'ok', 'steps']);
    });

    it('chain run without a required chain input: exit 1 naming it, no step runs', MANY_COMMANDS, async () => {
      const r = await cli('chain', 'run', GOOD);
      expect(r.code).toBe(1);
      expect(r.err).toContain('{city}');
      expect(r.out).toBe('');
    });

    it('chain save / run <name> / disable / enable; a refused save is exit 1 with the problems', MANY_COMMANDS, async () => {
      expect((await cli('chain', 'save', BAD)).code).toBe(1);
      const saved = await cli('chain', 'save', GOOD);
      expect(saved.code).toBe(0);
      const r = await cli('chain', 'run', 'daily_report', '--input', '{"city":"上海"}');
      expect(r.code).toBe(0);
      expect((JSON.parse(r.out) as { ok: boolean }).ok).toBe(true);
      expect((await cli('chain', 'disable', 'daily_report')).code).toBe(0);
      expect((await cli('chain', 'enable', 'nope_chain')).code).toBe(1);
    });

    it('schedule add / list / remove; a bad cron or unknown target is exit 1', MANY_COMMANDS, async () => {
      const add = await cli(
        'schedule',
        'add',
        'morning',
        '--cron',
        '0 9 * * 1-5',
        '--chain',
        'daily_report',
        '--input',
        '{"city":"杭州"}',
        '--to',
        'notify:ops',
        '--tz',
        'Asia/Shanghai',
      );
      expect(add.code).toBe(0);
      const list = await cli('schedule', 'list', '--json');
      const rows = JSON.parse(list.out) as {
        name: string;
        cron: string;
        kind: string;
        target: string;
        deliver_to: string;
        timezone: string;
      }[];
      expect(rows).toEqual([
        expect.objectContaining({
          name: 'morning',
          cron: '0 9 * * 1-5',
          kind: 'chain',
          target: 'daily_report',
          deliver_to: 'notify:ops',
          timezone: 'Asia/Shanghai',
        }),
      ]);
      expect(rows[0] as unknown as { missed: string; occurrences: unknown[] }).toMatchObject({ missed: 'once', occurrences: [] });
      expect((await cli('schedule', 'add', 'catchup', '--cron', '*/1 * * * *', '--skill', 'echo', '--missed', 'all')).code).toBe(0);
      expect((await cli('schedule', 'add', 'bad-missed', '--cron', '*/1 * * * *', '--skill', 'echo', '--missed', 'twice')).code).toBe(1);
      const text = await cli('schedule', 'list');
      expect(text.out).toMatch(/^catchup\t\*\/1 \* \* \* \* \(UTC\)\tskill echo\t-\tnever ran\tmissed: all$/m);
      expect(text.out).not.toMatch(/bad-missed/);
      expect((await cli('schedule', 'remove', 'catchup')).code).toBe(0);
      expect((await cli('schedule', 'add', 'broken', '--cron', 'every day', '--skill', 'echo')).code).toBe(1);
      expect((await cli('schedule', 'remove', 'morning')).code).toBe(0);
      expect((await cli('schedule', 'remove', 'morning')).code).toBe(1);
    });
  });
}
