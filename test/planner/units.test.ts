/**
 * Small units of the model planner: the HTTP client's retry rules, the SKILL.md head and the
 * read_skill_file cap (R-LOAD-11/12), knowledge ranking, and the planner choice per role.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import type { SkillRecord } from '../../src/registry/types.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { CommandPlanner } from '../../src/turn/planners/command.ts';
import {
  ChatClient,
  docHead,
  endpointForRole,
  ModelCallError,
  ModelPlanner,
  plannerForRole,
  plannerStartupLine,
  readSkillFile,
  retrieve,
  retryAfterMs,
  SKILL_FILE_MAX,
  terms,
} from '../../src/turn/planners/model.ts';
import { FakeLlm, say } from './fake-llm.ts';

const llm = new FakeLlm();
beforeAll(async () => {
  await llm.start();
});
afterAll(async () => {
  await llm.close();
});

describe('ChatClient', () => {
  const client = (sleeps: number[] = []): ChatClient =>
    new ChatClient({ baseUrl: `${llm.baseUrl}/`, model: 'm', sleep: async (ms) => void sleeps.push(ms) });

  it('sends no Authorization header without a key, and the model name', async () => {
    llm.script({
      check: (req, headers) => {
        expect(headers.authorization).toBeUndefined();
        expect(req.model).toBe('m');
        expect(req).not.toHaveProperty('tools');
      },
      reply: say('ok'),
    });
    expect((await client().chat({ messages: [{ role: 'user', content: 'hi' }] })).content).toBe('ok');
    llm.assertDone();
  });

  it('a 400 is not retried; its error message is kept', async () => {
    llm.script({ reply: { status: 400, body: { error: { message: 'bad tools' } } } });
    const err = await client()
      .chat({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect((err as ModelCallError).status).toBe(400);
    expect((err as Error).message).toContain('bad tools');
    llm.assertDone();
  });

  it('5xx without Retry-After backs off exponentially (bounded retries)', async () => {
    const sleeps: number[] = [];
    const down = { reply: { status: 502 } };
    llm.script(down, down, { reply: say('back') });
    expect((await client(sleeps).chat({ messages: [{ role: 'user', content: 'hi' }] })).content).toBe('back');
    expect(sleeps).toEqual([500, 1000]);
    llm.assertDone();
  });

  it('an unreachable endpoint is a ModelCallError with status 0', async () => {
    const c = new ChatClient({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', maxRetries: 0 });
    const err = await c.chat({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelCallError);
    expect((err as ModelCallError).status).toBe(0);
  });

  it('Retry-After: seconds or an HTTP date', () => {
    expect(retryAfterMs('7')).toBe(7000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('skill_md limits', () => {
  it('R-LOAD-11: a 9000-character SKILL.md reaches the sub-agent as its first 8000 characters', () => {
    const doc = 'a'.repeat(8000) + 'TAIL' + 'b'.repeat(996);
    const head = docHead(doc);
    expect(head.truncated).toBe(true);
    expect([...head.text]).toHaveLength(8000);
    expect(head.text).not.toContain('TAIL');
    expect(docHead('short')).toEqual({ text: 'short', truncated: false });
  });

  it('R-LOAD-12: read_skill_file returns at most 40000 characters per call, then continues at next_offset', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sg-skill-'));
    mkdirSync(join(dir, 'references'));
    writeFileSync(join(dir, 'references', 'big.md'), 'x'.repeat(49_990) + 'END-MARK!!');
    const first = await readSkillFile(dir, { path: 'references/big.md' });
    expect(String(first.content)).toHaveLength(SKILL_FILE_MAX);
    expect(first).toMatchObject({ success: true, truncated: true, next_offset: 40_000, total_chars: 50_000 });
    const rest = await readSkillFile(dir, { path: 'references/big.md', offset: 40_000 });
    expect(String(rest.content)).toHaveLength(10_000);
    expect(String(rest.content).endsWith('END-MARK!!')).toBe(true);
    expect(rest.next_offset).toBeNull();
    expect((await readSkillFile(dir, { path: '/etc/passwd' })).success).toBe(false);
    expect((await readSkillFile(dir, { path: 'references/../../x' })).success).toBe(false);
  });
});

function knowledge(name: string, description: string, doc: string): SkillRecord {
  return { name, doc, skillType: 'knowledge', status: 'ok', frontmatter: { description } } as unknown as SkillRecord;
}

describe('knowledge ranking', () => {
  it('terms: Latin words and CJK bigrams', () => {
    expect([...terms('报修流程 VPN setup')].sort()).toEqual(['setup', 'vpn', '修流', '报修', '流程'].sort());
  });

  it('the passage sharing the most terms wins; unrelated messages retrieve nothing', () => {
    const skills = [
      knowledge(
        'faq',
        '办公室常见问题',
        '## 报修\n\n设备报修请填写报修单，写明设备编号。\n\n## VPN\n\nConnect the VPN with the company account before remote work.',
      ),
      knowledge('rules', '考勤', '## 考勤\n\n每天九点前打卡。'),
    ];
    const hits = retrieve('空调坏了，怎么报修设备？', skills);
    expect(hits[0]!.text).toContain('报修单');
    expect(hits.map((h) => h.text).join()).not.toContain('打卡');
    expect(retrieve('how do I connect the vpn for remote work', skills)[0]!.text).toContain('VPN');
    expect(retrieve('今天天气', skills)).toEqual([]);
  });
});

describe('planner choice per role', () => {
  const services = { db: {} as never, registry: {} as never, secretKey: Buffer.alloc(32), log: createLogger({ level: 'silent' }) } as Pick<
    SkillServices,
    'db' | 'registry' | 'secretKey' | 'log'
  >;
  const role = { id: 'default', org_id: 'demo', skills: ['*'], access: 'open' } as never;

  it('no LLM_BASE_URL → the command planner, and the start-up line says so', () => {
    expect(plannerForRole(role, { llm: undefined, services })).toBeInstanceOf(CommandPlanner);
    expect(plannerStartupLine(undefined)).toBe('no LLM_BASE_URL: command planner');
  });

  it('LLM_BASE_URL → the model planner; the start-up line names model and base, never the key', () => {
    const llmSettings = { baseUrl: 'http://llm.local/v1', apiKey: 'sk-secret', model: 'qwen' };
    const p = plannerForRole(role, { llm: llmSettings, services });
    expect(p).toBeInstanceOf(ModelPlanner);
    expect((p as ModelPlanner).model).toBe('qwen');
    const line = plannerStartupLine(llmSettings);
    expect(line).toBe('model planner: qwen at http://llm.local/v1');
    expect(line).not.toContain('sk-secret');
  });

  it("a role's model: overrides .env; the .env key is not sent to another base; $VAR is read from the environment", () => {
    const llmSettings = { baseUrl: 'http://llm.local/v1', apiKey: 'sk-env', model: 'qwen' };
    expect(endpointForRole(llmSettings, { model: { model: 'big' } })).toEqual({
      baseUrl: 'http://llm.local/v1',
      apiKey: 'sk-env',
      model: 'big',
    });
    expect(endpointForRole(llmSettings, { model: { base_url: 'http://other/v1/' } })).toEqual({
      baseUrl: 'http://other/v1',
      apiKey: undefined,
      model: 'qwen',
    });
    expect(
      endpointForRole(undefined, { model: { base_url: 'http://r/v1', api_key: '$ROLE_KEY', model: 'm' } }, { ROLE_KEY: 'sk-role' }),
    ).toEqual({
      baseUrl: 'http://r/v1',
      apiKey: 'sk-role',
      model: 'm',
    });
  });
});
