import { beforeAll, expect, it } from 'vitest';
import { mergeCallInput } from '../../src/orchestration/call-skill.ts';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeHarness, type Harness } from './helpers.ts';

describeEachEngine('call_skill (spec 000 §9.1)', (db) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(db());
    await setSkillConfig(h.services.db, h.services.secretKey, { roleId: 'default', skill: 'caller', key: 'region', value: 'caller-only', via: 'operator' });
    await setSkillConfig(h.services.db, h.services.secretKey, { roleId: 'default', skill: 'ctx_echo', key: 'api_token', value: 'callee-token', via: 'operator' });
  });

  async function callVia(target: string, input?: Record<string, unknown>, options?: Record<string, unknown>, context: Record<string, unknown> = {}) {
    const env = await h.run('caller', { input: { target, input, options }, context, rawInput: 'user text of this turn' });
    expect(env.success).toBe(true);
    return env.result as Record<string, unknown>;
  }

  it('R-CALL-06/07 + A-21: the child context holds exactly the whitelist, empty fixed keys and its own config', async () => {
    const result = await callVia('ctx_echo', { note: 'from caller' }, undefined, {
      actor_emp_no: 'E7',
      actor_name: '张三',
      team_role: 'admin',
      _meta: { secret: true },
    });
    expect(result.success).toBe(true);
    const values = result.values as Record<string, unknown>;
    expect(values).toMatchObject({ actor_emp_no: 'E7', actor_name: '张三', team_role: 'admin', channel: 'cli', raw_input: '', attachments: [] });
    expect(values.triggered_at).toBe(0);
    expect(values).not.toHaveProperty('_meta');
    expect(values).not.toHaveProperty('emp_no');
    expect(values).not.toHaveProperty('region'); // the caller's parameter (R-CALL-05/07)
    expect((result.input as Record<string, unknown>).api_token).toBe('callee-token'); // the callee's own (R-CALL-05)
    const keys = Object.keys(result.types as Record<string, string>).sort();
    expect(keys).toEqual(
      [
        'actor_department', 'actor_department_path', 'actor_email', 'actor_emp_no', 'actor_id', 'actor_is_admin', 'actor_key',
        'actor_name', 'actor_phone', 'actor_position', 'actor_tags', 'actor_title', 'allow_sql', 'attachments', 'call_skill',
        'channel', 'channel_registry', 'chat_mode', 'db', 'db_factory', 'abort_signal', 'is_admin', 'org_id', 'raw_input',
        'request', 'role_id', 'session_id', 'skill_args', 'skill_config', 'skill_configs', 'team_id', 'team_role',
        'triggered_at', 'triggered_at_str', 'user_id', 'workspace_dir', 'api_token',
      ].sort(),
    );
  });

  it('R-CALL-08: allow_sql=false in the caller stays false in the callee', async () => {
    const result = await callVia('ctx_echo', { note: 'x' }, undefined, { allow_sql: false });
    expect((result.values as Record<string, unknown>).allow_sql).toBe(false);
  });

  it('R-CALL-02/03/04: explicit input > template > passthrough', async () => {
    expect(mergeCallInput({ note: 'explicit' }, { source: { note: 'src', name: 'A' }, passthrough: true, template: { note: 'hi {name}', greeting: 'hi {name}' } })).toEqual({
      note: 'explicit',
      name: 'A',
      greeting: 'hi A',
    });
    expect(mergeCallInput(undefined, { source: { note: 'src' }, passthrough: true })).toEqual({ note: 'src' });
    expect(mergeCallInput({}, { extra: 1 })).toEqual({ extra: 1 }); // R-CALL-01: extra fields act as input
    const result = await callVia('ctx_echo', undefined, { source: { name: '李四' }, template: { note: '你好 {name}' } });
    expect((result.input as Record<string, unknown>).note).toBe('你好 李四');
  });

  it('R-CALL-10: an unknown skill is a failure object, never a throw', async () => {
    const result = await callVia('no_such_skill', {});
    expect(result).toMatchObject({ ok: false, skill: 'no_such_skill' });
    expect(String(result.error)).toMatch(/unknown skill/);
  });

  it('A-20: a validation failure of the callee is a platform-level failure object', async () => {
    const result = await callVia('ctx_echo', {});
    expect(result).toMatchObject({ ok: false, skill: 'ctx_echo' });
    expect(String(result.error)).toContain('note');
  });

  it('R-CALL-12: a skill may not call itself directly', async () => {
    const result = await callVia('caller', { target: 'ctx_echo' });
    expect(result).toMatchObject({ ok: false, skill: 'caller' });
    expect(String(result.error)).toMatch(/itself/);
  });

  it('R-CALL-11/A-19: levels 1→2→3 are allowed (indirect recursion too), a 4th level is refused', async () => {
    // deep (1) → deep2 (2) → deep (3): the bottom is reached.
    const three = await h.run('deep', { input: { chain: ['deep2', 'deep'] } });
    expect(three).toMatchObject({ success: true, result: { success: true, result: { success: true, bottom: true } } });
    // deep (1) → deep2 (2) → deep (3) → deep2 (4): refused at the 4th level.
    const four = await h.run('deep', { input: { chain: ['deep2', 'deep', 'deep2'] } });
    const level3 = ((four.result as Record<string, unknown>).result as Record<string, unknown>).result as Record<string, unknown>;
    expect(level3).toMatchObject({ ok: false, skill: 'deep2' });
    expect(String(level3.error)).toMatch(/depth/);
  });
});
