import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { ENGINES, serverDatabaseUrl } from '../helpers/db.ts';
import { openEmbeddedDb, openServerDb } from '../../src/store/open.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/db.ts';
import { createTableAction } from '../../src/datatable/structure/table-actions.ts';
import { effectiveAccess } from '../../src/datatable/access/permissions.ts';
import { findTableByTitle } from '../../src/datatable/catalog/metadata.ts';
import { listGrants } from '../../src/datatable/access/grants.ts';
import { makeEnv } from './structure-helpers.ts';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (err += t) };
  const code = await main(['node', 'skillgate', ...args], io);
  return { code, out, err };
}

for (const engine of ENGINES) {
  describe(`skillgate datatable grant / revoke / grants [${engine}]`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sg-dtgrant-'));
    let url = '';
    let tableId = '';
    const openDb = async (): Promise<Db> => (engine === 'server' ? openServerDb(url, { max: 2 }) : openEmbeddedDb(dataDir));
    const withDb = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
      const db = await openDb();
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    };

    beforeAll(async () => {
      vi.stubEnv('SKILLGATE_DATA_DIR', dataDir);
      vi.stubEnv('SKILLGATE_ORG_ID', 'acme');
      vi.stubEnv('LOG_LEVEL', 'silent');
      if (engine === 'server') {
        url = await serverDatabaseUrl('_dtgrant', true);
        vi.stubEnv('DATABASE_URL', url);
        vi.stubEnv('SKILLGATE_SECRET_KEY', Buffer.alloc(32, 5).toString('base64'));
      } else {
        vi.stubEnv('DATABASE_URL', '');
        vi.stubEnv('SKILLGATE_SECRET_KEY', '');
      }
      tableId = await withDb(async (db) => {
        await migrate(db);
        const r = await createTableAction(makeEnv(db), {
          table_name: '工单',
          fields: [
            { title: '负责人工号', uidt: '文本' },
            { title: '描述', uidt: '长文本' },
          ],
        });
        await createTableAction(makeEnv(db, { orgId: 'beta' }), { table_name: '别家表', fields: [] });
        return r.id as string;
      });
    });
    afterAll(() => {
      vi.unstubAllEnvs();
    });

    it('R-DT-16: grant <title> --role --actions --row-scope own --owner-field stores an own-scope grant', async () => {
      const r = await run([
        'datatable',
        'grant',
        '工单',
        '--role',
        'sales',
        '--actions',
        'query,insert,update',
        '--row-scope',
        'own',
        '--owner-field',
        '负责人工号',
      ]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toBe(`granted on 工单 (${tableId}): role sales: actions query,insert,update; row scope own (owner field 负责人工号)\n`);
      const access = await withDb(async (db) => effectiveAccess(db, { id: tableId }, ['sales']));
      expect(access).toMatchObject({ rowScope: 'own', ownerField: '负责人工号' });
      expect(access.actions !== 'all' && [...access.actions].sort()).toEqual(['insert', 'query', 'update']);
    });

    it('<table> may be the table id; granting again replaces the grant; --json prints one document', async () => {
      const r = await run(['datatable', 'grant', tableId, '--role', 'sales', '--json']);
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.out) as { ok: boolean; grant: Record<string, unknown> };
      expect(doc).toMatchObject({ ok: true, op: 'grant', grant: { roleId: 'sales', actions: null, rowScope: 'all', ownerField: null } });
      const list = await run(['datatable', 'grants', '工单']);
      expect(list.out).toBe(`工单 (${tableId}):\n  role sales: all actions; row scope all\n`);
    });

    it('R-DT-19: an invalid grant is refused with exit 1 and stores nothing', async () => {
      const cases = [
        ['datatable', 'grant', '工单', '--role', 'x', '--row-scope', 'own', '--owner-field', '工号'],
        ['datatable', 'grant', '工单', '--role', 'x', '--row-scope', 'own'],
        ['datatable', 'grant', '工单', '--role', 'x', '--actions', 'query,drop_everything'],
        ['datatable', 'grant', '工单', '--role', 'x', '--row-scope', 'some'],
        ['datatable', 'grant', '没有的表', '--role', 'x'],
        ['datatable', 'grant', '别家表', '--role', 'x'],
      ];
      for (const args of cases) {
        const r = await run(args);
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.out).toBe('');
        expect(r.err).toMatch(/^skillgate: /);
      }
      expect((await run(['datatable', 'grant', '没有的表', '--role', 'x'])).err).toContain('工单');
      expect((await run(['datatable', 'grant', '工单'])).code).toBe(1); // --role is required
      const grants = await withDb(async (db) => listGrants(db, tableId));
      expect(grants.map((g) => g.roleId)).toEqual(['sales']);
    });

    it('--org selects another organisation', async () => {
      const r = await run(['datatable', 'grant', '别家表', '--org', 'beta', '--role', 'y', '--actions', 'query']);
      expect(r.code).toBe(0);
      const t = await withDb(async (db) => findTableByTitle(db, 'beta', '别家表'));
      expect(await withDb(async (db) => listGrants(db, t!.id))).toEqual([expect.objectContaining({ roleId: 'y', actions: ['query'] })]);
    });

    it('R-DT-13: revoke removes the grant (the table is open again); revoking nothing is exit 1', async () => {
      const r = await run(['datatable', 'revoke', '工单', '--role', 'sales']);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`revoked the grant of role sales on 工单 (${tableId})\n`);
      expect(await withDb(async (db) => effectiveAccess(db, { id: tableId }, ['sales']))).toMatchObject({
        actions: 'all',
        rowScope: 'all',
      });
      const again = await run(['datatable', 'revoke', '工单', '--role', 'sales']);
      expect(again.code).toBe(1);
      expect(again.err).toMatch(/no grant/);
      expect((await run(['datatable', 'grants', '工单'])).out).toMatch(/no grants — open to every role/);
    });
  });
}
