/**
 * Wall clocks traced to tests (D-06, D-16): R-WALL-04
 * (trial runs are bounded by SKILL_WALL_HARDCAP), R-WALL-06 (subprocess default 60 s;
 * call_skill children spend the parent's budget, R-ASYNC-09), R-WALL-07 (a handler polling
 * abort_signal returns at its first poll after the stop). Walls are fractions of a second;
 * nothing asserts a duration — poll intervals are ticks the test releases.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/file.ts';
import { resolveWalls, type WallSettings } from '../../src/config/walls.ts';
import { runFromCli } from '../../src/executor/cli-run.ts';
import { subprocessTimeoutFor, SUBPROCESS_DEFAULT_SEC } from '../../src/executor/index.ts';
import { wallFor, type SkillServices } from '../../src/executor/skill-call.ts';
import { runSkill, withCall } from '../../src/wiring/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { makeCallSkill } from '../../src/orchestration/call-skill.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { SkillRecord } from '../../src/registry/types.ts';
import type { RuntimeContext } from '../../src/runtime/types.ts';
import { migrate } from '../../src/store/migrate.ts';
import { gate, REQ_FIXTURES, resetTicks, ticks } from '../async/req-state.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { looseRequest } from '../helpers/request.ts';
import type { LineDefaults } from '../../src/executor/request.ts';

const POLL = { timeout: 20_000, interval: 20 };

const DEFAULTS: LineDefaults = {
  role_id: 'default',
  org_id: 'demo',
  session_id: 'wall-req',
  channel: 'web',
  chat_mode: true,
  allow_sql: true,
  team_role: 'member',
  is_admin: false,
};

describeEachEngine('wall clocks: traced requirements', (db, engine) => {
  let services: SkillServices;
  const withWalls = (over: Partial<WallSettings>): SkillServices => ({
    ...services,
    settings: { ...services.settings, walls: { ...resolveWalls({}), ...over } },
  });
  const record = (name: string): SkillRecord => services.registry.get(name)!;

  beforeAll(async () => {
    await migrate(db());
    services = {
      db: db(),
      registry: await discoverSkills([{ dir: REQ_FIXTURES, source: 'shared' }]),
      settings: { dataDir: mkdtempSync(join(tmpdir(), 'sg-wallreq-')), walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log: createLogger({ level: 'silent' }),
    };
  });

  it('R-WALL-04, D-16: trial runs (skill run, the local /skill/run API) never go unbounded — SKILL_WALL_HARDCAP caps them', async () => {
    const walls = resolveWalls({});
    const s = withWalls({});
    const declared5000 = { ...record('long_sync'), frontmatter: { ...record('long_sync').frontmatter, wallSec: 5000 } };
    expect(wallFor(s, declared5000, 'cli')).toBe(walls.skillWallHardcapSec);
    expect(wallFor(s, record('long_sync'), 'cli')).toBe(walls.skillWallDefaultSec);
    // An async skill runs synchronously under skill run (README.md#the-skillgate-command) — still
    // within the hard cap.
    expect(wallFor(s, record('long_async'), 'cli')).toBe(walls.skillWallHardcapSec);

    // Through the trial-run path itself: a held async skill is stopped at the 0.5 s hard cap.
    const tag = `w4-${engine}-${Date.now()}`;
    gate(tag);
    const env = await runFromCli(
      withCall(withWalls({ skillWallDefaultSec: 0.5, skillWallHardcapSec: 0.5 })),
      parseConfigFile('', { orgId: 'demo', roleId: 'default' }),
      'default',
      {
        target: 'long_async',
        input: { tag },
        context: {},
        cwd: process.cwd(),
        workspace: mkdtempSync(join(tmpdir(), 'sg-wallreq-ws-')),
      },
    );
    expect(env).toMatchObject({ success: false, error_type: 'transient', timeout: true, wall_sec: 0.5 });
  });

  it("R-WALL-06: a subprocess that declares no wall gets 60 s, never more than the call's wall", () => {
    const none = { frontmatter: {} } as Pick<SkillRecord, 'frontmatter'>;
    expect(SUBPROCESS_DEFAULT_SEC).toBe(60);
    expect(subprocessTimeoutFor(none, 600)).toBe(60);
    expect(subprocessTimeoutFor(none, 20)).toBe(20);
    expect(subprocessTimeoutFor({ frontmatter: { timeoutSec: 90 } } as Pick<SkillRecord, 'frontmatter'>, 600)).toBe(90);
  });

  it("R-WALL-06, R-ASYNC-09: a call_skill child spends what is left of the parent's wall, even an async skill with a far larger own wall", async () => {
    const s = withWalls({});
    // Its own wall would be SKILL_WALL_HARDCAP × 2 …
    expect(wallFor(s, record('long_async'), 'call_skill')).toBe(2 * resolveWalls({}).skillWallHardcapSec);
    // … but the parent has 1 s left.
    const parent = {
      role_id: 'default',
      org_id: 'demo',
      session_id: `wall-parent-${engine}`,
      channel: 'web',
      workspace_dir: mkdtempSync(join(tmpdir(), 'sg-wallreq-parent-')),
      abort_signal: null,
    } as unknown as RuntimeContext;
    const call = makeCallSkill(s, { caller: 'async_caller', depth: 1, deadline: Date.now() + 1000, parent: () => parent, lang: 'zh-CN' });
    const tag = `w6-${engine}-${Date.now()}`;
    gate(tag);
    const out = await call('long_async', { tag });
    expect(out).toMatchObject({ ok: false, skill: 'long_async' });
    const m = /timed out after ([\d.]+) s/.exec(String(out.error));
    expect(m, String(out.error)).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(1);

    // With the gate open it runs synchronously and hands back the callee's own result.
    const tag2 = `w6b-${engine}-${Date.now()}`;
    gate(tag2)();
    const call2 = makeCallSkill(s, {
      caller: 'async_caller',
      depth: 1,
      deadline: Date.now() + 60_000,
      parent: () => parent,
      lang: 'zh-CN',
    });
    expect(await call2('long_async', { tag: tag2 })).toMatchObject({ success: true, user_message: `长任务 ${tag2} 完成` });
  });

  it('R-WALL-07: a handler polling abort_signal returns at its first poll after the stop, with what it did', async () => {
    resetTicks();
    const stop = new AbortController();
    const run = runSkill(
      services,
      looseRequest({
        skill: 'poll_ticks',
        input: {},
        defaults: { ...DEFAULTS, session_id: `wall-ticks-${engine}` },
        line: 'chat',
        abortSignal: stop.signal,
      }),
    );
    await expect.poll(() => ticks().polls === 1 && typeof ticks().tick === 'function', POLL).toBe(true);
    stop.abort('user pressed stop');
    ticks().tick!(); // exactly one poll interval passes
    const env = await run;
    expect(env).toMatchObject({ success: true, stopped: true, polls: 2 });
  });
});
