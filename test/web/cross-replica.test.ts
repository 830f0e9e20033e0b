/**
 * Cross-replica push: two web channels on one real PostgreSQL
 * database; a client connected to replica A receives a frame sent through replica B
 * (LISTEN/NOTIFY carries the seq, A reads the frame from skillgate.web_frames).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openServerDb } from '../../src/store/open.ts';
import { conversationIdFor } from '../../adapters/web/index.ts';
import { issueWebToken } from '../../src/web-auth/tokens.ts';
import { serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';
import { signedIn, startRig, type Rig } from './helpers.ts';

describe.runIf(TEST_DATABASE_URL)('web channel across replicas [server]', () => {
  let dbA: Db;
  let dbB: Db;
  let a: Rig;
  let b: Rig;
  beforeAll(async () => {
    const url = await serverDatabaseUrl('_webx', true);
    dbA = openServerDb(url, { max: 3, applicationName: 'web-replica-a' });
    dbB = openServerDb(url, { max: 3, applicationName: 'web-replica-b' });
    await migrate(dbA);
    a = await startRig(dbA);
    b = await startRig(dbB, { dataDir: a.dataDir });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dbB?.close();
    await dbA?.close();
  });

  it('a client on replica A receives, in seq order, frames sent through replica B and a status line', async () => {
    const token = await issueWebToken(dbA, 'demo', 'alice');
    const { c, hello } = await signedIn(a, { scheme: 'bearer', token });
    expect(hello.type).toBe('hello.ok');
    const conv = conversationIdFor('demo', 'alice');
    const target = { channel: 'web', account: 'default', chat_id: conv };
    await b.channel.progress!(target, '正在导入 3/10');
    expect((await c.next((f) => f.type === 'status')).text).toBe('正在导入 3/10');
    for (const t of ['from B 1', 'from B 2']) {
      const r = await b.channel.send(target, { kind: 'reply', text: t, format: 'plain', final: true });
      expect(r.ok).toBe(true);
    }
    const got = await c.count((f) => f.type === 'assistant.message', 2);
    expect(got.map((f) => f.text)).toEqual(['from B 1', 'from B 2']);
    expect(got.map((f) => f.seq)).toEqual([Number(hello.seq) + 1, Number(hello.seq) + 2]);
    // a message sent by the client on A reaches A's host, whose echo goes out through A
    c.send({ type: 'user.message', client_msg_id: 'cm_x', text: 'ping A' });
    await c.next((f) => f.type === 'assistant.message' && f.text === 'echo: ping A');
    expect(b.host.received).toHaveLength(0);
    c.close();
  });
});
