/**
 * create_skill / edit_skill from chat
 * (R-PRE-06..09): through a running gateway (startGateway, embedded PGlite, the web channel,
 * the command planner) a role skill created with `/create_skill {…}` answers in the very next
 * turn; an edit adding `child_process.exec(input_data.cmd)` is blocked as critical and the old
 * version keeps serving; a built-in skill cannot be edited; create writes only SKILL.md, the
 * handler and skill.toml. The model planner reaches the same tools (fake LLM, real turn).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/file.ts';
import { BUILTIN_SKILLS_DIR, EXAMPLE_SKILLS_DIR, loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { authoringOf } from '../../src/lifecycle/authoring.ts';
import { runCreateSkill } from '../../src/lifecycle/chat-tools.ts';
import { createRoleSkill } from '../../src/lifecycle/skill-edit.ts';
import { chainSkillRecord } from '../../src/chain/skill.ts';
import { makeRegistry } from '../../src/registry/discover.ts';
import { createSkillLifecycle, type LiveSkillLifecycle } from '../../src/lifecycle/live.ts';
import { createLogger } from '../../src/log/logger.ts';
import { toSubprocessContext } from '../../src/runtime/types.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { callTools, FakeLlm, lastToolResult, say } from '../planner/fake-llm.ts';
import { PLANNER_FIXTURES, plannerHarness, textOf } from '../planner/harness.ts';
import { TURN_FIXTURES } from '../turn/helpers.ts';
import { Client } from '../web/helpers.ts';
import { fixtureFiles, tempDataDir, tree } from './helpers.ts';

const greetFiles = async (): Promise<Record<string, string>> => {
  const f = await fixtureFiles('greet');
  return { 'SKILL.md': f['SKILL.md']!, 'handler.ts': f['handler.ts']! };
};

describe('create_skill / edit_skill through a running gateway (web channel, command planner)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-chat-authoring-'));
  const dataDir = join(dir, 'data');
  const roleDir = join(dataDir, 'role-skills', 'default');
  let gateway: Gateway;
  let client: Client;
  let seq = 0;

  beforeAll(async () => {
    // create_skill / edit_skill are opt-in: `*` does not give them, the role names them.
    writeFileSync(
      join(dir, 'skillgate.config.yaml'),
      'roles:\n  - id: default\n    org_id: demo\n    skills: ["*", create_skill, edit_skill]\n',
    );
    const settings = loadSettings({ SKILLGATE_DATA_DIR: dataDir, PORT: '0' }, dir);
    gateway = await startGateway(settings, createLogger({ level: 'silent' }), {});
    client = await Client.open(`ws://127.0.0.1:${gateway.port}/ws`);
    client.send({ type: 'hello', auth: { scheme: 'demo', contact: 'demo_reporter' } });
    await client.next((f) => f.type === 'hello.ok');
  }, 60_000);

  afterAll(async () => {
    client?.ws.close();
    await gateway?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Send one chat message; the final assistant message of its turn (text + display block). */
  async function say(text: string): Promise<string> {
    const id = `m${++seq}`;
    client.send({ type: 'user.message', client_msg_id: id, text });
    const f = await client.next((x) => x.type === 'assistant.message' && x.reply_to === id && x.final === true);
    return [f.text, f.display_md].filter((s) => typeof s === 'string').join('\n');
  }

  it('R-PRE-08 / R-PRE-06: /create_skill writes only SKILL.md and the handler of the files given, and the next turn /greet answers', async () => {
    const files = {
      ...(await greetFiles()),
      'notes.txt': 'not part of the skill',
      'schema.json': '{"type":"object"}',
      'references/usage.md': '# usage',
    };
    const reply = await say(`/create_skill ${JSON.stringify({ name: 'greet', full_files: files })}`);
    expect(reply).toContain('已新建技能「greet」');
    expect(reply).toContain('notes.txt');
    // the call example is shown only once the reload that create_skill awaits registered the
    // skill (the file watcher's debounce is far longer than the next message takes)
    expect(reply).toContain('/greet name=');
    expect(await tree(join(roleDir, 'greet'))).toEqual(['SKILL.md', 'handler.ts']);
    expect(await say('/greet name=小王')).toContain('你好，小王');
  });

  it('R-PRE-06: a create whose handler has a sync execute(a, b) is refused (nothing written); a missing version is only a notice', async () => {
    const bad = {
      'SKILL.md': '---\nname: bad_entry\ndescription: "sync entry"\n---\n# bad_entry\n',
      'handler.ts': 'export function execute(a: unknown, b: unknown) {\n  return { a, b };\n}\n',
    };
    const refused = await say(`/create_skill ${JSON.stringify({ name: 'bad_entry', full_files: bad })}`);
    expect(refused).toContain('预检未通过');
    await expect(stat(join(roleDir, 'bad_entry'))).rejects.toThrow();

    const hello = await fixtureFiles('hello_sh');
    const toml = hello['skill.toml']!.replace(/^version = .*\n/m, '');
    const created = await say(
      `/create_skill ${JSON.stringify({ name: 'hello_sh', full_files: { 'SKILL.md': hello['SKILL.md']!, 'skill.toml': toml } })}`,
    );
    expect(created).toContain('已新建技能「hello_sh」');
    expect(created).toMatch(/notice: .*version/);
    expect(await say('/hello_sh')).toContain('hello');
  });

  it('R-PRE-07: an edit adding child_process.exec(input_data.cmd) is blocked as critical (rule, file:line) and the old version still serves; an accepted edit adds schema.json and references/', async () => {
    const evil = (await fixtureFiles('exec_cmd'))['handler.ts']!;
    const reply = await say(`/edit_skill ${JSON.stringify({ name: 'greet', full_files: { 'handler.ts': evil } })}`);
    expect(reply).toContain('危险代码扫描');
    expect(reply).toContain('handler.ts:4 [shell.interpolated]');
    expect(await readFile(join(roleDir, 'greet', 'handler.ts'), 'utf8')).not.toContain('child_process');
    expect(await say('/greet name=老李')).toContain('你好，老李');

    const handler = (await greetFiles())['handler.ts']!.replace('你好，', '您好，');
    const edited = await say(
      `/edit_skill ${JSON.stringify({ name: 'greet', full_files: { 'handler.ts': handler, 'references/usage.md': '# 用法\n' } })}`,
    );
    expect(edited).toContain('已修改技能「greet」');
    expect(await tree(join(roleDir, 'greet'))).toEqual(['SKILL.md', 'handler.ts', 'references/', 'references/usage.md']);
    expect(await say('/greet name=老李')).toContain('您好，老李');
  });

  it('R-PRE-09: editing the built-in help (or creating a skill of its name) is refused with a zh-CN reason; help is untouched', async () => {
    const before = await readFile(join(BUILTIN_SKILLS_DIR, 'help', 'SKILL.md'), 'utf8');
    const edit = await say(
      `/edit_skill ${JSON.stringify({ name: 'help', full_files: { 'SKILL.md': '---\nname: help\ndescription: x\n---\n' } })}`,
    );
    expect(edit).toContain('「help」是内置技能，不能修改');
    const create = await say(`/create_skill ${JSON.stringify({ name: 'help', full_files: await greetFiles() })}`);
    expect(create).toContain('「help」是内置技能');
    expect(await readFile(join(BUILTIN_SKILLS_DIR, 'help', 'SKILL.md'), 'utf8')).toBe(before);
    await expect(stat(join(roleDir, 'help'))).rejects.toThrow();
  });
});

