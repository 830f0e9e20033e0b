import { beforeAll, describe, expect, it } from 'vitest';
import { discoverSkills, resolveToolName, type Registry } from '../../src/registry/index.ts';
import type { ModelTool } from '../../src/registry/types.ts';
import { FIXTURE_ROOT } from './helpers.ts';

let registry: Registry;
let tools: ModelTool[];
const byName = (name: string): ModelTool | undefined => tools.find((t) => t.function.name === name);
const props = (t: ModelTool | undefined): Record<string, unknown> => (t?.function.parameters.properties ?? {}) as Record<string, unknown>;

beforeAll(async () => {
  registry = await discoverSkills([FIXTURE_ROOT]);
  tools = registry.tools();
});

describe('the model-facing tool list', () => {
  it('every tool has the OpenAI form {type:function, function:{name, description, parameters}}', () => {
    expect(tools.length).toBeGreaterThan(5);
    for (const t of tools) {
      expect(Object.keys(t)).toEqual(['type', 'function']);
      expect(t.type).toBe('function');
      expect(Object.keys(t.function).sort()).toEqual(['description', 'name', 'parameters']);
      expect(t.function.parameters.type).toBe('object');
    }
  });

  it('R-FORM-02/R-FORM-03: handler and skill_md skills with trigger explicit are tools', () => {
    expect(byName('type_handler_ts')).toBeDefined();
    expect(byName('type_handler_py')).toBeDefined();
    expect(byName('type_shell')).toBeDefined();
    expect(byName('type_skill_md')).toBeDefined();
  });

  it('R-FORM-04: knowledge skills never enter the tool list', () => {
    expect(registry.get('type_knowledge')?.status).toBe('ok');
    expect(byName('type_knowledge')).toBeUndefined();
  });

  it('R-LOAD-05: a non-explicit trigger type is excluded', () => {
    expect(registry.get('trigger_manual')?.frontmatter.triggerType).toBe('scheduled');
    expect(byName('trigger_manual')).toBeUndefined();
  });

  it('D-14: broken skills (no entry, parse error, bad frontmatter) are not tools', () => {
    for (const n of ['handler_no_entry', 'handler_parse_error', 'bad_frontmatter']) {
      expect(registry.get(n)?.status, n).toBe('broken');
      expect(byName(n), n).toBeUndefined();
    }
  });

  it('R-LOAD-06: category appears as a [category] prefix of the description', () => {
    expect(byName('category_prefix')?.function.description).toBe('[data] Fetch the latest price of a symbol');
    expect(byName('type_skill_md')?.function.description).toBe('A document skill carried out by a sub-agent');
  });

  it('R-LOAD-14: a skill whose name differs from its folder is a tool under its name', () => {
    expect(byName('renamed_skill')).toBeDefined();
    expect(byName('name_mismatch')).toBeUndefined();
  });

  it('R-SCH-02: bare-string property values reach the provider as objects', () => {
    const p = props(byName('bare_string_schema'));
    expect(p.symbol).toEqual({ type: 'string' });
    expect(p.options).toEqual({ type: 'object', properties: { limit: { type: 'integer' } } });
    expect(JSON.stringify(byName('bare_string_schema'))).not.toMatch(/"symbol":"string"/);
  });

  it('R-CFG-06: api_token and AUTH_HEADERS are stripped; x-secret:false keeps keyword; x-secret:true strips pin; nested kept', () => {
    const t = byName('secret_params')!;
    expect(Object.keys(props(t))).toEqual(['query', 'keyword', 'options']);
    expect(t.function.parameters.required).toEqual(['query']);
    expect((props(t).options as { properties: object }).properties).toEqual({ api_key: { type: 'string' } });
  });

  it('A-09: x-* keys are not in any tool schema', () => {
    expect(JSON.stringify(tools)).not.toMatch(/"x-[a-z-]+":/);
  });

  it('R-SUBCMD-01: 2 sub-commands fan out to <skill>__<sub> tools, each with its own schema, secrets stripped', () => {
    expect(byName('subcmd_two')).toBeUndefined();
    const start = byName('subcmd_two__start')!;
    const stop = byName('subcmd_two__stop')!;
    expect(start.function.description).toBe('[ops] Start the service');
    expect(start.function.parameters.required).toEqual(['service']);
    expect(Object.keys(props(start))).toEqual(['service']);
    expect(stop.function.description).toBe('[ops] Two sub-commands, fanned out (stop)');
    expect(props(stop)).toEqual({ service: { type: 'string' }, force: { type: 'boolean' } });
  });

  it('R-SUBCMD-02/A-03: 46 sub-commands are not fanned out; one tool with a required _subcommand enum', () => {
    expect(tools.filter((t) => t.function.name.startsWith('subcmd_many__'))).toEqual([]);
    const t = byName('subcmd_many')!;
    const sub = props(t)._subcommand as { type: string; enum: string[] };
    expect(sub.type).toBe('string');
    expect(sub.enum).toHaveLength(46);
    expect(sub.enum[0]).toBe('cmd01');
    expect(sub.enum[45]).toBe('cmd46');
    expect(t.function.parameters.required).toEqual(['_subcommand']);
    expect(props(t).verbose).toEqual({ type: 'boolean' });
  });

  it('A-03: a skill without sub-commands gets no _subcommand property', () => {
    expect(props(byName('type_handler_ts'))._subcommand).toBeUndefined();
  });

  it("a role's enabled list limits the tools; '*' means all", () => {
    const limited = registry.tools({ skills: ['category_prefix', 'subcmd_two', 'type_knowledge', 'unknown'] });
    expect(limited.map((t) => t.function.name)).toEqual(['category_prefix', 'subcmd_two__start', 'subcmd_two__stop']);
    expect(registry.tools({ skills: '*' })).toEqual(tools);
    expect(registry.tools({ skills: [] })).toEqual([]);
  });
});

