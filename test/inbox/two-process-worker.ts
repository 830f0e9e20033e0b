/**
 * A gateway-like child process for the two-process inbox test: opens the server database
 * (INBOX_TEST_DB_URL), starts an inbox whose handler logs start/end rows to
 * public.inbox_test_log, waits for "go" on stdin, receives the same N events as its sibling,
 * waits until nothing is left, and prints `{"accepted":…, "duplicate":…}` on stdout.
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { openServerDb } from '../../src/store/open.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createInbox } from '../../src/inbox/index.ts';
import { inbound } from './helpers.ts';

const url = process.env.INBOX_TEST_DB_URL!;
const worker = process.env.INBOX_TEST_WORKER!;
const n = Number(process.env.INBOX_TEST_N);
const chats = Number(process.env.INBOX_TEST_CHATS);

const db = openServerDb(url, { max: 6, applicationName: `inbox-test-${worker}` });
const inbox = createInbox(db, { log: createLogger({ level: 'warn', pretty: false }), instanceId: worker, pollMs: 25 });
inbox.start(
  async (ev) => {
    const log = `INSERT INTO public.inbox_test_log (worker, event_id, chat_key, dedupe_key, phase) VALUES ($1, $2, $3, $4, $5)`;
    await db.query(log, [worker, ev.id, ev.chat_key, ev.message.dedupe_key, 'start']);
    await sleep(Math.floor(Math.random() * 4));
    await db.query(log, [worker, ev.id, ev.chat_key, ev.message.dedupe_key, 'end']);
  },
  { concurrency: 4 },
);

process.stdout.write('ready\n');
const rl = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => rl.once('line', () => resolve()));
rl.close();

const results = await Promise.all(Array.from({ length: n }, (_, i) => inbox.receive(inbound(`chat${i % chats}`, `ev${i}`))));
while ((await inbox.backlog()) > 0) await sleep(20);
await inbox.stop();
await db.close();
process.stdout.write(
  `${JSON.stringify({ accepted: results.filter((r) => r === 'accepted').length, duplicate: results.filter((r) => r === 'duplicate').length })}\n`,
);
