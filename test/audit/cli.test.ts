/**
 * `skillgate audit` end to end in-process: a `skill run` through the CLI is recorded, then
 * listed as JSON and as text; bad options exit 1 (README.md#the-skillgate-command).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditRow } from '../../src/audit/store.ts';
import { main } from '../../src/cli/main.ts';
import { ENGINES, serverDatabaseUrl } from '../helpers/db.ts';

const PROBE = fileURLToPath(new URL('./fixtures/audit_probe/', import.meta.url));
const PASSED = 'cli-passed-sk-90ab12cd';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'skillgate', ...args], { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
  return { code, out, err };
}

for (const engine of ENGINES) {
  describe(`skillgate audit [${engine}]`, () => {
    beforeAll(async () => {
      vi.stubEnv('SKILLGATE_DATA_DIR', mkdtempSync(join(tmpdir(), 'sg-audit-cli-')));
      vi.stubEnv('SKILLGATE_ROLE_ID', '');
      vi.stubEnv('LOG_LEVEL', 'silent');
      vi.stubEnv('DATABASE_URL', engine === 'server' ? await serverDatabaseUrl('_auditcli', true) : '');
      vi.stubEnv('SKILLGATE_SECRET_KEY', engine === 'server' ? Buffer.alloc(32, 7).toString('base64') : '');
      const ok = await run(['skill', 'run', PROBE, '--input', JSON.stringify({ city: '广州', api_token: PASSED })]);
      expect(ok.code).toBe(0);
      const failed = await run(['skill', 'run', PROBE, '--input', JSON.stringify({ city: '深圳', fail: true })]);
      expect(failed.code).toBe(0);
      expect((await run(['skill', 'run', 'datatable', '--input', JSON.stringify({ action: 'list_tables' })])).code).toBe(0);
      expect(
        (await run(['skill', 'run', 'repair_ticket', '--input', JSON.stringify({ action: '登记费用', ticket: 'T-1', cost: 500 })])).code,
      ).toBe(0);
    });
    afterAll(() => {
      vi.unstubAllEnvs();
    });

    it('--json lists the CLI calls newest first, without the passed secret', async () => {
      const r = await run(['audit', '--skill', 'audit_probe', '--json']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).not.toContain(PASSED);
      const body = JSON.parse(r.out) as { ok: boolean; entries: AuditRow[] };
      expect(body.entries.map((e) => [e.line, e.channel, e.roleId, e.success, e.errorType, e.paramKeys])).toEqual([
        ['cli', 'cli', 'default', false, 'recoverable', ['city', 'fail']],
        ['cli', 'cli', 'default', true, null, ['city']],
      ]);
    });

    it('--json rows carry the action of datatable and repair_ticket calls (a cost change is not a query)', async () => {
      const dt = JSON.parse((await run(['audit', '--skill', 'datatable', '--json'])).out) as { entries: AuditRow[] };
      expect(dt.entries.map((e) => e.action)).toEqual(['list_tables']);
      const rt = JSON.parse((await run(['audit', '--skill', 'repair_ticket', '--json'])).out) as { entries: AuditRow[] };
      expect(rt.entries.map((e) => e.action)).toEqual(['登记费用']);
    });

    it('text output: one line per call with role, line, skill, outcome and duration', async () => {
      const r = await run(['audit', '--role', 'default', '--skill', 'audit_probe', '--limit', '1']);
      expect(r.code).toBe(0);
      const lines = r.out.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}default {2}cli\/cli {2}- {2}audit_probe {2}error:recoverable {2}\d+ms {2}params=[0-9a-f]{12}$/,
      );
      expect((await run(['audit', '--role', 'nobody'])).out).toBe('no audit entries match\n');
    });

    it('a bad --limit or --since exits 1 with a message on stderr', async () => {
      const r = await run(['audit', '--limit', 'lots']);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/--limit must be a whole number/);
      expect((await run(['audit', '--since', 'last week'])).code).toBe(1);
    });
  });
}
