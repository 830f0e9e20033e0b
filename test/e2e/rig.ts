/**
 * The repair-ticket end-to-end rig: a real gateway (`startGateway`, the
 * built-in skills, the real outbox and pending replies) whose Feishu and Telegram channels and
 * Apprise API point at loopback fakes speaking the real wire formats:
 * - Feishu Open API: the contract kit's fake with test/adapters/feishu/open-api.ts routes plus
 *   message resources (image download);
 * - Telegram Bot API: test/adapters/telegram/fake-telegram.ts (getFile + file download);
 * - Apprise API: test/fixtures/apprise/fake-apprise-api.ts (records `POST /notify/`).
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakePlatform, type FakePlatform } from '../../adapters/contract/index.ts';
import { loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { importDirectory } from '../../src/identity/import.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { putNotifyTarget } from '../../src/orchestration/notify-targets.ts';
import type { DbEngine } from '../../src/store/db.ts';
import { installOpenApi } from '../adapters/feishu/open-api.ts';
import { SECRETS, encryptedRequest } from '../adapters/feishu/helpers.ts';
import { installTelegram, SECRET as TG_SECRET, TOKEN as TG_TOKEN } from '../adapters/telegram/fake-telegram.ts';
import { FakeAppriseApi } from '../fixtures/apprise/fake-apprise-api.ts';
import { serverDatabaseUrl } from '../helpers/db.ts';

/** A small PNG (1×1) used as the photos. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** The running rig. */
export interface Rig {
  gateway: Gateway;
  feishu: FakePlatform;
  telegram: FakePlatform;
  apprise: FakeAppriseApi;
  /** file_id → file served by the fake Bot API (getFile + download). */
  tgFiles: Map<string, { file_path: string; data: Buffer }>;
  close(): Promise<void>;
}

/** The SKILLGATE_SECRET_KEY of a server-engine rig (pass it in `env` for the embedded one too). */
export const KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * Start fakes and a gateway on `engine`, import `directory` (JSON contacts) and set the
 * notify target `ops`. Channel variables go through process.env (what the factories read);
 * `close()` restores it.
 */
export async function startRig(
  engine: DbEngine,
  directory: Record<string, unknown>[],
  opts: { feishu?: boolean; telegram?: boolean; env?: Record<string, string>; log?: Logger } = {},
): Promise<Rig> {
  const saved = { ...process.env };
  const feishu = await startFakePlatform();
  installOpenApi(feishu);
  feishu.route('GET', '/open-apis/im/v1/messages/:id/resources/:key', () => ({ body: PNG, headers: { 'content-type': 'image/png' } }));
  const telegram = await startFakePlatform();
  const tgFiles = new Map<string, { file_path: string; data: Buffer }>();
  installTelegram(telegram, tgFiles);
  const apprise = new FakeAppriseApi();
  await apprise.listen();

  if (opts.feishu !== false) {
    Object.assign(process.env, {
      FEISHU_APP_ID: SECRETS.app_id,
      FEISHU_APP_SECRET: 'feishu-app-secret',
      FEISHU_ENCRYPT_KEY: SECRETS.encrypt_key,
      FEISHU_VERIFICATION_TOKEN: SECRETS.verification_token,
      FEISHU_DOMAIN: feishu.baseUrl,
      FEISHU_MODE: 'webhook',
    });
  }
  if (opts.telegram !== false) {
    Object.assign(process.env, {
      TELEGRAM_BOT_TOKEN: TG_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: TG_SECRET,
      TELEGRAM_API_ROOT: telegram.baseUrl,
      TELEGRAM_MODE: 'webhook',
    });
  }
  process.env.APPRISE_API_URL = apprise.url;
  delete process.env.SKILLGATE_PUBLIC_URL;
  const dir = mkdtempSync(join(tmpdir(), 'sg-repair-'));
  const env: Record<string, string> = { SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0', APPRISE_API_URL: apprise.url, ...opts.env };
  if (engine === 'server') Object.assign(env, { DATABASE_URL: await serverDatabaseUrl('_repair', true), SKILLGATE_SECRET_KEY: KEY });
  const gateway = await startGateway(loadSettings(env, dir), opts.log ?? createLogger({ level: 'silent' }), { ...opts.env });
  if (directory.length > 0) {
    const rep = await importDirectory(gateway.db, {
      orgId: 'demo',
      roleId: 'default',
      data: JSON.stringify({ contacts: directory }),
      format: 'json',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    if (rep.errors.length > 0) throw new Error(`directory import: ${JSON.stringify(rep.errors)}`);
  }
  await putNotifyTarget(gateway.db, 'ops', { kind: 'urls', urls: ['json://ops.example.test/alerts'] });
  return {
    gateway,
    feishu,
    telegram,
    apprise,
    tgFiles,
    async close() {
      await gateway.close();
      await Promise.all([feishu.close(), telegram.close(), apprise.close()]);
      process.env = saved;
    },
  };
}

let seq = 0;

/** POST a signed, encrypted Feishu `im.message.receive_v1` event from `openId` (p2p). */
export async function feishuMessage(
  rig: Rig,
  openId: string,
  message: { type: 'text' | 'post' | 'image'; content: Record<string, unknown> },
): Promise<Response> {
  const n = ++seq;
  const now = Date.now();
  const event = {
    schema: '2.0',
    header: {
      event_id: `e2e_evt_${now}_${n}`,
      token: SECRETS.verification_token,
      create_time: String(now),
      event_type: 'im.message.receive_v1',
      tenant_key: 'tenant_test_0001',
      app_id: SECRETS.app_id,
    },
    event: {
      sender: {
        sender_id: { open_id: openId, union_id: `on_${openId}`, user_id: `u_${n}` },
        sender_type: 'user',
        tenant_key: 'tenant_test_0001',
      },
      message: {
        message_id: `om_e2e_${now}_${n}`,
        create_time: String(now),
        chat_id: 'oc_test_p2p_000000000000000000001',
        chat_type: 'p2p',
        message_type: message.type,
        content: JSON.stringify(message.content),
      },
    },
  };
  const req = encryptedRequest(JSON.stringify(event), { timestampS: Math.floor(now / 1000), nonce: `n${n}` });
  return fetch(`${rig.gateway.url}/webhooks/feishu`, { method: 'POST', headers: req.headers as Record<string, string>, body: req.body });
}

/** POST a Telegram webhook update (private chat with `userId`) with the secret token. */
export async function telegramUpdate(rig: Rig, userId: number, message: Record<string, unknown>): Promise<Response> {
  const n = 700000 + ++seq;
  const update = {
    update_id: n,
    message: {
      message_id: n,
      date: Math.floor(Date.now() / 1000),
      chat: { id: userId, type: 'private', first_name: '四' },
      from: { id: userId, is_bot: false, first_name: '四', language_code: 'zh-hans' },
      ...message,
    },
  };
  return fetch(`${rig.gateway.url}/webhooks/telegram`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET },
    body: JSON.stringify(update),
  });
}

/** Poll `cond` until true (a condition, not a duration: throws after `ms`). */
export async function until(cond: () => boolean | Promise<boolean>, ms = 30_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what} not met in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The 工单 rows of org demo, oldest first. */
export async function tickets(rig: Rig): Promise<Record<string, unknown>[]> {
  return (await rig.gateway.db.query<Record<string, unknown>>('SELECT * FROM org_data_demo."工单" ORDER BY id')).rows;
}
