/**
 * `skillgate directory import` end to end (README.md#the-skillgate-command; docs/configuration.md):
 * the real bin as a child process on a temp data dir (and on the real server with
 * TEST_DATABASE_URL), also through a running `serve` that holds the embedded data dir.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findContact, listContacts, resolveActor } from '../../src/identity/index.ts';
import type { ImportReport } from '../../src/identity/types.ts';
import type { Db } from '../../src/store/db.ts';
import { openEmbeddedDb, openServerDb } from '../../src/store/open.ts';
import { runCli, startServe, type ServeChild } from '../helpers/cli.ts';
import { ENGINES, serverDatabaseUrl } from '../helpers/db.ts';
import { fixturePath } from './helpers.ts';

const KEY = Buffer.alloc(32, 5).toString('base64');

for (const engine of ENGINES) {
  describe(`skillgate directory import [${engine}]`, () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sg-dir-'));
    const dataDir = join(cwd, 'data');
    let env: Record<string, string> = {};
    const openDb = async (): Promise<Db> => (engine === 'embedded' ? openEmbeddedDb(dataDir) : openServerDb(env.DATABASE_URL!, { max: 1 }));

    beforeAll(async () => {
      copyFileSync(fixturePath('contacts.csv'), join(cwd, 'contacts.csv'));
      copyFileSync(fixturePath('directory.json'), join(cwd, 'directory.json'));
      writeFileSync(join(cwd, 'skillgate.config.yaml'), 'roles:\n  - id: default\n    org_id: acme\n  - id: ops\n    org_id: opsorg\n');
      env = { SKILLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      if (engine === 'server') env = { ...env, DATABASE_URL: await serverDatabaseUrl('_dircli', true), SKILLGATE_SECRET_KEY: KEY };
    });

    it('CSV: prints the summary with the refused row, exits 1, and the other rows exist in the role org', async () => {
      const r = await runCli(['directory', 'import', 'contacts.csv'], { cwd, env });
      expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(
        ['通讯录 acme：联系人新增 3、更新 0；部门新增 3', '1 行未导入：', '  第 4 行 email 无效：carol@example', ''].join('\n'),
      );
      const db = await openDb();
      try {
        expect((await listContacts(db, 'acme')).map((c) => c.contactKey)).toEqual(['alice', 'bob', 'dave']);
        const a = await resolveActor(db, { orgId: 'acme', roleId: 'default', channel: 'telegram', platformId: '1001', nickname: '' });
        expect(a.fields).toMatchObject({ actor_name: '王小明', actor_department_path: '/总部/销售中心/销售一部/' });
      } finally {
        await db.close();
      }
    });

    it('JSON with --role and --json: exactly one JSON document, the role org used, re-import counts updates', async () => {
      const r = await runCli(['directory', 'import', 'directory.json', '--role', 'ops', '--json'], { cwd, env });
      expect(r.code).toBe(1); // item 2 (team_role boss) is refused
      const report = JSON.parse(r.stdout) as ImportReport;
      expect(report).toMatchObject({ orgId: 'opsorg', contacts: { inserted: 2, updated: 0 }, departments: { inserted: 4 } });
      expect(report.errors).toEqual([{ row: 2, column: 'team_role', message: '第 2 项 team_role 无效：boss', section: 'contacts' }]);

      writeFileSync(join(cwd, 'ok.json'), JSON.stringify([{ contact_key: 'erin', title: 'P7' }]));
      const ok = await runCli(['directory', 'import', 'ok.json', '--org', 'opsorg', '--json', '--lang', 'en'], { cwd, env });
      expect(ok.code).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ orgId: 'opsorg', contacts: { inserted: 0, updated: 1 }, errors: [] });
      const db = await openDb();
      try {
        expect(await findContact(db, 'opsorg', 'erin')).toMatchObject({ name: '赵敏', title: 'P7' });
      } finally {
        await db.close();
      }
    });

    it('exit 2 for an unreadable file, exit 1 for an unknown role or a file that is not a directory', async () => {
      const missing = await runCli(['directory', 'import', 'nope.csv'], { cwd, env });
      expect(missing.code).toBe(2);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toMatch(/cannot read nope\.csv: ENOENT/);
      const role = await runCli(['directory', 'import', 'contacts.csv', '--role', 'ghost'], { cwd, env });
      expect(role.code).toBe(1);
      expect(role.stderr).toMatch(/unknown role "ghost"/);
      writeFileSync(join(cwd, 'bad.json'), '{"contacts": [');
      const bad = await runCli(['directory', 'import', 'bad.json'], { cwd, env });
      expect(bad.code).toBe(1);
      expect(bad.stdout).toBe('');
      expect(bad.stderr).toMatch(/the JSON cannot be read/);
    });
  });
}

describe('skillgate directory import while serve holds the embedded data dir', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'sg-dir-serve-'));
  let server: ServeChild | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('goes through the local admin API; the imported contact and the demo seed are both there', async () => {
    writeFileSync(join(cwd, 'one.csv'), 'contact_key,name,department,telegram\nhank,韩,/总部/工程部/,4242\n');
    server = startServe({ cwd });
    await server.ready;
    const r = await runCli(['directory', 'import', 'one.csv', '--json'], { cwd, env: { LOG_LEVEL: 'silent' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // /总部/ and /总部/工程部/ exist already from the demo seed of the embedded default
    expect(JSON.parse(r.stdout)).toMatchObject({
      orgId: 'demo',
      contacts: { inserted: 1, updated: 0 },
      departments: { inserted: 0 },
      errors: [],
    });
    expect(await server.stop()).toBe(0);
    server = undefined;
    const db = await openEmbeddedDb(join(cwd, 'data'));
    try {
      expect((await listContacts(db, 'demo')).map((c) => c.contactKey)).toEqual(['demo_reporter', 'demo_worker', 'hank']);
    } finally {
      await db.close();
    }
  });
});
