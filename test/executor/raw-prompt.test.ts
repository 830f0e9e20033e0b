import { describe, expect, it } from 'vitest';
import { applyForceRawPrompt, rawPromptField } from '../../src/executor/raw-prompt.ts';
import { resolveSubcommandInput } from '../../src/executor/validate.ts';
import type { JsonSchema } from '../../src/registry/types.ts';
import { makeSkill } from './helpers.ts';

const schema: JsonSchema = {
  type: 'object',
  properties: { prompt: { type: 'string' }, style: { type: 'string' } },
  required: ['prompt', 'style'],
};
const RAW = '画一只戴帽子的橘猫，水彩风格';

describe('applyForceRawPrompt (R-RAW-01..03, A-12)', () => {
  it('R-RAW-01: force_raw_prompt overwrites the FIRST required field with raw_input', () => {
    const skill = makeSkill({ inputSchema: schema, forceRawPrompt: true });
    const input = { prompt: 'an orange cat wearing a hat, watercolor', style: 'watercolor' };
    const out = applyForceRawPrompt(skill, input, RAW, { delegated: false });
    expect(out).toEqual({ prompt: RAW, style: 'watercolor' });
    expect(input.prompt).toBe('an orange cat wearing a hat, watercolor');
  });

  it('R-RAW-01: the field is set even when the model left it out', () => {
    const skill = makeSkill({ inputSchema: schema, forceRawPrompt: true });
    expect(applyForceRawPrompt(skill, { style: 's' }, RAW, { delegated: false }).prompt).toBe(RAW);
  });

  it('R-RAW-02: a delegated call (call_skill, chain step) keeps its prompt', () => {
    const skill = makeSkill({ inputSchema: schema, forceRawPrompt: true });
    const out = applyForceRawPrompt(skill, { prompt: 'upstream text', style: 's' }, RAW, { delegated: true });
    expect(out.prompt).toBe('upstream text');
  });

  it('R-RAW-03: without the flag (default false) nothing is overwritten', () => {
    const skill = makeSkill({ inputSchema: schema });
    expect(applyForceRawPrompt(skill, { prompt: 'model text' }, RAW, { delegated: false }).prompt).toBe('model text');
  });

  it('A-12: a schema without required fields → no overwrite; an empty raw_input → no overwrite', () => {
    const noReq = makeSkill({ inputSchema: { type: 'object', properties: { prompt: { type: 'string' } } }, forceRawPrompt: true });
    expect(applyForceRawPrompt(noReq, { prompt: 'm' }, RAW, { delegated: false })).toEqual({ prompt: 'm' });
    const skill = makeSkill({ inputSchema: schema, forceRawPrompt: true });
    expect(applyForceRawPrompt(skill, { prompt: 'm' }, '   ', { delegated: false })).toEqual({ prompt: 'm' });
  });

  it("A-12: a sub-command call uses that sub-command's first required field, never _subcommand", () => {
    const skill = makeSkill({
      forceRawPrompt: true,
      inputSchema: schema,
      subcommands: { gen: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    });
    const r = resolveSubcommandInput(skill, 'demo__gen', { text: 'paraphrase' });
    const out = applyForceRawPrompt(skill, r.input, RAW, { delegated: false, schema: r.schema });
    expect(out).toEqual({ text: RAW, _subcommand: 'gen' });
    expect(rawPromptField({ required: ['_subcommand', 'prompt'] })).toBe('prompt');
  });
});
