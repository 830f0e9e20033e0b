import { describe, expect, it } from 'vitest';
import { executeSkill } from '../../src/executor/index.ts';
import { execOptions, loadFixture, makeCtx, tempWorkspace } from './exec-helpers.ts';

async function runFixture(name: string, over = {}) {
  const ws = await tempWorkspace();
  return executeSkill(await loadFixture(name), {}, makeCtx(ws), execOptions(over));
}

describe('skills this gateway does not execute (R-FORM-08)', () => {
  it('R-FORM-08: a BROWSER skill yields an explicit unsupported failure, not a silent run', async () => {
    expect(await runFixture('browser_skill')).toEqual({
      kind: 'failed',
      error: 'skill "browser_skill": exec type BROWSER is not implemented in this gateway',
      error_type: 'config',
      non_retriable: true,
      details: { exec_type: 'BROWSER' },
    });
  });

  it('R-FORM-08: an MCP skill too', async () => {
    expect(await runFixture('mcp_skill')).toMatchObject({
      kind: 'failed',
      error_type: 'config',
      non_retriable: true,
      error: expect.stringContaining('MCP is not implemented'),
    });
  });

  it('R-LOAD-09: exec_mode shell (container skill) is not run on the host', async () => {
    const outcome = await runFixture('container_skill');
    expect(outcome).toMatchObject({ kind: 'failed', error_type: 'config', non_retriable: true });
    expect((outcome as { error: string }).error).toContain('exec_mode "shell"');
  });

  it('a skill_md skill with no model configured fails with config naming LLM_BASE_URL', async () => {
    const outcome = await runFixture('doc_skill');
    expect(outcome).toMatchObject({ kind: 'failed', error_type: 'config' });
    expect((outcome as { error: string }).error).toContain('LLM_BASE_URL');
  });

  it('with a model configured the document skill goes to the given runner', async () => {
    const outcome = await runFixture('doc_skill', {
      llmConfigured: true,
      runDocumentSkill: async (skill: { name: string }) => ({ kind: 'returned' as const, value: { ran: skill.name } }),
    });
    expect(outcome).toEqual({ kind: 'returned', value: { ran: 'doc_skill' } });
  });

  it('a knowledge skill is not executable', async () => {
    expect(await runFixture('knowledge_skill')).toMatchObject({
      kind: 'failed',
      error: 'skill "knowledge_skill" is a knowledge skill and is not executable',
    });
  });

  it('D-14: a broken skill fails naming its problem', async () => {
    const ws = await tempWorkspace();
    const skill = {
      ...(await loadFixture('ts_echo')),
      status: 'broken' as const,
      issues: [{ severity: 'error' as const, code: 'x', message: 'handler.ts does not parse' }],
    };
    expect(await executeSkill(skill, {}, makeCtx(ws), execOptions())).toMatchObject({
      kind: 'failed',
      error: 'skill "ts_echo" is broken and cannot run: handler.ts does not parse',
    });
  });
});
