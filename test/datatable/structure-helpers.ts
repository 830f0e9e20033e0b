/**
 * Test helpers of the datatable structure tests (Engineer A): a DtEnv over a test Db with an
 * injectable clock, and a migrated database per file.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../src/store/db.ts';
import type { DtCaller, DtEnv, DtSettings } from '../../src/datatable/model/types.ts';
import { createLogger } from '../../src/log/logger.ts';

/** A caller with every field set: owner of org `acme`, role `default`, employee E001. */
export function makeCaller(over: Partial<DtCaller> = {}): DtCaller {
  return {
    orgId: 'acme',
    roleIds: ['default'],
    empNo: 'E001',
    teamRole: 'owner',
    allowSql: true,
    chatMode: true,
    sessionId: 's1',
    actorKey: 'web:u1',
    workspaceDir: mkdtempSync(join(tmpdir(), 'sg-dt-ws-')),
    channel: 'web',
    isAdmin: false,
    lang: 'zh-CN',
    ...over,
  };
}

/** A DtEnv over `db`: transactions through db.transaction, a fixed clock, a silent logger. */
export function makeEnv(db: Db, over: Partial<DtCaller> = {}, settings?: DtSettings): DtEnv {
  return {
    caller: makeCaller(over),
    tx: (fn) => db.transaction(fn),
    q: db,
    now: () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
    log: createLogger({ level: 'silent' }),
    settings,
  };
}
