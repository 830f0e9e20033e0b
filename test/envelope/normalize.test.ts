import { describe, expect, it } from 'vitest';
import { failurePlaceholder, isFailure, normalizeEnvelope } from '../../src/envelope/normalize.ts';

const returned = (value: unknown) => ({ kind: 'returned' as const, value });

describe('normalizeEnvelope: wrapping (R-ENTRY-04)', () => {
  it('R-ENTRY-04: non-object returns are wrapped as {result}', () => {
    expect(normalizeEnvelope(returned('hi'), { skill: 's' })).toEqual({ result: 'hi' });
    expect(normalizeEnvelope(returned(42), { skill: 's' })).toEqual({ result: 42 });
    expect(normalizeEnvelope(returned([1, 2]), { skill: 's' })).toEqual({ result: [1, 2] });
    expect(normalizeEnvelope(returned(null), { skill: 's' })).toEqual({ result: null });
    expect(normalizeEnvelope(returned(undefined), { skill: 's' })).toEqual({ result: null });
  });

  it('R-OUT-01: an object is kept as is, never re-wrapped, and not mutated', () => {
    const value = { success: true, data: { rows: 3 }, result: 'x' };
    const env = normalizeEnvelope(returned(value), { skill: 's' });
    expect(env).toEqual(value);
    expect(env).not.toBe(value);
    expect(env).not.toHaveProperty('result.result');
  });

  it('R-OUT-02: a missing or null success/ok is not a failure and nothing is added', () => {
    const env = normalizeEnvelope(returned({ rows: [] }), { skill: 's' });
    expect(env).toEqual({ rows: [] });
    expect(isFailure(env)).toBe(false);
    const env2 = normalizeEnvelope(returned({ success: null, ok: null, n: 1 }), { skill: 's' });
    expect(env2).toEqual({ success: null, ok: null, n: 1 });
    expect(isFailure(env2)).toBe(false);
  });

  it('R-OUT-03, R-OUT-11: recognised fields and partial-success counts pass through untouched', () => {
    const value = {
      success: true,
      inserted: 9,
      failed: 1,
      action_note: 'action 别名 add → insert',
      display_md: '| a |\n|---|\n| 1 |',
      display_only: true,
      redirect: 'datatable',
    };
    expect(normalizeEnvelope(returned(value), { skill: 's' })).toEqual(value);
  });
});

describe('normalizeEnvelope: failures (R-OUT-02, R-OUT-04, A-51, D-13)', () => {
  it('A-51: success:true with ok:false is a failure and gets success:false', () => {
    const env = normalizeEnvelope(returned({ success: true, ok: false, error: 'quota exceeded' }), { skill: 's' });
    expect(env.success).toBe(false);
    expect(env.ok).toBe(false);
    expect(env.error).toBe('quota exceeded');
    expect(isFailure(env)).toBe(true);
  });

  it('R-OUT-02: {ok:false} alone is a failure', () => {
    const env = normalizeEnvelope(returned({ ok: false, error: 'nope' }), { skill: 's' });
    expect(env).toEqual({ ok: false, error: 'nope', success: false });
  });

  it('R-OUT-03: a failure with all recognised fields is passed through untouched', () => {
    const value = {
      success: false,
      error: 'field 日期 must be YYYY-MM-DD',
      user_message: '日期格式不对',
      need_param: ['date'],
      error_type: 'recoverable',
      non_retriable: false,
      redirect: 'datatable',
      action_note: 'x',
    };
    expect(normalizeEnvelope(returned(value), { skill: 's' })).toEqual(value);
  });

  it('D-13, R-OUT-04: a failure without error gets an informative placeholder naming the skill, user_message and need_param', () => {
    const env = normalizeEnvelope(returned({ success: false, user_message: '请提供城市', need_param: 'city' }), {
      skill: 'weather',
    });
    expect(typeof env.error).toBe('string');
    expect(env.error).toContain('weather');
    expect(env.error).toContain('请提供城市');
    expect(env.error).toContain('city');
    expect(env.user_message).toBe('请提供城市');
    const en = normalizeEnvelope(returned({ ok: false, error: '   ', need_param: ['a', 'b'] }), { skill: 'weather', lang: 'en' });
    expect(en.error).toBe('Skill "weather" returned failure without an error message. need_param: a, b');
    expect(en.success).toBe(false);
  });

  it('R-OUT-04: a non-string error is kept readable instead of being replaced', () => {
    const env = normalizeEnvelope(returned({ success: false, error: { code: 7, msg: 'bad' } }), { skill: 's' });
    expect(env.error).toBe('{"code":7,"msg":"bad"}');
  });

  it('D-13: failurePlaceholder is never empty, even with nothing to add', () => {
    expect(failurePlaceholder('x', {}).length).toBeGreaterThan(5);
    expect(failurePlaceholder('x', {}, 'en')).toBe('Skill "x" returned failure without an error message.');
  });
});

describe('normalizeEnvelope: technical failures (R-OUT-09)', () => {
  it('R-OUT-09: {kind:failed} becomes {success:false, error, error_type, non_retriable, …details}', () => {
    const env = normalizeEnvelope(
      {
        kind: 'failed',
        error: 'handler threw: TypeError: x is undefined',
        error_type: 'transient',
        non_retriable: false,
        details: { exit_code: 1, stderr_tail: 'Traceback…', success: true, error: 'ignored' },
      },
      { skill: 's' },
    );
    expect(env).toEqual({
      success: false,
      error: 'handler threw: TypeError: x is undefined',
      error_type: 'transient',
      non_retriable: false,
      exit_code: 1,
      stderr_tail: 'Traceback…',
    });
    expect(isFailure(env)).toBe(true);
  });

  it('R-OUT-09: a technical failure with an empty error still carries a non-empty error', () => {
    const env = normalizeEnvelope({ kind: 'failed', error: '' }, { skill: 'slow', lang: 'en' });
    expect(env.error).toContain('slow');
    expect(env).not.toHaveProperty('error_type');
  });
});
