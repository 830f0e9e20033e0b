/**
 * Group commit of audit rows (src/audit/sink.ts): rows added together go out in one INSERT,
 * `durable()` resolves only once they are in the table, a failed write is logged and does not
 * fail anyone, and `close()` writes what still waits. The hook hands its rows to a sink when
 * one is given, and the composed skill call records every call through it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { beforeAll, beforeEach, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/entry.ts';
import { createAuditSink } from '../../src/audit/sink.ts';
import { resolveWalls } from '../../src/config/walls.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { wireSkillCall } from '../../src/wiring/skill-call.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { looseRequest } from '../helpers/request.ts';

const SKILLS = fileURLToPath(new URL('../bench/skills/', import.meta.url));

function entry(skill: string, sessionId = 's1'): AuditEntry {
  return {
    at: new Date('2026-06-30T12:00:00Z'),
    orgId: 'demo',
    roleId: 'default',
    channel: 'web',
    line: 'chat',
    sessionId,
    actorEmpNo: 'E1',
    actorName: '张三',
    skill,
    action: '',
    paramsHash: 'a'.repeat(64),
    paramKeys: ['b', 'a'],
    success: true,
    errorType: null,
    durationMs: 5,
    confirmTokenHash: null,
  };
}

/** `db` with its statements writing audit_log (an INSERT, or a COPY of several rows) counted. */
function countingInserts(db: Db): { db: Db; inserts: () => number } {
  let n = 0;
  const counted = Object.create(db) as Db;
  counted.query = ((text: string, values?: unknown[]) => {
    if (/INSERT INTO skillgate\.audit_log/.test(text)) n++;
    return db.query(text, values as never);
  }) as Db['query'];
  if (db.copyFrom) {
    const copy = db.copyFrom.bind(db);
    counted.copyFrom = (sql, data) => {
      if (/^COPY skillgate\.audit_log /.test(sql)) n++;
      return copy(sql, data);
    };
  }
  return { db: counted, inserts: () => n };
}

async function skills(db: Db): Promise<string[]> {
  const { rows } = await db.query<{ skill: string }>('SELECT skill FROM skillgate.audit_log ORDER BY id');
  return rows.map((r) => r.skill);
}

