/**
 * Test services of the SQL channel tests (Engineer B): a DtEnv over a test database with a
 * mutable clock and a temporary workspace, and the corpus reader.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DtCaller, DtEnv, DtSettings } from '../../src/datatable/model/types.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Db } from '../../src/store/db.ts';

/** A DtEnv whose clock can be moved (`env.clock.now = …`). */
export interface SqlTestEnv extends DtEnv {
  clock: { now: Date };
}

/** An operator: owner of `org`, role `default`, employee E1, chat mode, SQL allowed, own workspace. */
export function sqlEnv(db: Db, org: string, over: Partial<DtCaller> = {}, settings?: DtSettings): SqlTestEnv {
  const clock = { now: new Date('2026-03-01T10:00:00Z') };
  const caller: DtCaller = {
    orgId: org,
    roleIds: ['default'],
    empNo: 'E1',
    teamRole: 'owner',
    allowSql: true,
    chatMode: true,
    sessionId: 's1',
    actorKey: 'web:u1',
    workspaceDir: mkdtempSync(join(tmpdir(), 'sg-sql-ws-')),
    channel: 'web',
    isAdmin: false,
    lang: 'zh-CN',
    ...over,
  };
  const env: SqlTestEnv = {
    caller,
    tx: (fn) => db.transaction(fn),
    q: db,
    now: () => clock.now,
    log: createLogger({ level: 'silent' }),
    clock,
  };
  if (settings) env.settings = settings;
  return env;
}

/** One corpus entry: the statement text and its expected refusal code (hostile only). */
export interface CorpusEntry {
  sql: string;
  expect?: string;
}

/** Entries of test/fixtures/sql/<name>.sql (split on lines `-- ---`; the first block is the header). */
export function readCorpus(name: 'hostile' | 'benign'): CorpusEntry[] {
  const text = readFileSync(fileURLToPath(new URL(`../fixtures/sql/${name}.sql`, import.meta.url)), 'utf8');
  return text
    .split(/^-- ---$/m)
    .slice(1)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((sql) => {
      const expect = /^-- expect: (\w+)$/m.exec(sql)?.[1];
      return expect ? { sql, expect } : { sql };
    });
}
