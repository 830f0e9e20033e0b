/**
 * Field sizes at the adapter boundary (src/channel/bounds.ts): a validly signed Feishu event
 * whose chat id is 300 000 characters is a 400 through the real webhook route and the real
 * inbox (it would fail at the database's index otherwise, and the platform would redeliver it
 * forever); nothing is stored. Both engines.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFeishuAdapter, type FeishuAdapter } from '../../../adapters/feishu/index.ts';
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { createWebhookRouter } from '../../../src/channel/webhooks.ts';
import { createInbox } from '../../../src/inbox/index.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { describeEachEngine } from '../../helpers/db.ts';
import { installOpenApi } from './open-api.ts';
import { FIXTURE_NOW_MS, SECRETS, encryptedRequest, fixture } from './helpers.ts';

const log = createLogger({ level: 'silent', pretty: false });
let fake: FakePlatform;
let adapter: FeishuAdapter;

beforeAll(async () => {
  fake = await startFakePlatform();
  installOpenApi(fake);
  adapter = createFeishuAdapter({
    account: 'enc',
    appId: SECRETS.app_id,
    appSecret: 'secret',
    domain: fake.baseUrl,
    mode: 'webhook',
    log,
    verificationToken: SECRETS.verification_token,
    encryptKey: SECRETS.encrypt_key,
    now: () => FIXTURE_NOW_MS,
  });
});
afterAll(async () => {
  await fake.close();
});

describeEachEngine('webhook field bounds', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('a signed event with a 300 000-character chat_id is 400 and not stored; the normal event is 200 and stored', async () => {
    const inbox = createInbox(db(), { log });
    const app = express();
    app.use(
      createWebhookRouter({
        adapterFor: () => adapter,
        host: () => ({ receive: (m) => inbox.receive(m), notice: async () => undefined }),
        log,
      }),
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/feishu/enc`;
      const post = async (plain: string): Promise<number> => {
        const req = encryptedRequest(plain, { timestampS: Math.floor(FIXTURE_NOW_MS / 1000) });
        const res = await fetch(url, { method: 'POST', headers: req.headers as Record<string, string>, body: req.body });
        return res.status;
      };
      const ev = JSON.parse(fixture('p2p_text.json').toString()) as {
        header: { event_id: string };
        event: { message: { chat_id: string } };
      };
      ev.header.event_id = 'huge_chat';
      ev.event.message.chat_id = 'oc_' + 'x'.repeat(300_000);
      expect(await post(JSON.stringify(ev))).toBe(400);
      expect(await post(JSON.stringify(ev))).toBe(400); // a redelivery too, never a 503
      const { rows } = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.inbox_events`);
      expect(rows[0]!.n).toBe(0);
      expect(await post(fixture('p2p_text.json').toString())).toBe(200);
      const after = await db().query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.inbox_events`);
      expect(after.rows[0]!.n).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
