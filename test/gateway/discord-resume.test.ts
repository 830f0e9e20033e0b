/**
 * The Discord gateway session survives the process (docs/operations-delivery.md "Resuming a long
 * connection"), with real `skillgate serve` processes against the loopback fake gateway
 * (test/adapters/discord/fake-discord.ts), on both engines:
 * - SIGKILL, a MESSAGE_CREATE while nobody is connected, restart: the new process RESUMEs the
 *   stored session (no second IDENTIFY); the queued message is answered once, and a replayed
 *   dispatch that was already answered (the stored sequence set back to READY's) is swallowed by
 *   the inbox's dedup by message id;
 * - a graceful stop keeps the session resumable; a session Discord no longer knows (op 9
 *   `d: false`) falls back to IDENTIFY, and the stored session is the new one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../adapters/contract/index.ts';
import { openEmbeddedDb, openServerDb } from '../../src/store/open.ts';
import type { Db } from '../../src/store/db.ts';
import { installDiscord, messageBody, messageCreate, startFakeGateway, TOKEN, type FakeGateway } from '../adapters/discord/fake-discord.ts';
import { ENGINES, serverDatabaseUrl } from '../helpers/db.ts';
import { spawnGateway, until, type Gw } from '../recovery/helpers.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');
const LEASE = 'discord:default:0';

/** Whether `g` logged a line whose message contains `msg` with the fields `fields`. */
function logged(g: Gw, msg: string, fields: Record<string, unknown>): boolean {
  return (g.stderr() + g.stdout()).split('\n').some((line) => {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return false;
    }
    return typeof o.msg === 'string' && o.msg.includes(msg) && Object.entries(fields).every(([k, v]) => o[k] === v);
  });
}

interface Stored {
  session_id: string;
  seq: number;
}

