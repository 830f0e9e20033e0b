/**
 * `skillgate chain check|run|save|enable|disable` and `skillgate schedule add|list|remove`
 * (README.md#the-skillgate-command; docs/chains.md): `chain check` exit codes, one line per problem
 * naming the item, one JSON document. (Commands that need the database: cli-db.test.ts.)
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

for (const engine of ENGINES) {
  describe(`chain and schedule CLI [${engine}]`, () => {
    beforeAll(async () => {
      vi.stubEnv('SKILLGATE_DATA_DIR', mkdtempSync(join(tmpdir(), 'sg-chain-cli-')));
      vi.stubEnv('SKILLGATE_SKILL_DIRS', CHAIN_FIXTURES);
      vi.stubEnv('SKILLGATE_ROLE_ID', '');
      vi.stubEnv('SKILLGATE_CONFIG', '');
      vi.stubEnv('LOG_LEVEL', 'silent');
      if (engine === 'server') {
        vi.stubEnv('DATABASE_URL', await serverDatabaseUrl('_chaincli', true));
        vi.stubEnv('SKILLGATE_SECRET_KEY', Buffer.alloc(32, 5).toString('base64'));
      } else {
        vi.stubEnv('DATABASE_URL', '');
        vi.stubEnv('SKILLGATE_SECRET_KEY', '');
      }
    });
    afterAll(() => {
      vi.unstubAllEnvs();
    });

    it('chain check: exit 1 with one line per problem, each naming the offending item', async () => {
      const r = await cli('chain', 'check', BAD);
      expect(r.code).toBe(1);
      const lines = r.out.trim().split('\n');
      for (const l of lines) expect(l.startsWith(`${BAD}: `)).toBe(true);
      const text = r.out;
      for (const item of [
        'name:',
        'description:',
        'cost_tier:',
        'input_schema.properties.org_id:',
        '{city}:',
        '{unused}:',
        '$steps.b:',
        '$steps.nobody:',
        '$steps.b.totl:',
      ]) {
        expect(text).toContain(`${BAD}: ${item}`);
      }
      expect(lines.length).toBe(9);
    });

    it('chain check: exit 0 and no lines for a good chain; --json prints one document either way', async () => {
      const ok = await cli('chain', 'check', GOOD);
      expect(ok).toMatchObject({ code: 0, out: '' });
      const okJson = await cli('chain', 'check', GOOD, '--json');
      expect(JSON.parse(okJson.out)).toEqual({ ok: true, problems: [] });
      const bad = await cli('chain', 'check', BAD, '--json');
      expect(bad.code).toBe(1);
      const doc = JSON.parse(bad.out) as { ok: boolean; problems: { item: string }[] };
      expect(doc.ok).toBe(false);
      expect(doc.problems.map((p) => p.item)).toContain('$steps.nobody');
    });

    it('chain check: an unreadable file is exit 2, a non-JSON file exit 1', async () => {
      expect((await cli('chain', 'check', join(CHAIN_FIXTURES, 'no-such.json'))).code).toBe(2);
      expect((await cli('chain', 'check', join(CHAIN_FIXTURES, 'README.md'))).code).toBe(1);
    });
  });
}
