/**
 * Executor: per-call overhead of a NODE subprocess skill through the whole pipeline
 * (runSkill: session, parameters, validation, context, execution, envelope, artifacts,
 * offload check) against a bare execa spawn of the same script with the same environment
 * variables; and an in-process no-op skill through the same pipeline (µs per call) against
 * calling the handler function directly.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { resolveWalls } from '../../src/config/walls.ts';
import { callFromContext, chatLineOrigin, NO_ACTOR } from '../../src/executor/request.ts';
import type { SkillCall, SkillServices } from '../../src/executor/skill-call.ts';
import { runSkill, wireSkillCall } from '../../src/wiring/skill-call.ts';
import { createAuditSink, type AuditSink } from '../../src/audit/sink.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openEmbeddedDb } from '../../src/store/open.ts';
import { createInvalidatedCache, SKILL_CONFIG_CHANNEL, type InvalidatedCache } from '../../src/store/invalidated-cache.ts';
import type { BenchCase } from './harness.ts';

const SKILLS = fileURLToPath(new URL('./skills/', import.meta.url));

/**
 * The name of the in-process no-op case (µs per call through the whole skill-call pipeline, as
 * the gateway wires it once: audit ∘ chains ∘ call, rows group-committed, the session given as
 * the chat turn gives it; the audit rows' writes are counted in: every 50 calls the sink is
 * flushed).
 */
export const NOOP_CASE = 'in-process no-op via the wired skill call';

/** Bench cases of the executor. */
export function executorCases(): BenchCase[] {
  let db: Db;
  let services: SkillServices;
  let configCache: InvalidatedCache<Record<string, string>> | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'sg-bench-'));
  const defaults = {
    role_id: 'default',
    org_id: 'demo',
    session_id: 'bench',
    channel: 'cli',
    chat_mode: true,
    allow_sql: true,
    team_role: 'member',
    is_admin: false,
  };
  // `skill run`'s parser, once (src/executor/request.ts).
  const cliParties = callFromContext({}, defaults);
  const setup = async (): Promise<void> => {
    if (services) return;
    db = await openEmbeddedDb();
    await migrate(db);
    // As the gateway wires it (src/gateway.ts): skill parameters cached until a change is announced.
    configCache = await createInvalidatedCache<Record<string, string>>(db, SKILL_CONFIG_CHANNEL);
    services = {
      db,
      skillConfigCache: configCache,
      registry: await discoverSkills([{ dir: SKILLS, source: 'shared' }]),
      settings: { dataDir, walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log: createLogger({ level: 'silent' }),
    };
  };
  const script = join(SKILLS, 'bench_node', 'main.js');
  let wired: SkillCall | undefined;
  let sink: AuditSink | undefined;
  let calls = 0;
  let noop: (input: Record<string, unknown>, ctx: Record<string, unknown>) => Promise<unknown>;
  return [
    {
      name: 'NODE skill via runSkill',
      baselineName: 'bare execa node main.js',
      iterations: 40,
      rounds: 5,
      target: 1.15,
      setup,
      baseline: () =>
        execa(process.execPath, [script, '--n', '1'], {
          cwd: join(SKILLS, 'bench_node'),
          env: { SKILL_INPUT: '{"n":1}', SKILL_CONTEXT: '{}' },
        }),
      subject: () => runSkill(services, { skill: 'bench_node', input: { n: 1 }, ...cliParties, line: 'cli' }),
    },
    {
      name: NOOP_CASE,
      baselineName: 'direct handler call',
      iterations: 200,
      rounds: 5,
      setup: async () => {
        await setup();
        noop = (await import(join(SKILLS, 'bench_noop', 'handler.ts'))).execute;
      },
      baseline: () => noop({}, {}),
      subject: async () => {
        wired ??= wireSkillCall(services, { auditSink: (sink = createAuditSink(db, { log: services.log })) });
        await wired({
          skill: 'bench_noop',
          input: {},
          actor: NO_ACTOR,
          origin: chatLineOrigin({ roleId: 'default', orgId: 'demo', channel: 'cli', rawInput: '', teamRole: 'member' }),
          session: { opened: { id: 'bench', workspaceDir: join(dataDir, 'ws-bench') } },
          line: 'chat',
        });
        if (++calls % 50 === 0) await sink!.durable();
      },
      teardown: async () => {
        await sink?.close();
        await configCache?.close();
        await db.close();
      },
    },
  ];
}
