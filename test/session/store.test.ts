import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  attachmentRefs,
  getAttachment,
  getOrCreateSession,
  getSession,
  listAttachments,
  registerAttachment,
  toAttachmentItems,
  workspaceDir,
} from '../../src/session/index.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'skillgate-sess-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const base = { roleId: 'default', orgId: 'demo', channel: 'web', ownerKey: 'demo_reporter', dataDir };

describeEachEngine('session store', (db, engine) => {
  const sid = (s: string) => `${s}_${engine}`;

  beforeAll(async () => {
    await migrate(db());
  });

  it('R-PCTX-06: getOrCreateSession stores the session with its workspace and creates the folder', async () => {
    const s = await getOrCreateSession(db(), { ...base, id: sid('s1') });
    expect(s).toMatchObject({ id: sid('s1'), roleId: 'default', orgId: 'demo', channel: 'web', ownerKey: 'demo_reporter' });
    expect(s.workspaceDir).toBe(workspaceDir(dataDir, 'default', sid('s1')));
    expect(existsSync(s.workspaceDir)).toBe(true);
    expect(s.createdAt).toBeInstanceOf(Date);
    const again = await getOrCreateSession(db(), { ...base, id: sid('s1'), ownerKey: 'someone_else' });
    expect(again.ownerKey).toBe('demo_reporter');
    expect(again.createdAt.getTime()).toBe(s.createdAt.getTime());
    expect(again.lastActiveAt.getTime()).toBeGreaterThanOrEqual(s.lastActiveAt.getTime());
    expect(await getSession(db(), sid('s1'))).toEqual(again);
    expect(await getSession(db(), 'no_such_session')).toBeNull();
  });

  it('getOrCreateSession without an id makes a fresh unguessable one; an explicit workspace is kept', async () => {
    const a = await getOrCreateSession(db(), base);
    const b = await getOrCreateSession(db(), base);
    expect(a.id).toMatch(/^s_[A-Za-z0-9_-]{22}$/);
    expect(a.id).not.toBe(b.id);
    const ws = join(dataDir, 'my-ws');
    const c = await getOrCreateSession(db(), { ...base, id: sid('cli'), channel: 'cli', workspaceDir: ws });
    expect(c.workspaceDir).toBe(ws);
    expect(existsSync(ws)).toBe(true);
  });

  it('R-FILE-06, A-10: every registered attachment gets a reference id, numbered per kind and per session (img_/video_/audio_/file_)', async () => {
    await getOrCreateSession(db(), { ...base, id: sid('n1') });
    await getOrCreateSession(db(), { ...base, id: sid('n2') });
    const reg = (session: string, filename: string, extra: Record<string, unknown> = {}) =>
      registerAttachment(db(), {
        sessionId: sid(session),
        filename,
        localPath: join(dataDir, 'attachments', session, filename),
        origin: 'upload',
        ...extra,
      });
    const refs = [];
    for (const f of ['a.png', 'b.jpg', 'c.pdf', 'd.mp4', 'e.mp3', 'f.png']) refs.push((await reg('n1', f)).ref);
    expect(refs).toEqual(['img_1', 'img_2', 'file_1', 'video_1', 'audio_1', 'img_3']);
    expect((await reg('n2', 'z.png')).ref).toBe('img_1');
    // an explicit type and a MIME type win over the extension
    expect((await reg('n2', 'blob', { mime: 'image/webp' })).ref).toBe('img_2');
    expect((await reg('n2', 'shot.bin', { type: 'video' })).ref).toBe('video_1');
  });

  it('A-10: registration is idempotent for the same session + local path', async () => {
    await getOrCreateSession(db(), { ...base, id: sid('idem') });
    const spec = { sessionId: sid('idem'), filename: 'x.png', localPath: join(dataDir, 'x.png'), origin: 'upload' as const };
    const first = await registerAttachment(db(), spec);
    const second = await registerAttachment(db(), { ...spec, filename: 'renamed.png', origin: 'artifact' });
    expect(second).toEqual(first);
    expect((await registerAttachment(db(), { ...spec, localPath: join(dataDir, 'y.png') })).ref).toBe('img_2');
    expect(await listAttachments(db(), sid('idem'))).toHaveLength(2);
  });

  it('A-10: concurrent registrations in one session get distinct consecutive numbers', async () => {
    await getOrCreateSession(db(), { ...base, id: sid('race') });
    const all = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        registerAttachment(db(), {
          sessionId: sid('race'),
          filename: `p${i}.png`,
          localPath: join(dataDir, `race/p${i}.png`),
          origin: 'upload',
        }),
      ),
    );
    expect(all.map((a) => a.ref).sort()).toEqual(['img_1', 'img_2', 'img_3', 'img_4', 'img_5', 'img_6', 'img_7', 'img_8']);
    const same = await Promise.all(
      Array.from({ length: 4 }, () =>
        registerAttachment(db(), {
          sessionId: sid('race'),
          filename: 'dup.png',
          localPath: join(dataDir, 'race/dup.png'),
          origin: 'upload',
        }),
      ),
    );
    expect(new Set(same.map((a) => a.id)).size).toBe(1);
    expect(await listAttachments(db(), sid('race'))).toHaveLength(9);
  });

  it('a repeated registration inside a transaction does not abort it', async () => {
    await getOrCreateSession(db(), { ...base, id: sid('tx') });
    const spec = { sessionId: sid('tx'), filename: 'a.png', localPath: join(dataDir, 'tx/a.png'), origin: 'artifact' as const };
    const n = await db().transaction(async (tx) => {
      await registerAttachment(tx, spec);
      await registerAttachment(tx, spec);
      const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM skillgate.attachments WHERE session_id = $1', [
        sid('tx'),
      ]);
      return rows[0]!.n;
    });
    expect(n).toBe(1);
  });

  it('attachment ids are unguessable 128-bit base64url; an unknown session is refused (FK)', async () => {
    await getOrCreateSession(db(), { ...base, id: sid('ids') });
    const a = await registerAttachment(db(), {
      sessionId: sid('ids'),
      filename: 'a.txt',
      localPath: join(dataDir, 'ids/a.txt'),
      origin: 'upload',
      sizeBytes: 3,
      mime: 'text/plain',
    });
    const b = await registerAttachment(db(), {
      sessionId: sid('ids'),
      filename: 'b.txt',
      localPath: join(dataDir, 'ids/b.txt'),
      origin: 'upload',
    });
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(a.id).not.toBe(b.id);
    expect(a).toMatchObject({ sizeBytes: 3, mime: 'text/plain', url: '', type: 'file', ref: 'file_1' });
    expect(b).toMatchObject({ sizeBytes: null, mime: null });
    expect(await getAttachment(db(), a.id)).toEqual(a);
    expect(await getAttachment(db(), 'nope')).toBeNull();
    await expect(
      registerAttachment(db(), { sessionId: 'missing_session', filename: 'a.txt', localPath: '/x/a.txt', origin: 'upload' }),
    ).rejects.toMatchObject({ code: '23503' });
  });

  it('R-CTX-05/R-CTX-06: list in ref order; items carry att_type === type; refs map ref → local_path', async () => {
    await getOrCreateSession(db(), { ...base, id: sid('list') });
    const reg = (filename: string, origin: 'upload' | 'artifact' | 'materialized', url = '') =>
      registerAttachment(db(), { sessionId: sid('list'), filename, localPath: join(dataDir, 'list', filename), origin, url });
    await reg('doc.pdf', 'upload');
    await reg('b.png', 'upload');
    await reg('chart.png', 'artifact');
    await reg('fetched.mp4', 'materialized', 'https://example.com/v.mp4');
    await registerAttachment(db(), {
      sessionId: sid('list'),
      filename: 'remote.mp3',
      localPath: '',
      url: 'https://example.com/a.mp3',
      origin: 'materialized',
    });
    const list = await listAttachments(db(), sid('list'));
    expect(list.map((a) => `${a.ref}:${a.origin}`)).toEqual([
      'img_1:upload',
      'img_2:artifact',
      'video_1:materialized',
      'audio_1:materialized',
      'file_1:upload',
    ]);
    const items = toAttachmentItems(list);
    for (const item of items) expect(item.att_type).toBe(item.type);
    expect(items[2]).toEqual({
      type: 'video',
      att_type: 'video',
      filename: 'fetched.mp4',
      local_path: join(dataDir, 'list', 'fetched.mp4'),
      url: 'https://example.com/v.mp4',
    });
    expect(items[3]).toMatchObject({ local_path: '', url: 'https://example.com/a.mp3' });
    expect(attachmentRefs(list)).toEqual({
      img_1: join(dataDir, 'list', 'b.png'),
      img_2: join(dataDir, 'list', 'chart.png'),
      video_1: join(dataDir, 'list', 'fetched.mp4'),
      file_1: join(dataDir, 'list', 'doc.pdf'),
    });
  });
});
