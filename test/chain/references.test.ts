/**
 * The reference parser and layering, without a database
 * (R-CHAIN-27..37).
 */
import { describe, expect, it } from 'vitest';
import { collectReferences, resolveParams, wholeReference } from '../../src/chain/references.ts';
import { planLayers, placeSteps } from '../../src/chain/layers.ts';

describe('chain references', () => {
  const scope = {
    lookup: { city: '上海', n: 3, obj: { a: 1 }, nul: null },
    steps: { q: { data: [{ 名称: '甲' }], total: 2 }, 查询: { x: 'y' } },
    prevAlias: 'q',
  };

  it('R-CHAIN-31: a whole token keeps its type (number, object, null); R-CHAIN-32: embedded tokens interpolate', () => {
    expect(resolveParams({ a: '{n}', b: '{obj}', c: '{nul}', d: 'n={n} o={obj} z={nul}!' }, scope)).toEqual({
      a: 3,
      b: { a: 1 },
      c: null,
      d: 'n=3 o={"a":1} z=!',
    });
  });

  it('R-CHAIN-28/34: Chinese aliases and fields, numeric indexes; names stop at ".", spaces, braces, $ and quotes', () => {
    expect(resolveParams({ a: '$steps.q.data.0.名称', b: '$steps.查询.x', c: '看 $steps.查询.x 与 "$steps.q.total"' }, scope)).toEqual({
      a: '甲',
      b: 'y',
      c: '看 y 与 "2"',
    });
    expect(wholeReference('$steps.a b')).toBeNull();
    expect(collectReferences('$steps.a{b}').map((r) => r.text)).toEqual(['$steps.a', '{b}']);
  });

  it('R-CHAIN-30: ?? defaults: number, true, false, null, double- and single-quoted strings', () => {
    expect(
      resolveParams(
        { a: '$steps.q.no ?? 1.5', b: '$steps.q.no ?? false', c: "{nope ?? 'x y'}", d: '$steps.zz ?? "引号"', e: '$prev.total ?? 0' },
        scope,
      ),
    ).toEqual({
      a: 1.5,
      b: false,
      c: 'x y',
      d: '引号',
      e: 2,
    });
  });

  it('R-CHAIN-33: a missing reference drops the key (also inside nested objects and arrays)', () => {
    expect(resolveParams({ a: '{nope}', b: { c: '$steps.q.none', d: 1 }, e: ['{nope}', '{city}'] }, scope)).toEqual({
      b: { d: 1 },
      e: ['上海'],
    });
  });

  it('R-CHAIN-35/37: layers follow the reference graph; a cycle and an unknown alias degrade to sequential', () => {
    const names = (steps: Parameters<typeof placeSteps>[0]) => {
      const plan = planLayers(placeSteps(steps));
      return { layers: plan.layers.map((l) => l.map((p) => p.alias)), degraded: plan.degraded };
    };
    expect(
      names([
        { skill_name: 's', alias: 'a' },
        { skill_name: 's', alias: 'b' },
        { skill_name: 's', alias: 'c', params: { x: '$steps.a.v', y: '{$steps.b}' } },
      ]),
    ).toEqual({ layers: [['a', 'b'], ['c']], degraded: undefined });
    expect(
      names([
        { skill_name: 's', alias: 'a', params: { x: '$steps.b' } },
        { skill_name: 's', alias: 'b', params: { x: '$steps.a' } },
        { skill_name: 's', alias: 'c' },
      ]),
    ).toEqual({ layers: [['c'], ['a'], ['b']], degraded: 'cycle' });
    expect(
      names([
        { skill_name: 's', alias: 'a' },
        { skill_name: 's', alias: 'b', params: { x: '$steps.ghost' } },
        { skill_name: 's', alias: 'c' },
      ]),
    ).toEqual({ layers: [['a', 'c'], ['b']], degraded: 'unknown_alias' });
    expect(
      names([
        { skill_name: 's', alias: 'a' },
        { skill_name: 's', alias: 'b', params: { x: '$prev.v' } },
      ]),
    ).toEqual({ layers: [['a'], ['b']], degraded: undefined });
  });
});
