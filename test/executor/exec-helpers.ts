/** Shared fixtures, contexts and loggers for the executor tests. */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import { loadSkill } from '../../src/registry/load-skill.ts';
import type { SkillRecord } from '../../src/registry/types.ts';
import type { RuntimeContext } from '../../src/runtime/types.ts';
import type { ExecuteOptions } from '../../src/executor/index.ts';

/** Absolute path of test/fixtures/exec. */
export const EXEC_FIXTURES = fileURLToPath(new URL('../fixtures/exec/', import.meta.url));

/** Load one fixture skill as the registry would (shared root). */
export async function loadFixture(name: string): Promise<SkillRecord> {
  const skill = await loadSkill(join(EXEC_FIXTURES, name), { dir: EXEC_FIXTURES, source: 'shared' });
  if (skill.status !== 'ok') throw new Error(`fixture ${name} loaded as ${skill.status}: ${JSON.stringify(skill.issues)}`);
  return skill;
}

/** A fresh temporary workspace folder. */
export function tempWorkspace(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'skillgate-exec-'));
}

/** A complete runtime context (every fixed key with its empty value) for `workspace`. */
export function makeCtx(workspace: string, overrides: Record<string, unknown> = {}): RuntimeContext {
  return {
    raw_input: 'hello',
    attachments: [],
    actor_name: 'Tester',
    actor_emp_no: 'E001',
    actor_department: '',
    actor_department_path: '',
    actor_position: '',
    actor_title: '',
    actor_phone: '',
    actor_email: '',
    actor_tags: [],
    actor_key: 'demo_reporter',
    channel: 'cli',
    triggered_at: 0,
    triggered_at_str: '',
    actor_id: 'u1',
    actor_is_admin: false,
    org_id: 'demo',
    role_id: 'default',
    session_id: 's1',
    user_id: 'u1',
    team_id: '',
    team_role: 'member',
    is_admin: false,
    chat_mode: true,
    allow_sql: true,
    workspace_dir: workspace,
    skill_config: {},
    channel_registry: null,
    request: null,
    skill_configs: {},
    skill_args: {},
    ...overrides,
  } as RuntimeContext;
}

/** A logger whose every line is kept in memory. */
export function captureLogger(): { log: Logger; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  return { log: createLogger({ destination: stream, level: 'debug', pretty: false }), text: () => out };
}

/** Default execute options with a captured logger. */
export function execOptions(over: Partial<ExecuteOptions> = {}): ExecuteOptions & { logText: () => string } {
  const { log, text } = captureLogger();
  return { wallSec: 30, subprocessTimeoutSec: 30, log, ...over, logText: text };
}

/** Wait until `check` is true (polling every 25 ms), at most `ms`; returns the last value. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** True while `pid` exists and is not a zombie. */
export async function pidAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
