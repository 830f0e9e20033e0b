import { describe, expect, it } from 'vitest';
import { isNotProvided, resolveSubcommandInput, validateInput } from '../../src/executor/validate.ts';
import type { JsonSchema } from '../../src/registry/types.ts';
import { loadFixture } from '../registry/helpers.ts';
import { makeSkill } from './helpers.ts';

const schema: JsonSchema = {
  type: 'object',
  properties: {
    symbol: { type: 'string' },
    limit: { type: 'integer', default: 100 },
  },
  required: ['symbol'],
};
const opts = { skill: 'fetch_price' };

describe('validateInput: required semantics (R-SCH-04, R-SCH-05, A-08)', () => {
  const anySchema: JsonSchema = { type: 'object', properties: { v: {} }, required: ['v'] };
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['missing key', {}, false],
    ['empty string ""', { v: '' }, false],
    ['whitespace-only "  "', { v: '  \t\n' }, false],
    ['empty array []', { v: [] }, false],
    ['empty object {}', { v: {} }, false],
    ['0 is valid', { v: 0 }, true],
    ['false is valid', { v: false }, true],
  ];
  for (const [title, input, ok] of cases) {
    it(`R-SCH-04: ${title} → ${ok ? 'accepted' : 'not provided'}`, () => {
      const env = validateInput(anySchema, input, opts);
      if (ok) expect(env).toBeNull();
      else expect(env).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'v' });
    });
  }

  it('R-SCH-04: isNotProvided matches the table (null too), and a non-empty value is provided', () => {
    expect([undefined, null, '', ' ', [], {}].map(isNotProvided)).toEqual([true, true, true, true, true, true]);
    expect([0, false, 'a', [0], { a: 1 }].map(isNotProvided)).toEqual([false, false, false, false, false]);
  });

  it('R-SCH-05: the failure names the field for the model, a zh-CN user_message, and the skill name', () => {
    const env = validateInput(schema, { limit: 5 }, opts)!;
    expect(env.success).toBe(false);
    expect(env.error_type).toBe('recoverable');
    expect(env.need_param).toBe('symbol');
    expect(env.error).toContain('`symbol`');
    expect(env.error).toContain('fetch_price');
    expect(env.error).toMatch(/did not run/);
    expect(env.user_message).toContain('缺少必填参数 symbol');
  });

  it('R-SCH-05: English user_message with lang en', () => {
    const env = validateInput(schema, {}, { skill: 'x', lang: 'en' })!;
    expect(env.user_message).toMatch(/^Some parameters are missing or invalid \(missing symbol\)/);
  });

  it('A-08: required is applied inside nested objects, with a dotted path', () => {
    const nested: JsonSchema = {
      type: 'object',
      properties: {
        address: {
          type: 'object',
          properties: { city: { type: 'string' }, zip: { type: 'string' } },
          required: ['city', 'zip'],
        },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
      },
      required: ['address'],
    };
    const env = validateInput(nested, { address: { city: '  ', zip: '100000' }, items: [{ name: 'a' }, { name: '' }] }, opts)!;
    expect(env.need_param).toEqual(['address.city', 'items[1].name']);
    expect(env.error).toContain('`address.city`');
    expect(env.error).toContain('`items[1].name`');
    // the nested object itself being {} counts as not provided, and its inner fields are not listed again
    const env2 = validateInput(nested, { address: {} }, opts)!;
    expect(env2.need_param).toBe('address');
    expect(validateInput(nested, { address: { city: 'Paris', zip: '75000' } }, opts)).toBeNull();
  });

  it('A-08: several missing fields → need_param is an array, every field named', () => {
    const two: JsonSchema = { type: 'object', properties: { a: {}, b: {} }, required: ['a', 'b'] };
    const env = validateInput(two, { a: [] }, opts)!;
    expect(env.need_param).toEqual(['a', 'b']);
    expect(env.error).toContain('`a`');
    expect(env.error).toContain('`b`');
  });

  it('A-08: no defaults are injected — a schema default stays absent and the input is untouched', () => {
    const input = { symbol: 'BTC' };
    expect(validateInput(schema, input, opts)).toBeNull();
    expect(input).toEqual({ symbol: 'BTC' });
    expect('limit' in input).toBe(false);
  });

  it('R-SCH-05: type and enum errors name the field path and how to fix it', () => {
    const typed: JsonSchema = {
      type: 'object',
      properties: {
        limit: { type: 'integer' },
        opts: { type: 'object', properties: { mode: { enum: ['fast', 'slow'] } } },
      },
      additionalProperties: false,
    };
    const env = validateInput(typed, { limit: 'ten', opts: { mode: 'medium' }, extra: 1 }, opts)!;
    expect(env.need_param).toEqual(expect.arrayContaining(['limit', 'opts.mode', 'extra']));
    expect(env.error).toContain('`limit` must be integer');
    expect(env.error).toContain('`opts.mode` must be one of "fast", "slow"');
    expect(env.error).toContain('`extra` is not a parameter of this tool');
    expect(env.user_message).toContain('格式不正确');
    expect(env.user_message).toContain('limit 应为整数');
  });

  it('an argument error names the rule that failed (the allowed range) and shows a working example', () => {
    const s: JsonSchema = { type: 'object', properties: { seconds: { type: 'integer', minimum: 1, maximum: 600 } }, required: ['seconds'] };
    const zh = validateInput(s, { seconds: 99999 }, { skill: 'countdown' })!;
    expect(zh.user_message).toBe('参数不完整或格式不正确：参数 seconds 格式不正确。seconds 应为整数，1–600。示例：/countdown seconds=1');
    const en = validateInput(s, { seconds: 99999 }, { skill: 'countdown', lang: 'en' })!;
    expect(en.user_message).toBe(
      'Some parameters are missing or invalid (invalid seconds). seconds must be integer, 1–600. Example: /countdown seconds=1.',
    );
    const e: JsonSchema = { type: 'object', properties: { mode: { type: 'string', enum: ['fast', 'slow'] } } };
    expect(validateInput(e, { mode: 'medium' }, { skill: 'x' })!.user_message).toContain('mode 应为文本，可选值：fast、slow');
  });

  it('R-SCH-04: a required field given as "" is reported once, as not provided, not also as a type error', () => {
    const s: JsonSchema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const env = validateInput(s, { n: '' }, opts)!;
    expect(env.need_param).toBe('n');
    expect(env.error).not.toContain('must be integer');
  });

  it('a schema ajv cannot compile still gets the required check', () => {
    const broken: JsonSchema = { type: 'object', properties: { a: { type: 'nonsense' } }, required: ['a'] };
    expect(validateInput(broken, {}, opts)?.need_param).toBe('a');
    expect(validateInput(broken, { a: 1 }, opts)).toBeNull();
  });

  it('the compiled validator is cached per schema object (same verdicts on repeated calls)', () => {
    for (let i = 0; i < 3; i++) {
      expect(validateInput(schema, { symbol: 'X', limit: 'a' }, opts)?.need_param).toBe('limit');
      expect(validateInput(schema, { symbol: 'X' }, opts)).toBeNull();
    }
  });
});

