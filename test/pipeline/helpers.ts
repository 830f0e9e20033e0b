/**
 * Services for pipeline tests: the code path of `skillgate skill run` (runFromCli) over a
 * test database, a temporary data dir, the fixture skills of test/fixtures/pipeline and
 * test/fixtures/exec, and a logger whose every line is captured.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseConfigFile } from '../../src/config/file.ts';
import { resolveWalls } from '../../src/config/walls.ts';
import type { Envelope } from '../../src/envelope/types.ts';
import { runFromCli, type CliRunOptions } from '../../src/executor/cli-run.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { withCall } from '../../src/wiring/skill-call.ts';

export const PIPELINE_FIXTURES = fileURLToPath(new URL('../fixtures/pipeline/', import.meta.url));

/** A test harness around one database. */
export interface Harness {
  services: SkillServices;
  dataDir: string;
  /** Every log line written so far (JSON lines). */
  logs: () => string;
  run: (target: string, opts?: Partial<Omit<CliRunOptions, 'target'>>) => Promise<Envelope>;
}

/** Build a harness; migrations are applied to `db`. */
export async function makeHarness(db: Db, extra: { fetchAllow?: string[] } = {}): Promise<Harness> {
  await migrate(db);
  let logs = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs += chunk.toString();
      cb();
    },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'sg-pipe-'));
  const registry = await discoverSkills([{ dir: PIPELINE_FIXTURES, source: 'shared' }]);
  const services: SkillServices = {
    db,
    registry,
    settings: { dataDir, walls: resolveWalls({}), fetchAllow: extra.fetchAllow ?? [], llm: undefined },
    secretKey: randomBytes(32),
    log: createLogger({ destination: sink, level: 'debug' }),
  };
  const config = parseConfigFile('', { orgId: 'demo', roleId: 'default' });
  return {
    services,
    dataDir,
    logs: () => logs,
    run: (target, opts = {}) =>
      runFromCli(withCall(services), config, 'default', { target, input: {}, context: {}, cwd: process.cwd(), ...opts }),
  };
}
