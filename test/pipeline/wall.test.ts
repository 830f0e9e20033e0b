/**
 * Wall clocks and the stop button through runSkill (D-06).
 * Only outcomes are asserted: which envelope came back and what the handler saw, never how long.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it, vi } from 'vitest';
import { resolveWalls } from '../../src/config/walls.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeHarness, type Harness } from './helpers.ts';
import { looseRequest } from '../helpers/request.ts';
import type { LineDefaults } from '../../src/executor/request.ts';

const DEFAULTS: LineDefaults = {
  role_id: 'default',
  org_id: 'demo',
  session_id: 'wall-chat',
  channel: 'web',
  chat_mode: true,
  allow_sql: true,
  team_role: 'member',
  is_admin: false,
};

/** The `wall_sec` of each "skill call started" log line, in order. */
function startedWalls(logs: string): number[] {
  return logs
    .split('\n')
    .filter((l) => l.includes('"skill call started"'))
    .map((l) => (JSON.parse(l) as { wall_sec: number }).wall_sec);
}

describeEachEngine('pipeline: walls and abort', (db) => {
  let h: Harness;
  let services: SkillServices;
  beforeAll(async () => {
    h = await makeHarness(db());
    services = { ...h.services, settings: { ...h.services.settings, walls: resolveWalls({ TOOL_WALL_SEC: '2' }) } };
  });

  it('R-WALL-03: on the chat line TOOL_WALL_SEC caps a skill that declares wall_sec 1000; other lines keep the declared wall', async () => {
    const cli = await runSkill(
      services,
      looseRequest({
        skill: 'slow_poll',
        input: { ms: 10 },
        defaults: { ...DEFAULTS, session_id: 'wall-cli' },
        line: 'cli',
      }),
    );
    expect(cli).toMatchObject({ success: true, stopped: false });
    expect(startedWalls(h.logs()).at(-1)).toBe(1000);

    const chat = await runSkill(services, looseRequest({ skill: 'slow_poll', input: { ms: 5000 }, defaults: DEFAULTS, line: 'chat' }));
    expect(chat).toMatchObject({ success: false, error_type: 'transient', timeout: true, wall_sec: 2 });
    expect(String(chat.error)).toMatch(/slow_poll.*timed out after 2 s/);
    expect(startedWalls(h.logs()).at(-1)).toBe(2);
  });

  it("R-PCTX-08, R-WALL-05: the stop button fires the handler's abort_signal; the answer it gives of what it did so far is the result", async () => {
    const ws = join(h.dataDir, 'ws-stop');
    const stop = new AbortController();
    const running = runSkill(
      h.services,
      looseRequest({
        skill: 'slow_poll',
        input: { ms: 30_000 },
        given: { workspace_dir: ws },
        defaults: { ...DEFAULTS, session_id: 'wall-stop' },
        line: 'chat',
        abortSignal: stop.signal,
      }),
    );
    await vi.waitFor(() => expect(existsSync(join(ws, 'started.txt'))).toBe(true), { timeout: 20_000, interval: 20 });
    expect(readFileSync(join(ws, 'started.txt'), 'utf8')).toBe('true'); // abort_signal is an AbortSignal
    stop.abort('user pressed stop');
    const env = await running;
    expect(env).toMatchObject({ success: true, stopped: true });
    expect(existsSync(join(ws, 'saw_abort.txt'))).toBe(true);
  });
});