describe('resolveSubcommandInput (R-SUBCMD-03, R-SUBCMD-05, A-03)', () => {
  it('R-SUBCMD-03: <skill>__<sub> is restored to the skill with input._subcommand = sub', async () => {
    const skill = await loadFixture('subcmd_two');
    const r = resolveSubcommandInput(skill, 'subcmd_two__start', { service: 'web' });
    expect(r.input).toEqual({ service: 'web', _subcommand: 'start' });
    expect(r.subcommand).toBe('start');
  });

  it("R-SUBCMD-05: the sub-command's schema is used — its required field is enforced", async () => {
    const skill = await loadFixture('subcmd_two');
    const start = resolveSubcommandInput(skill, 'subcmd_two__start', {});
    expect(validateInput(start.schema, start.input, opts)?.need_param).toBe('service');
    const stop = resolveSubcommandInput(skill, 'subcmd_two__stop', {});
    expect(validateInput(stop.schema, stop.input, opts)).toBeNull();
  });

  it('R-SUBCMD-05: _subcommand is accepted even when the sub schema forbids extra properties', () => {
    const skill = makeSkill({
      subcommands: { run: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } },
    });
    const r = resolveSubcommandInput(skill, 'demo__run', { n: 1 });
    expect(validateInput(r.schema, r.input, opts)).toBeNull();
    const bad = resolveSubcommandInput(skill, 'demo__run', { n: 1, x: 2 });
    expect(validateInput(bad.schema, bad.input, opts)?.need_param).toBe('x');
  });

  it('A-03: with ≥46 sub-commands _subcommand is checked against the names and the chosen sub schema is used', () => {
    const subcommands: Record<string, JsonSchema> = {};
    for (let i = 1; i <= 46; i++) subcommands[`c${i}`] = { type: 'object', properties: { arg: { type: 'string' } } };
    subcommands.c7 = { type: 'object', properties: { arg: { type: 'string' } }, required: ['arg'] };
    const skill = makeSkill({ subcommands, inputSchema: { type: 'object', properties: { verbose: { type: 'boolean' } } } });

    const ok = resolveSubcommandInput(skill, 'demo', { _subcommand: 'c7', arg: 'x' });
    expect(ok.subcommand).toBe('c7');
    expect(validateInput(ok.schema, ok.input, opts)).toBeNull();

    const needsArg = resolveSubcommandInput(skill, 'demo', { _subcommand: 'c7' });
    expect(validateInput(needsArg.schema, needsArg.input, opts)?.need_param).toBe('arg');

    const missing = resolveSubcommandInput(skill, 'demo', { arg: 'x' });
    expect(validateInput(missing.schema, missing.input, opts)?.need_param).toBe('_subcommand');

    const unknown = resolveSubcommandInput(skill, 'demo', { _subcommand: 'nope' });
    const env = validateInput(unknown.schema, unknown.input, opts)!;
    expect(env.need_param).toBe('_subcommand');
    expect(env.error).toContain('"c1"');
  });

  it('an unknown fanned-out sub-command fails validation on _subcommand', async () => {
    const skill = await loadFixture('subcmd_two');
    const r = resolveSubcommandInput(skill, 'subcmd_two__restart', { service: 'web' });
    expect(r.input._subcommand).toBe('restart');
    expect(validateInput(r.schema, r.input, opts)?.need_param).toBe('_subcommand');
  });

  it('a skill without sub-commands keeps its own schema and a copy of the input', () => {
    const skill = makeSkill({ inputSchema: schema });
    const input = { symbol: 'A' };
    const r = resolveSubcommandInput(skill, 'demo', input);
    expect(r.schema).toBe(schema);
    expect(r.input).toEqual(input);
    expect(r.input).not.toBe(input);
  });
});
