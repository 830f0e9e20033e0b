/**
 * Audit retention with an injected clock (SKILLGATE_AUDIT_RETENTION_DAYS, default 90) and the
 * local admin API route `POST /api/local/audit` that `skillgate audit` uses while `serve`
 * holds the embedded data dir.
 */
import type { AddressInfo } from 'node:net';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/audit/entry.ts';
import { auditRetentionDays, startAuditRetention } from '../../src/audit/retention.ts';
import { insertAudit, purgeAudit, queryAudit } from '../../src/audit/store.ts';
import { createApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/log/logger.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { Db } from '../../src/store/db.ts';
import { describeEachEngine } from '../helpers/db.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-06-30T12:00:00Z');
const log = createLogger({ level: 'silent' });

function entry(skill: string, at: Date, over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    at,
    orgId: 'demo',
    roleId: 'default',
    channel: 'web',
    line: 'chat',
    sessionId: 's1',
    actorEmpNo: 'E1',
    actorName: '张三',
    skill,
    action: '',
    paramsHash: 'a'.repeat(64),
    paramKeys: [],
    success: true,
    errorType: null,
    durationMs: 5,
    confirmTokenHash: null,
    ...over,
  };
}

async function seed(db: Db): Promise<void> {
  await db.query('DELETE FROM skillgate.audit_log');
  await insertAudit(db, entry('old', new Date(NOW.getTime() - 100 * DAY)));
  await insertAudit(db, entry('edge', new Date(NOW.getTime() - 89 * DAY)));
  await insertAudit(db, entry('fresh', new Date(NOW.getTime() - 1000)));
}

describe('auditRetentionDays', () => {
  it('defaults to 90, reads SKILLGATE_AUDIT_RETENTION_DAYS, 0 keeps forever, refuses non-numbers', () => {
    expect(auditRetentionDays({})).toBe(90);
    expect(auditRetentionDays({ SKILLGATE_AUDIT_RETENTION_DAYS: ' 30 ' })).toBe(30);
    expect(auditRetentionDays({ SKILLGATE_AUDIT_RETENTION_DAYS: '0' })).toBe(0);
    expect(() => auditRetentionDays({ SKILLGATE_AUDIT_RETENTION_DAYS: '30d' })).toThrow(/SKILLGATE_AUDIT_RETENTION_DAYS/);
  });
});

describeEachEngine('audit retention', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await seed(db());
  });

  it('purgeAudit removes only rows older than the retention at the injected time', async () => {
    expect(await purgeAudit(db(), 90, NOW)).toBe(1);
    expect((await queryAudit(db())).map((r) => r.skill).sort()).toEqual(['edge', 'fresh']);
    // a later clock moves the cut-off: now the 89-day-old row is past 30 days too
    expect(await purgeAudit(db(), 30, NOW)).toBe(1);
    expect((await queryAudit(db())).map((r) => r.skill)).toEqual(['fresh']);
  });

  it('retention 0 keeps everything', async () => {
    expect(await purgeAudit(db(), 0, NOW)).toBe(0);
    expect(await queryAudit(db())).toHaveLength(3);
  });

  it('startAuditRetention purges once at start with the configured days and the injected clock', async () => {
    const r = startAuditRetention({ db: db(), log, days: 90, now: () => NOW });
    await r.initial;
    r.stop();
    expect((await queryAudit(db())).map((x) => x.skill).sort()).toEqual(['edge', 'fresh']);
  });
});

describeEachEngine('audit local admin API', (db) => {
  let base = '';
  const token = 'local-token-audit';

  beforeAll(async () => {
    await migrate(db());
    await seed(db());
    await insertAudit(
      db(),
      entry('datatable', new Date(NOW.getTime() - 2000), { roleId: 'sales', action: 'delete_by', success: false, errorType: 'config' }),
    );
    const server = createApp({ db: db(), log, localToken: token, channels: ['web'] }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return () => new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const post = (body: unknown, auth = `Bearer ${token}`): Promise<Response> =>
    fetch(`${base}/api/local/audit`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('POST /api/local/audit returns the filtered rows as JSON', async () => {
    const res = await post({ role: 'sales' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; entries: { skill: string; action: string; errorType: string }[] };
    expect(body.ok).toBe(true);
    expect(body.entries).toEqual([expect.objectContaining({ skill: 'datatable', action: 'delete_by', errorType: 'config' })]);
    const since = (await (await post({ since: new Date(NOW.getTime() - 3000).toISOString(), limit: '10' })).json()) as {
      entries: { skill: string }[];
    };
    expect(since.entries.map((e) => e.skill)).toEqual(['fresh', 'datatable']);
  });

  it('a bad --since is refused with 422 and a clear message; no bearer token is 401', async () => {
    const bad = await post({ since: 'yesterday' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: string }).error).toMatch(/--since must be an ISO 8601 time/);
    expect((await post({ limit: 0 })).status).toBe(422);
    expect((await post({}, 'Bearer wrong')).status).toBe(401);
  });
});
