/**
 * Restart of an embedded gateway: a
 * file-backed PGlite closed and reopened keeps the stored event and its dedup key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedDb } from '../../src/store/open.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createInbox, type InboxEvent } from '../../src/inbox/index.ts';
import { captureLog, inbound, until } from './helpers.ts';

describe('inbox: restart of a file-backed embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-inbox-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an event stored before shutdown is processed once after reopening; its redelivery is a duplicate', async () => {
    const { log } = captureLog();
    const m = inbound('c-restart', '5001');
    const before = await openEmbeddedDb(dir);
    try {
      await migrate(before);
      expect(await createInbox(before, { log }).receive(m)).toBe('accepted');
    } finally {
      await before.close(); // the process ends before any worker ran
    }

    const after = await openEmbeddedDb(dir);
    try {
      const inbox = createInbox(after, { log, pollMs: 20 });
      expect(await inbox.receive(structuredClone(m))).toBe('duplicate');
      const handled: InboxEvent[] = [];
      inbox.start(async (ev) => void handled.push(ev));
      await until(async () => (await inbox.backlog()) === 0, 'stored event processed after restart');
      expect(await inbox.receive(structuredClone(m))).toBe('duplicate');
      await inbox.stop();
      expect(handled.map((e) => [e.message.dedupe_key, e.attempts])).toEqual([[m.dedupe_key, 1]]);
      expect(handled[0]!.message).toEqual(m);
    } finally {
      await after.close();
    }
  });
});
