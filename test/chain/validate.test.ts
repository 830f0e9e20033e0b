/**
 * Save validation (R-CHAIN-16..24, R-CHAIN-09/10): each rule refuses
 * on its own, naming the offending item. No database needed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverSkills, makeRegistry, type Registry } from '../../src/registry/discover.ts';
import { chainSkillRecord } from '../../src/chain/skill.ts';
import { validateChain } from '../../src/chain/validate.ts';
import type { ChainDocument } from '../../src/chain/document.ts';
import { CHAIN_FIXTURES } from './helpers.ts';

const good = (): ChainDocument => ({
  name: 'good_chain',
  description: '查询后回显',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
  steps: [
    { skill_name: 'lookup_out', alias: 'q' },
    { skill_name: 'echo', alias: 'e', params: { city: '{city}', total: '$steps.q.total' } },
  ],
  cost_tier: 'low',
});

describe('chain save validation', () => {
  let registry: Registry;
  const check = (doc: unknown, chainNames?: Set<string>) => validateChain(doc, { registry, chainNames });
  const codes = (doc: unknown) => check(doc).map((p) => p.code);

  beforeAll(async () => {
    const base = await discoverSkills([{ dir: CHAIN_FIXTURES, source: 'shared' }]);
    const nested = chainSkillRecord({ ...good(), name: 'other_chain' });
    registry = makeRegistry([...base.all(), nested]);
  });

  it('a correct chain passes', () => {
    expect(check(good())).toEqual([]);
  });

  it('R-CHAIN-17: a name that is not ^[a-z][a-z0-9_]*$ is refused ("my-chain")', () => {
    const p = check({ ...good(), name: 'my-chain' });
    expect(p.map((x) => x.code)).toEqual(['name.pattern']);
    expect(p[0]!.message).toContain('my-chain');
  });

  it('R-CHAIN-17: a name taken by an installed skill is refused', () => {
    expect(codes({ ...good(), name: 'echo' })).toEqual(['name.taken']);
  });

  it('R-CHAIN-18: no steps, an empty description, a step without skill_name are refused', () => {
    expect(codes({ ...good(), steps: [], input_schema: {} })).toEqual(['steps.empty']);
    expect(codes({ ...good(), description: '  ' })).toEqual(['description.empty']);
    const p = check({ ...good(), steps: [{ skill_name: '', alias: 'x', params: { c: '{city}' } }] });
    expect(p.map((x) => x.code)).toEqual(['step.skill_missing']);
    expect(p[0]!.item).toBe('steps[0].skill_name');
  });

  it('R-CHAIN-19: an undeclared {param} (in params or natural_desc) and a declared but unused input are refused', () => {
    const undeclared = check({ ...good(), steps: [{ skill_name: 'echo', alias: 'e', params: { c: '{city}', d: '{town}' } }] });
    expect(undeclared.map((x) => [x.code, x.item])).toEqual([['param.undeclared', '{town}']]);
    const inDesc = check({
      ...good(),
      steps: [{ skill_name: 'echo', alias: 'e', params: { c: '{city}' }, natural_desc: '查 {region} 的数据' }],
    });
    expect(inDesc.map((x) => [x.code, x.item])).toEqual([['param.undeclared', '{region}']]);
    const unused = check({ ...good(), input_schema: { type: 'object', properties: { city: {}, spare: {} } } });
    expect(unused.map((x) => [x.code, x.item])).toEqual([['param.unused', '{spare}']]);
  });

  it('R-CHAIN-20: $steps.<alias> naming a later step or no step is refused', () => {
    const fwd = check({
      ...good(),
      steps: [
        { skill_name: 'echo', alias: 'e', params: { c: '{city}', t: '$steps.q.total' } },
        { skill_name: 'lookup_out', alias: 'q' },
      ],
    });
    expect(fwd.map((x) => [x.code, x.item])).toEqual([['steps.forward_ref', '$steps.q']]);
    const unknown = check({ ...good(), steps: [{ skill_name: 'echo', alias: 'e', params: { c: '{city}', t: '$steps.ghost' } }] });
    expect(unknown.map((x) => [x.code, x.item])).toEqual([['steps.unknown_alias', '$steps.ghost']]);
  });

  it("R-CHAIN-21: a top-level field not in the referenced skill's output schema is refused with the allowed fields", () => {
    const p = check({
      ...good(),
      steps: [
        { skill_name: 'lookup_out', alias: 'q' },
        { skill_name: 'echo', alias: 'e', params: { c: '{city}', t: '$steps.q.totl' } },
      ],
    });
    expect(p.map((x) => x.code)).toEqual(['steps.unknown_field']);
    expect(p[0]!.message).toContain('data, total');
    // no output schema declared → any field accepted
    expect(
      check({
        ...good(),
        steps: [
          { skill_name: 'echo', alias: 'a' },
          { skill_name: 'echo', alias: 'e', params: { c: '{city}', t: '$steps.a.whatever' } },
        ],
      }),
    ).toEqual([]);
  });

  it('R-CHAIN-22: an input named like a reserved context key is refused', () => {
    const p = check({ ...good(), input_schema: { type: 'object', properties: { city: {}, org_id: {} } } });
    expect(p.map((x) => [x.code, x.item])).toEqual([['input.reserved', 'input_schema.properties.org_id']]);
  });

  it('R-CHAIN-23: a step that calls a chain is refused (registered or only saved)', () => {
    expect(codes({ ...good(), steps: [{ skill_name: 'other_chain', alias: 'x', params: { c: '{city}' } }] })).toEqual([
      'step.nested_chain',
    ]);
    expect(
      check({ ...good(), steps: [{ skill_name: 'hidden_chain', alias: 'x', params: { c: '{city}' } }] }, new Set(['hidden_chain'])).map(
        (x) => x.code,
      ),
    ).toEqual(['step.nested_chain']);
  });

  it('R-CHAIN-24: cost_tier outside zero/low/medium/high is refused', () => {
    expect(codes({ ...good(), cost_tier: 'huge' })).toEqual(['cost_tier.invalid']);
  });

  it('R-CHAIN-09/10: a bad alias ("a.b") and a duplicate alias are refused; Chinese aliases are fine', () => {
    expect(codes({ ...good(), steps: [{ skill_name: 'echo', alias: 'a.b', params: { c: '{city}' } }] })).toEqual(['alias.pattern']);
    expect(
      codes({
        ...good(),
        steps: [
          { skill_name: 'echo', alias: 'q', params: { c: '{city}' } },
          { skill_name: 'echo', alias: 'q' },
        ],
      }),
    ).toEqual(['alias.duplicate']);
    expect(
      check({
        ...good(),
        steps: [
          { skill_name: 'lookup_out', alias: '查询' },
          { skill_name: 'echo', alias: '回显', params: { c: '{city}', n: '$steps.查询.total' } },
        ],
      }),
    ).toEqual([]);
  });

  it('a step naming an unknown skill and a structurally wrong document are refused', () => {
    expect(codes({ ...good(), steps: [{ skill_name: 'no_such_skill', alias: 'x', params: { c: '{city}' } }] })).toEqual([
      'step.skill_unknown',
    ]);
    expect(codes({ name: 'x', steps: 'nope' })).toContain('document.shape');
    expect(codes({ ...good(), steps: [{ skill_name: 'echo', on_fail: 'explode' }] })[0]).toBe('document.shape');
  });
});
