import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/registry/preflight.ts';
import { lintSchema } from '../../src/registry/preflight/schema.ts';
import { fixture, graded, makeSkill, skillMd } from './support.ts';

const create = { mode: 'create' } as const;

describe('preflight: input schema and secrets', () => {
  it('R-SCH-03: bare-string, non-object property values and bad items / additionalProperties are each reported', async () => {
    const issues = await preflight(fixture('bad_schema'), create);
    expect(graded(issues)).toEqual([
      ['error', 'schema.bare_string'],
      ['error', 'schema.property_not_object'],
      ['error', 'schema.keyword_invalid'],
      ['error', 'schema.bare_string'],
    ]);
    expect(issues[0]!.message).toBe(
      'schema.json: properties.symbol is the bare string "string"; the platform repairs it to an object, but some model providers reject the whole tool batch — write {"type": "string"}',
    );
    expect(issues[1]!.message).toMatch(/properties\.count is a number \(5\)/);
    expect(issues[2]!.message).toMatch(/properties\.list\.items must be a boolean or an object/);
    expect(issues[3]!.message).toMatch(/properties\.map\.additionalProperties is the bare string "no"/);
  });

  it('R-SCH-03: schema.json that is not valid JSON ⇒ schema.json_invalid', async () => {
    const issues = await preflight(fixture('invalid_json'), create);
    expect(graded(issues)).toEqual([['error', 'schema.json_invalid']]);
    expect(issues[0]!.message).toMatch(/^schema\.json is not valid JSON: /);
  });

  it('R-SCH-03: a JSON array as schema.json is not a schema', async () => {
    const dir = makeSkill('arr_schema', { 'SKILL.md': skillMd('arr_schema'), 'schema.json': '[1, 2]' });
    expect(graded(await preflight(dir, create))).toEqual([['error', 'schema.json_invalid']]);
  });

  it('R-SCH-03: nested schemas are walked (anyOf, $defs, items objects); boolean keywords are fine', () => {
    const findings = lintSchema(
      {
        type: 'object',
        additionalProperties: false,
        properties: {
          rows: { type: 'array', items: { type: 'object', properties: { a: 'integer' } } },
          any: { anyOf: [{ type: 'object', properties: { b: [] } }] },
          tuple: { type: 'array', items: [{ type: 'string' }] },
        },
        $defs: { d: { type: 'object', additionalProperties: 1 } },
      },
      'schema.json',
    );
    expect(findings.map((f) => [f.code, f.message.split(' ')[1]])).toEqual([
      ['schema.bare_string', 'properties.rows.items.properties.a'],
      ['schema.property_not_object', 'properties.any.anyOf.0.properties.b'],
      ['schema.keyword_invalid', 'properties.tuple.items'],
      ['schema.keyword_invalid', '$defs.d.additionalProperties'],
    ]);
  });

  it('R-LOAD-13: without schema.json the handler constant is checked (and schema.json wins when both exist)', async () => {
    const issues = await preflight(fixture('code_schema'), create);
    expect(graded(issues)).toEqual([
      ['error', 'schema.bare_string'],
      ['notice', 'secret.param'],
    ]);
    expect(issues[0]!.message).toMatch(/^the input schema constant in handler\.ts: properties\.city/);

    const both = makeSkill('both_schemas', {
      'SKILL.md': skillMd('both_schemas'),
      'handler.ts':
        "export const INPUT_SCHEMA = { type: 'object', properties: { city: 'string' } };\n" +
        'export async function execute(input_data: object, runtime_context: object) { return {}; }\n',
      'schema.json': '{"type": "object", "properties": {"city": {"type": "string"}}}',
    });
    expect(await preflight(both, create)).toEqual([]);
  });

  it('R-SUBCMD / R-SCH-03: sub-command schemas from x-cli-commands are checked too', async () => {
    const dir = makeSkill('subs', {
      'SKILL.md': skillMd('subs'),
      'schema.json': '{"type": "object", "properties": {}, "x-cli-commands": {"list": {"type": "object", "properties": {"n": "integer"}}}}',
    });
    const issues = await preflight(dir, create);
    expect(graded(issues)).toEqual([['error', 'schema.bare_string']]);
    expect(issues[0]!.message).toMatch(/^sub-command list: properties\.n/);
  });

  it('D-20 / R-CFG-05: every detected secret input property is a notice naming the x-secret opt-out; nested and opted-out ones are not', async () => {
    for (const mode of ['create', 'install'] as const) {
      const issues = await preflight(fixture('secret_params'), { mode });
      expect(graded(issues)).toEqual([
        ['notice', 'secret.param'],
        ['notice', 'secret.param'],
      ]);
      expect(issues[0]!.message).toMatch(/^input property "api_token" is treated as a secret/);
      expect(issues[1]!.message).toMatch(/^input property "author" is treated as a secret.*"x-secret": false/);
    }
  });

  it('D-20: "x-secret": true opts a property in', async () => {
    const dir = makeSkill('opt_in', {
      'SKILL.md': skillMd('opt_in'),
      'schema.json': '{"type": "object", "properties": {"pin": {"type": "string", "x-secret": true}}}',
    });
    expect(graded(await preflight(dir, create))).toEqual([['notice', 'secret.param']]);
  });
});
