/**
 * Two gateway processes on one PostgreSQL ("a redelivered event is dropped
 * atomically, also when two gateway processes share the database"): both receive the same N
 * events at once; every event is handled exactly once overall, per chat in order and never
 * concurrently across the processes.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';
import { childEnv } from '../helpers/cli.ts';
import { openServerDb } from '../../src/store/open.ts';
import { migrate } from '../../src/store/migrate.ts';

const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const WORKER = fileURLToPath(new URL('./two-process-worker.ts', import.meta.url));

interface Child {
  ready: Promise<void>;
  go(): void;
  result: Promise<{ accepted: number; duplicate: number }>;
}

function startWorker(url: string, name: string, n: number, chats: number): Child {
  const child = spawn(process.execPath, [RUN_TS, WORKER], {
    env: childEnv({ INBOX_TEST_DB_URL: url, INBOX_TEST_WORKER: name, INBOX_TEST_N: String(n), INBOX_TEST_CHATS: String(chats) }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const result = new Promise<{ accepted: number; duplicate: number }>((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${name} exited with ${code}: ${err}`));
      const last = out.trim().split('\n').at(-1)!;
      resolve(JSON.parse(last) as { accepted: number; duplicate: number });
    });
  });
  ready.catch(() => undefined);
  result.catch(() => undefined);
  return { ready: Promise.race([ready, result.then(() => undefined)]), go: () => child.stdin.end('go\n'), result };
}

describe.runIf(TEST_DATABASE_URL)('inbox: two gateway processes on one PostgreSQL', () => {
  it('the same N events fed to both processes at once are each handled exactly once, per chat in order, never overlapping', async () => {
    const N = 60;
    const CHATS = 6;
    const url = await serverDatabaseUrl('_inbox2', true);
    const db = openServerDb(url, { max: 2 });
    try {
      await migrate(db);
      await db.query(`CREATE TABLE public.inbox_test_log (
        seq bigserial PRIMARY KEY, worker text NOT NULL, event_id bigint NOT NULL,
        chat_key text NOT NULL, dedupe_key text NOT NULL, phase text NOT NULL)`);
      const a = startWorker(url, 'gw-a', N, CHATS);
      const b = startWorker(url, 'gw-b', N, CHATS);
      await Promise.all([a.ready, b.ready]);
      a.go();
      b.go();
      const [ra, rb] = await Promise.all([a.result, b.result]);
      expect(ra.accepted + rb.accepted).toBe(N);
      expect(ra.duplicate + rb.duplicate).toBe(N);

      const { rows: events } = await db.query<{ n: number; done: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'done')::int AS done FROM skillgate.inbox_events`,
      );
      expect(events[0]).toEqual({ n: N, done: N });
      const { rows: log } = await db.query<{ worker: string; event_id: string; chat_key: string; dedupe_key: string; phase: string }>(
        'SELECT worker, event_id::text AS event_id, chat_key, dedupe_key, phase FROM public.inbox_test_log ORDER BY seq',
      );
      const starts = log.filter((l) => l.phase === 'start');
      expect(starts).toHaveLength(N); // handled exactly once overall
      expect(new Set(starts.map((l) => l.dedupe_key)).size).toBe(N);
      for (let c = 0; c < CHATS; c++) {
        const chat = log.filter((l) => l.chat_key === `telegram:default:chat${c}`);
        // start/end strictly alternate for the same event: never two at once in a chat
        chat.forEach((l, i) => {
          expect(l.phase).toBe(i % 2 === 0 ? 'start' : 'end');
          if (i % 2 === 1) expect(l.event_id).toBe(chat[i - 1]!.event_id);
        });
        const ids = chat.filter((l) => l.phase === 'start').map((l) => BigInt(l.event_id));
        expect(ids).toEqual([...ids].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))); // receive (id) order
      }
      const workers = new Set(starts.map((l) => l.worker));
      console.info(
        `two-process inbox: ${N} events, handled by ${[...workers].join(', ')} (${starts.filter((s) => s.worker === 'gw-a').length} by gw-a)`,
      );
    } finally {
      await db.close();
    }
  });
});