describeEachEngine('audit sink: group commit', (db) => {
  const log = createLogger({ level: 'silent' });
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('DELETE FROM skillgate.audit_log');
  });

  it('rows added together are written in one INSERT, and durable() resolves once they are in the table', async () => {
    const c = countingInserts(db());
    const sink = createAuditSink(c.db, { log, intervalMs: 60_000 });
    for (const s of ['a', 'b', 'c']) sink.add(entry(s));
    expect(await skills(db())).toEqual([]);
    await sink.durable();
    expect(await skills(db())).toEqual(['a', 'b', 'c']);
    expect(c.inserts()).toBe(1);
    const { rows } = await db().query<{ param_keys: string[] }>('SELECT param_keys FROM skillgate.audit_log LIMIT 1');
    expect(rows[0]!.param_keys).toEqual(['b', 'a']);
    await sink.durable();
    expect(c.inserts()).toBe(1);
    await sink.close();
  });

  it('rows keep a name with a lone surrogate or NUL (as U+FFFD), written together or alone', async () => {
    const sink = createAuditSink(db(), { log, intervalMs: 60_000 });
    sink.add({ ...entry('odd-1'), actorName: 'A\ud800B' });
    sink.add({ ...entry('odd-2'), actorName: 'C\u0000D' });
    await sink.durable();
    const { rows } = await db().query<{ actor_name: string }>(
      "SELECT actor_name FROM skillgate.audit_log WHERE skill IN ('odd-1', 'odd-2') ORDER BY skill",
    );
    expect(rows.map((r) => r.actor_name)).toEqual(['A\uFFFDB', 'C\uFFFDD']);
    sink.add({ ...entry('odd-3'), actorName: 'E\u0000F' });
    await sink.durable();
    const alone = await db().query<{ actor_name: string }>("SELECT actor_name FROM skillgate.audit_log WHERE skill = 'odd-3'");
    expect(alone.rows[0]?.actor_name).toBe('E\uFFFDF');
    await sink.close();
  });

  it('a batch stores every value as a single row does: tabs, newlines, backslashes, quotes, NULLs, odd parameter names', async () => {
    const odd = {
      actorName: 'tab\there\nnew\\line\r"q"',
      action: '\\N',
      errorType: 'NULL',
      confirmTokenHash: null,
      success: false,
      paramKeys: ['', 'NULL', 'a"b', 'c\\d', '{x,y}', 'tab\tkey', ' sp ', 'nul\u0000', 'half\udc00'],
    };
    const read = async (skill: string) => {
      const { rows } = await db().query<Record<string, unknown>>(
        'SELECT actor_name, action, error_type, confirm_token_hash, success, param_keys, at, duration_ms FROM skillgate.audit_log WHERE skill = $1',
        [skill],
      );
      return rows[0];
    };
    const sink = createAuditSink(db(), { log, intervalMs: 60_000 });
    sink.add({ ...entry('batch-1'), ...odd });
    sink.add({ ...entry('batch-2'), paramKeys: [] });
    await sink.durable();
    sink.add({ ...entry('alone'), ...odd });
    await sink.durable();
    const alone = await read('alone');
    expect(alone).toMatchObject({
      actor_name: odd.actorName,
      action: '\\N',
      error_type: 'NULL',
      confirm_token_hash: null,
      success: false,
      param_keys: ['', 'NULL', 'a"b', 'c\\d', '{x,y}', 'tab\tkey', ' sp ', 'nul\uFFFD', 'half\uFFFD'],
      duration_ms: 5,
    });
    expect(await read('batch-1')).toEqual(alone);
    expect((await read('batch-2'))?.param_keys).toEqual([]);
    await sink.close();
  });

  it('a full batch is written without waiting; durable() covers rows added while a write is in flight', async () => {
    const c = countingInserts(db());
    const sink = createAuditSink(c.db, { log, intervalMs: 60_000, maxRows: 2 });
    sink.add(entry('a'));
    sink.add(entry('b'));
    sink.add(entry('c'));
    await sink.durable();
    expect(await skills(db())).toEqual(['a', 'b', 'c']);
    expect(c.inserts()).toBe(2);
    await sink.close();
  });

  it('the interval writes rows nobody waits for; close() writes what still waits', async () => {
    const sink = createAuditSink(db(), { log, intervalMs: 1 });
    sink.add(entry('timer'));
    for (let i = 0; i < 200 && (await skills(db())).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await skills(db())).toEqual(['timer']);
    const later = createAuditSink(db(), { log, intervalMs: 60_000 });
    later.add(entry('closing'));
    await later.close();
    expect(await skills(db())).toEqual(['timer', 'closing']);
    await sink.close();
  });

  it('a failed write is logged without parameters and durable() still resolves', async () => {
    const lines: string[] = [];
    const warnLog = createLogger({
      level: 'warn',
      destination: new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) }),
    });
    const broken = Object.create(db()) as Db;
    broken.query = (() => Promise.reject(new Error('relation is gone'))) as Db['query'];
    broken.copyFrom = () => Promise.reject(new Error('relation is gone'));
    const sink = createAuditSink(broken, { log: warnLog, intervalMs: 60_000 });
    sink.add(entry('lost'));
    await sink.durable();
    expect(lines.join('')).toMatch(/audit log: calls could not be recorded/);
    expect(lines.join('')).toMatch(/"rows":1/);
    // several rows (a COPY where the Db has one) fail and are logged the same way
    sink.add(entry('lost-1'));
    sink.add(entry('lost-2'));
    await sink.durable();
    expect(lines.join('')).toMatch(/"rows":2/);
    expect(lines.join('')).not.toMatch(/a{64}/);
    await sink.close();
  });

  it('the composed skill call hands its rows to the sink: none written until durable(), then one INSERT for all calls', async () => {
    const c = countingInserts(db());
    const sink = createAuditSink(c.db, { log, intervalMs: 60_000 });
    const services = {
      db: c.db,
      registry: await discoverSkills([{ dir: SKILLS, source: 'shared' }]),
      settings: { dataDir: mkdtempSync(join(tmpdir(), 'sg-sink-')), walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log,
    };
    const call = wireSkillCall(services, { auditSink: sink });
    const defaults = {
      role_id: 'default',
      org_id: 'demo',
      session_id: 'sink',
      channel: 'cli',
      chat_mode: true,
      allow_sql: true,
      team_role: 'member',
      is_admin: false,
    };
    for (let i = 0; i < 3; i++)
      expect(await call(looseRequest({ skill: 'bench_noop', input: {}, defaults, line: 'cli' }))).toMatchObject({ success: true });
    expect(c.inserts()).toBe(0);
    await sink.durable();
    expect(await skills(db())).toEqual(['bench_noop', 'bench_noop', 'bench_noop']);
    expect(c.inserts()).toBe(1);
    await sink.close();
  });

  it('take() hands the waiting rows of one session over as one write a carrying statement commits; the others stay; giveBack() returns them', async () => {
    const c = countingInserts(db());
    const sink = createAuditSink(c.db, { log, intervalMs: 60_000 });
    sink.add(entry('mine-1', 'turn'));
    sink.add(entry('other', 'elsewhere'));
    sink.add(entry('mine-2', 'turn'));
    expect(await sink.take('nobody')).toBeUndefined();
    const taken = await sink.take('turn');
    // the two rows of the session, one array per column (the skill column is the ninth)
    expect(taken?.write.params[8]).toEqual(['mine-1', 'mine-2']);
    // A carrying statement: the rows as a CTE of another write (here a plain SELECT).
    await db().query(`WITH side AS (${taken!.write.sql((i) => `$${i}`)}) SELECT 1`, [...taken!.write.params]);
    expect(await skills(db())).toEqual(['mine-1', 'mine-2']);
    await sink.durable();
    expect(await skills(db())).toEqual(['mine-1', 'mine-2', 'other']);
    expect(c.inserts()).toBe(1);
    // A carrying statement that failed: the rows go back and are written with the next batch.
    sink.add(entry('retry', 'turn'));
    const again = await sink.take('turn');
    expect(await sink.take('turn')).toBeUndefined();
    again!.giveBack();
    await sink.durable();
    expect(await skills(db())).toEqual(['mine-1', 'mine-2', 'other', 'retry']);
    await sink.close();
  });

  it('take() waits for a write in flight that holds rows of the session, and then finds none left', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = Object.create(db()) as Db;
    slow.query = (async (text: string, values?: unknown[]) => {
      await gate;
      return db().query(text, values as never);
    }) as Db['query'];
    const sink = createAuditSink(slow, { log, intervalMs: 60_000 });
    sink.add(entry('in-flight', 'turn'));
    const writing = sink.durable();
    await new Promise((r) => setTimeout(r, 0)); // the write has started and waits at the gate
    let tookBeforeWrite = true;
    const took = sink.take('turn').then((t) => {
      tookBeforeWrite = false;
      return t;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(tookBeforeWrite).toBe(true);
    release();
    await writing;
    expect(await took).toBeUndefined();
    expect(await skills(db())).toEqual(['in-flight']);
    await sink.close();
  });
});