for (const engine of ENGINES) {
  describe(`Discord gateway session across restarts [${engine}]`, () => {
    let rest: FakePlatform;
    let gw: FakeGateway;
    let dir: string;
    let env: Record<string, string>;
    const gws: Gw[] = [];
    /** The gateway's database, opened only while no process holds it (embedded) or any time (server). */
    let openDb: () => Promise<Db>;

    /** Replies sent over REST, by the message id they answer. */
    const answers = (id: string) =>
      rest
        .calls(/\/channels\/\d+\/messages$/)
        .filter((r) => (messageBody(r).message_reference as { message_id?: string } | undefined)?.message_id === id).length;
    const frames = (op: number) => gw.received.filter((f) => f.op === op);
    const stored = async (): Promise<Stored | null> => {
      const db = await openDb();
      try {
        const { rows } = await db.query<{ resume_state: Stored | null }>(
          'SELECT resume_state FROM skillgate.channel_leases WHERE key = $1',
          [LEASE],
        );
        return rows[0]?.resume_state ?? null;
      } finally {
        await db.close();
      }
    };
    const start = (): Gw => {
      const g = spawnGateway(env);
      gws.push(g);
      return g;
    };
    /** Send a DM and return its message id. */
    let nextId = 1_860_000_000_000_000_000n;
    const dm = (text: string): string => {
      const id = String(++nextId);
      gw.push(messageCreate({ id, content: text, chat: 'direct' }));
      return id;
    };

    beforeAll(async () => {
      gw = await startFakeGateway();
      rest = await startFakePlatform();
      installDiscord(rest, () => gw.url);
      dir = mkdtempSync(join(tmpdir(), 'sg-dcresume-'));
      const base = {
        DISCORD_BOT_TOKEN: TOKEN,
        DISCORD_API_ROOT: `${rest.baseUrl}/api`,
        SKILLGATE_SECRET_KEY: KEY,
        SKILLGATE_LEASE_TTL_SEC: '3',
        LOG_LEVEL: 'debug',
      };
      if (engine === 'server') {
        const url = await serverDatabaseUrl('_dcresume', true);
        env = { ...base, DATABASE_URL: url };
        openDb = async () => openServerDb(url, { max: 1 });
      } else {
        const dataDir = join(dir, 'data');
        env = { ...base, SKILLGATE_DATA_DIR: dataDir };
        openDb = () => openEmbeddedDb(dataDir);
      }
    });
    afterAll(async () => {
      for (const g of gws) if (g.child.exitCode === null && g.child.signalCode === null) g.child.kill('SIGKILL');
      await Promise.all(gws.map((g) => g.exited));
      await gw?.close();
      await rest?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('after SIGKILL the restarted gateway RESUMEs the stored session: the message sent meanwhile is answered once, a replay is deduped', async () => {
      const first = start();
      await first.ready;
      await gw.identified;
      const before = dm('/help');
      await until(() => answers(before) === 1, 60_000, 'the first message answered', first.stderr);
      // READY is dispatch 1, the message 2: the session is stored at most a second after it was handed to the inbox.
      await until(
        () => logged(first, 'gateway session stored', { session_id: 'sess-1', seq: 2 }),
        30_000,
        'the session stored',
        first.stderr,
      );
      first.child.kill('SIGKILL');
      await first.exited;
      expect(gw.sessionId()).toBe('sess-1');

      const queued = dm('/help'); // nobody connected: the fake keeps it for a RESUME
      expect(gw.connected()).toBe(0);
      const kept = await stored();
      expect(kept).toMatchObject({ session_id: 'sess-1', seq: 2 });
      // A write that lagged behind: the RESUME then replays the answered message too.
      const db = await openDb();
      await db.query(`UPDATE skillgate.channel_leases SET resume_state = jsonb_set(resume_state, '{seq}', '1') WHERE key = $1`, [LEASE]);
      await db.close();

      const second = start();
      const port = await second.ready;
      await until(() => answers(queued) === 1, 60_000, 'the queued message answered', second.stderr);
      const resumes = frames(6);
      expect(resumes).toHaveLength(1);
      expect(resumes[0]!.d).toMatchObject({ token: TOKEN, session_id: 'sess-1', seq: 1 });
      expect(frames(2)).toHaveLength(1); // no second IDENTIFY
      // The replayed message already answered is not answered again; the session goes on.
      const later = dm('/help');
      await until(() => answers(later) === 1, 60_000, 'a later message answered', second.stderr);
      expect(answers(before)).toBe(1);
      expect(answers(queued)).toBe(1);
      // The replayed dispatch reached the inbox again and was dropped there as a redelivery.
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/skillgate_messages_in_total\{[^}]*channel="discord"[^}]*result="duplicate"[^}]*\} 1\b/);
    }, 180_000);

    it('a graceful stop keeps the session; an invalid session (op 9) falls back to IDENTIFY and the new session is stored', async () => {
      const running = gws.at(-1)!;
      running.child.kill('SIGTERM');
      await running.exited;
      const kept = await stored();
      expect(kept?.session_id).toBe('sess-1');
      expect(kept!.seq).toBeGreaterThan(2);

      expect(gw.resumable('sess-1')).toBe(true); // closed with a resumable code, not 1000
      gw.invalidateSessions(); // Discord no longer knows sess-1
      const resumesBefore = frames(6).length;
      const third = start();
      await third.ready;
      await until(() => frames(2).length === 2, 60_000, 'a new IDENTIFY after the invalid session', third.stderr);
      expect(frames(6).length).toBe(resumesBefore + 1);
      expect(frames(6).at(-1)!.d).toMatchObject({ session_id: 'sess-1' });
      expect(gw.sessionId()).toBe('sess-2');
      const after = dm('/help');
      await until(() => answers(after) === 1, 60_000, 'a message in the new session answered', third.stderr);
      expect(logged(third, 'gateway session cleared', {})).toBe(true);
      await until(() => logged(third, 'gateway session stored', { session_id: 'sess-2' }), 30_000, 'sess-2 stored', third.stderr);
      third.child.kill('SIGTERM');
      await third.exited;
      expect((await stored())?.session_id).toBe('sess-2');
    }, 180_000);
  });
}