describe('restoring tool names (R-SUBCMD-03)', () => {
  it('R-SUBCMD-03: <skill>__<sub> is restored to skill + sub-command', () => {
    expect(resolveToolName('subcmd_two__stop')).toEqual({ skill: 'subcmd_two', subcommand: 'stop' });
    expect(resolveToolName('plain')).toEqual({ skill: 'plain' });
  });

  it('R-SUBCMD-03: with a skill lookup, a skill named a__b is not split', () => {
    const known = new Set(['a__b', 'x']);
    expect(resolveToolName('a__b', (n) => known.has(n))).toEqual({ skill: 'a__b' });
    expect(resolveToolName('x__y__z', (n) => known.has(n))).toEqual({ skill: 'x', subcommand: 'y__z' });
  });

  it('R-SUBCMD-03: registry.resolveTool knows only declared sub-commands', () => {
    const r = registry.resolveTool('subcmd_two__start');
    expect(r?.record.name).toBe('subcmd_two');
    expect(r?.subcommand).toBe('start');
    expect(registry.resolveTool('subcmd_two__restart')).toBeUndefined();
    expect(registry.resolveTool('type_handler_ts')?.subcommand).toBeUndefined();
    expect(registry.resolveTool('no_such_skill')).toBeUndefined();
  });

  it('R-SUBCMD-03: asked again, registry.resolveTool answers each name as the first time (kept per name)', () => {
    for (let i = 0; i < 2; i++) {
      expect(registry.resolveTool('subcmd_two__start')).toMatchObject({ skill: 'subcmd_two', subcommand: 'start' });
      expect(registry.resolveTool('subcmd_two__restart')).toBeUndefined();
      expect(registry.resolveTool('no_such_skill')).toBeUndefined();
      expect(registry.resolveTool('type_handler_ts')).toMatchObject({ skill: 'type_handler_ts', record: { name: 'type_handler_ts' } });
      expect(registry.resolveTool('type_handler_ts')?.subcommand).toBeUndefined();
    }
    expect(Object.isFrozen(registry.resolveTool('subcmd_two__start'))).toBe(true);
  });
});
