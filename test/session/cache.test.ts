/**
 * The per-Db caches of sessions and attachment lists stay exact: a
 * registration in this process (also inside a transaction) is seen by the next list; on a
 * server a registration's own statement notifies every replica, and a replica's cache drops
 * the session when the notification arrives. Both engines.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { getOrCreateSession, listAttachments, registerAttachment } from '../../src/session/index.ts';
import { ATTACHMENTS_CHANNEL, cacheReady } from '../../src/session/cache.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openServerDb } from '../../src/store/open.ts';
import { describeEachEngine, serverDatabaseUrl } from '../helpers/db.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'sg-session-cache-'));

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeEachEngine('session caches', (db, engine) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('R-FILE-06, A-10: a list read after a registration (direct or in a committed transaction) has it; a session is read once', async () => {
    const spec = { id: `s_cache_${engine}`, roleId: 'default', orgId: 'demo', channel: 'web', ownerKey: 'alice', dataDir };
    const s = await getOrCreateSession(db(), spec);
    expect(await getOrCreateSession(db(), spec)).toEqual(s);
    expect(await listAttachments(db(), s.id)).toEqual([]);
    expect(await listAttachments(db(), s.id)).toEqual([]); // cached now

    await registerAttachment(db(), { sessionId: s.id, filename: 'a.png', localPath: join(s.workspaceDir, 'a.png'), origin: 'upload' });
    expect((await listAttachments(db(), s.id)).map((a) => a.ref)).toEqual(['img_1']);

    await db().transaction((tx) =>
      registerAttachment(tx, { sessionId: s.id, filename: 'b.pdf', localPath: join(s.workspaceDir, 'b.pdf'), origin: 'artifact' }),
    );
    expect((await listAttachments(db(), s.id)).map((a) => a.ref)).toEqual(['img_1', 'file_1']);

    // a caller changing a returned list or record does not change the cache
    const list = await listAttachments(db(), s.id);
    list.pop();
    expect(await listAttachments(db(), s.id)).toHaveLength(2);
  });

  if (engine === 'server') {
    it('R-FILE-06: on a server a registration notifies other replicas, whose cached list then has it', async () => {
      const other = openServerDb(await serverDatabaseUrl(), { max: 2, applicationName: 'skillgate-test-replica' });
      try {
        const s = await getOrCreateSession(db(), {
          id: 's_cache_replica',
          roleId: 'default',
          orgId: 'demo',
          channel: 'web',
          ownerKey: 'bob',
          dataDir,
        });
        // The registering statement itself announces the session on the channel.
        const heard: string[] = [];
        const off = await other.listen(ATTACHMENTS_CHANNEL, (p) => void heard.push(p));
        await registerAttachment(db(), { sessionId: s.id, filename: 'c.png', localPath: join(s.workspaceDir, 'c.png'), origin: 'upload' });
        await until(async () => heard.includes(s.id), 'the registration NOTIFY');
        await off();

        // The replica's cache (primed) drops the session on a NOTIFY from a registration it did not see.
        expect(await cacheReady(other)).toBe(true);
        expect(await listAttachments(other, s.id)).toHaveLength(1);
        await db().query(
          `INSERT INTO skillgate.attachments (id, session_id, ref, type, seq, filename, local_path, url, origin)
           VALUES ('att_cache_raw_0000000001', $1, 'file_1', 'file', 1, 'd.txt', '', 'https://example.invalid/d.txt', 'materialized')`,
          [s.id],
        );
        expect(await listAttachments(other, s.id)).toHaveLength(1); // cached: the row came with no notification
        await db().query('SELECT pg_notify($1, $2)', [ATTACHMENTS_CHANNEL, s.id]);
        await until(async () => (await listAttachments(other, s.id)).length === 2, 'the replica list after the NOTIFY');
      } finally {
        await other.close();
      }
    });
  }
});
