/**
 * Early start (docs/pipeline.md "Early start", src/inbox/flush-barrier.ts): on a server, a
 * message the wiring names is stored by a commit that does not wait for the disk, its turn
 * starts at once, and its acknowledgement waits for a later commit that did wait (the flush
 * barrier) — a duplicate's too. Other messages, and the embedded engine, keep the flushed
 * insert before the turn. Both engines.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createInbox } from '../../src/inbox/index.ts';
import type { Db, Queryable } from '../../src/store/db.ts';
import { captureLog, inbound, latch, until } from './helpers.ts';

const INSERT = /INSERT INTO skillgate\.inbox_events/;
const BARRIER = /txid_current\(\)/;

/** `db` noting which pool ran each inbox INSERT and barrier; barriers wait for `hold` while set. */
function watched(db: Db): { db: Db; events: string[]; hold: (p: Promise<void> | null) => void } {
  const events: string[] = [];
  let gate: Promise<void> | null = null;
  const note = (pool: string, text: string): void => {
    if (INSERT.test(text)) events.push(`${pool} insert`);
  };
  const main = async (text: string, params?: unknown[]) => {
    note('main', text);
    if (BARRIER.test(text)) {
      events.push('barrier start');
      if (gate) await gate;
      const r = await db.query(text, params);
      events.push('barrier end');
      return r;
    }
    return db.query(text, params);
  };
  const relaxed: Queryable = {
    query: (async (text: string, params?: unknown[]) => {
      note('relaxed', text);
      return db.relaxed.query(text, params);
    }) as Queryable['query'],
  };
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'query') return main;
      if (prop === 'relaxed') return relaxed;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { db: proxy, events, hold: (p) => (gate = p) };
}

describeEachEngine('inbox early start', (db, engine) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });

  it('a named message: its turn runs before the acknowledgement, which waits for a flush after the row (server only)', async () => {
    const { log } = captureLog();
    const w = watched(db());
    const inbox = createInbox(w.db, { log, pollMs: 20, earlyStart: (m) => m.channel === 'telegram' });
    const handled = latch();
    inbox.start(async () => {
      w.events.push('turn');
      handled.resolve();
    });
    const gate = latch();
    w.hold(gate.promise);
    let acked = false;
    const ack = inbox.receive(inbound('c1', 'k1')).then((s) => {
      acked = true;
      w.events.push(`ack ${s}`);
      return s;
    });
    if (engine === 'server') {
      await handled.promise;
      expect(acked).toBe(false);
      gate.resolve();
      expect(await ack).toBe('accepted');
      const e = w.events;
      expect(e[0]).toBe('relaxed insert');
      expect(e.indexOf('turn')).toBeGreaterThan(0);
      expect(e.indexOf('turn')).toBeLessThan(e.indexOf('ack accepted'));
      expect(e.indexOf('barrier start')).toBeGreaterThan(e.indexOf('relaxed insert'));
      expect(e.indexOf('barrier end')).toBeLessThan(e.indexOf('ack accepted'));

      // A redelivery is acknowledged after a flush too: the row it repeats may not be on disk yet.
      const before = e.filter((x) => x === 'barrier end').length;
      expect(await inbox.receive(inbound('c1', 'k1'))).toBe('duplicate');
      expect(e.filter((x) => x === 'barrier end').length).toBe(before + 1);
    } else {
      // Embedded: every commit is on disk when it returns; nothing changes.
      gate.resolve();
      expect(await ack).toBe('accepted');
      await handled.promise;
      expect(w.events).toContain('main insert');
      expect(w.events).not.toContain('relaxed insert');
      expect(w.events).not.toContain('barrier start');
    }
    await inbox.stop();
  });

  it('a message the wiring does not name is stored flushed before its turn, without a barrier', async () => {
    const { log } = captureLog();
    const w = watched(db());
    const inbox = createInbox(w.db, { log, pollMs: 20, earlyStart: (m) => m.channel === 'telegram' });
    const seen: string[] = [];
    inbox.start(async (ev) => void seen.push(ev.message.dedupe_key));
    const m = inbound('c2', 'k2', 'hi', 'web');
    expect(await inbox.receive(m)).toBe('accepted');
    await until(() => seen.length === 1, 'the web turn ran');
    expect(w.events).toContain('main insert');
    expect(w.events).not.toContain('relaxed insert');
    expect(w.events).not.toContain('barrier start');
    await inbox.stop();
  });
});