describeEachEngine('create_skill through the model planner (fake LLM, real turn, live skill set)', (db) => {
  const llm = new FakeLlm();
  let lifecycle: LiveSkillLifecycle | undefined;

  beforeAll(async () => {
    await llm.start();
  });
  afterAll(async () => {
    await lifecycle?.close();
    await llm.close();
  });

  it('R-PRE-08: the model creates a role skill with create_skill and calls it in the next turn', async () => {
    const h = await plannerHarness(db(), llm);
    const log = createLogger({ level: 'silent' });
    const skillRoots = [
      { dir: BUILTIN_SKILLS_DIR, source: 'builtin' as const },
      { dir: EXAMPLE_SKILLS_DIR, source: 'builtin' as const },
      { dir: TURN_FIXTURES, source: 'shared' as const },
      { dir: PLANNER_FIXTURES, source: 'shared' as const },
    ];
    lifecycle = await createSkillLifecycle({
      db: db(),
      settings: { dataDir: h.services.settings.dataDir, skillRoots },
      config: parseConfigFile('roles:\n  - id: default\n    skills: ["*", create_skill, edit_skill]\n', {
        orgId: 'demo',
        roleId: 'default',
      }),
      log,
      watch: false,
    });
    // what the gateway does: the turn reads the live registry after every reload
    h.services.lifecycle = lifecycle;
    h.services.skillsFor = lifecycle.skillsFor;
    h.services.registry = lifecycle.registry();
    lifecycle.onChange(() => {
      h.services.registry = lifecycle!.registry();
    });

    llm.script(
      {
        check: (req) => expect(req.tools?.map((t) => t.function.name)).toEqual(expect.arrayContaining(['create_skill', 'edit_skill'])),
        reply: callTools([
          'create_skill',
          {
            name: 'greet_m',
            full_files: { ...(await greetFiles()), 'SKILL.md': (await greetFiles())['SKILL.md']!.replace('name: greet', 'name: greet_m') },
          },
        ]),
      },
      {
        check: (req) =>
          expect(lastToolResult(req)).toMatchObject({ success: true, skill: 'greet_m', live: true, written: ['SKILL.md', 'handler.ts'] }),
        reply: say('已创建 greet_m'),
      },
    );
    expect(textOf(await h.turn({ raw_input: '帮我写一个打招呼的技能' }))).toContain('已创建 greet_m');
    llm.assertDone();

    llm.script(
      {
        check: (req) => expect(req.tools?.map((t) => t.function.name)).toContain('greet_m'),
        reply: callTools(['greet_m', { name: '小张' }]),
      },
      { check: (req) => expect(lastToolResult(req)).toMatchObject({ greeting: '你好，小张', role: 'default' }), reply: say('你好，小张') },
    );
    expect(textOf(await h.turn({ raw_input: '跟小张打个招呼' }))).toContain('你好，小张');
    llm.assertDone();
  });
});

