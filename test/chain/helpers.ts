/**
 * Chain test harness: the fixture skills of test/fixtures/chains over a migrated test
 * database, and a helper that runs a chain document through the real pipeline.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveWalls } from '../../src/config/walls.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import type { ChainDocument } from '../../src/chain/document.ts';
import { runChainDocument, type ChainServices } from '../../src/chain/skill.ts';
import { withCall } from '../../src/wiring/skill-call.ts';
import type { ChainResult } from '../../src/chain/runner.ts';
import { looseChainRequest, type LooseChainExtra } from '../helpers/request.ts';
import type { LineDefaults } from '../../src/executor/request.ts';

export const CHAIN_FIXTURES = fileURLToPath(new URL('../fixtures/chains/', import.meta.url));

/** Services over `db` with the chain fixture skills, or the given skill roots (migrations applied). */
export async function chainServices(
  db: Db,
  env: NodeJS.ProcessEnv = {},
  roots: Parameters<typeof discoverSkills>[0] = [{ dir: CHAIN_FIXTURES, source: 'shared' }],
): Promise<ChainServices> {
  await migrate(db);
  const registry = await discoverSkills(roots);
  return withCall({
    db,
    registry,
    settings: { dataDir: mkdtempSync(join(tmpdir(), 'sg-chain-')), walls: resolveWalls(env), fetchAllow: [], llm: undefined },
    secretKey: randomBytes(32),
    log: createLogger({ level: 'silent' }),
  });
}

let n = 0;

/** The defaults of a CLI-like caller with its own session. */
export function callerDefaults(): LineDefaults {
  return {
    role_id: 'default',
    org_id: 'demo',
    session_id: `chain-test-${++n}-${randomBytes(4).toString('hex')}`,
    channel: 'cli',
    chat_mode: true,
    allow_sql: true,
    team_role: 'member',
    is_admin: false,
  };
}

/** Run `doc` through the pipeline as a CLI caller. */
export function run(services: ChainServices, doc: Pick<ChainDocument, 'steps'>, extra: LooseChainExtra = {}): Promise<ChainResult> {
  return runChainDocument(services, looseChainRequest({ doc, input: {}, defaults: callerDefaults(), ...extra }));
}

/** A fresh key for the probe fixtures' shared records. */
export function probeKey(): string {
  return `k${randomBytes(6).toString('hex')}`;
}

/** The probe records of `key`. */
export function probeState(key: string): { running: number; max: number; events: string[] } {
  const g = globalThis as unknown as { __chainProbe?: Record<string, { running: number; max: number; events: string[] }> };
  return g.__chainProbe?.[key] ?? { running: 0, max: 0, events: [] };
}

/** What the slow fixture of `key` saw. */
export function slowState(key: string): string[] {
  const g = globalThis as unknown as { __chainSlow?: Record<string, string[]> };
  return g.__chainSlow?.[key] ?? [];
}
