/**
 * Test services for the datatable row actions: `runDatatable` over a test database with a
 * temporary workspace and an injectable clock (Engineer C's tests).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Envelope } from '../../src/envelope/types.ts';
import { runDatatable } from '../../src/datatable/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';

export interface RowsEnv {
  ws: string;
  logs: () => string;
  /** Current fake time. */
  clock: { now: Date };
  call: (input: Record<string, unknown>, ctx?: Record<string, unknown>) => Promise<Envelope>;
  /** Create a table (as owner) and return its id. */
  table: (name: string, fields: unknown[], ctx?: Record<string, unknown>) => Promise<string>;
}

/** Default context: org acme, role default, owner, chat mode, own workspace. */
export async function rowsEnv(db: Db, base: Record<string, unknown> = {}): Promise<RowsEnv> {
  await migrate(db);
  const ws = mkdtempSync(join(tmpdir(), 'sg-dt-ws-'));
  let logs = '';
  const log = createLogger({
    destination: new Writable({
      write(chunk, _e, cb) {
        logs += chunk.toString();
        cb();
      },
    }),
    level: 'debug',
  });
  const clock = { now: new Date('2026-03-01T10:00:00Z') };
  const ctx0 = {
    org_id: 'acme',
    role_id: 'default',
    session_id: 's1',
    actor_key: 'web:u1',
    actor_emp_no: 'E1',
    team_role: 'owner',
    chat_mode: true,
    allow_sql: true,
    workspace_dir: ws,
    db_factory: <T>(fn: (tx: import('../../src/store/db.ts').Tx) => Promise<T>) => db.transaction(fn),
    ...base,
  };
  const call = (input: Record<string, unknown>, ctx: Record<string, unknown> = {}) =>
    runDatatable(input, { ...ctx0, ...ctx }, { now: () => clock.now, log });
  return {
    ws,
    logs: () => logs,
    clock,
    call,
    table: async (name, fields, ctx = {}) => {
      const r = await call({ action: 'create_table', payload: { table_name: name, fields } }, ctx);
      if (r.success !== true || typeof r.id !== 'string') throw new Error(`create_table failed: ${JSON.stringify(r)}`);
      return r.id;
    },
  };
}