describe('the authoring services in the runtime context', () => {
  it('R-PRE-09: the lifecycle key never reaches a subprocess context, and a non-service value (a stored parameter of that name) is not taken for it', async () => {
    const svc = { dataDir: '/data', registry: () => ({ get: () => undefined, tools: () => [] }) };
    expect(authoringOf({ lifecycle: svc })).toBe(svc);
    expect(authoringOf({ lifecycle: 'x' })).toBeUndefined();
    expect(Object.keys(toSubprocessContext({ role_id: 'r', lifecycle: svc }))).toEqual(['role_id']);
    const refused = await runCreateSkill({ name: 'x', full_files: {} }, { role_id: 'r', lifecycle: 'x' });
    expect(refused).toMatchObject({ success: false, error_type: 'config', user_message: '此处不能新建或修改技能（没有平台服务）。' });
  });

  it("R-PRE-09: a saved chain of that name is refused with its own reason, not as another role's skill", async () => {
    const registry = makeRegistry([chainSkillRecord({ name: 'daily', description: 'd', steps: [] } as never)], []);
    const r = await createRoleSkill({
      dataDir: await tempDataDir(),
      roleId: 'default',
      name: 'daily',
      files: await greetFiles(),
      registry,
    });
    expect(r.refusal).toMatchObject({ code: 'scope.chain' });
    expect(r.refusal?.message['zh-CN']).toContain('已保存的技能链');
  });
});
