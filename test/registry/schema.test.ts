import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from './helpers.ts';
import type { HandlerInspection } from '../../src/registry/inspect/types.ts';
import { loadInputSchema, normalizeSchema, providerSchema, stripExtensions } from '../../src/registry/schema.ts';

function inspection(extra: Partial<HandlerInspection>): HandlerInspection {
  return { file: 'handler.ts', language: 'ts', parsed: true, entries: [], entry: null, isCli: false, ...extra };
}

async function dirWithSchema(schema: string | null): Promise<string> {
  const dir = await tempDir('skillgate-schema-');
  if (schema !== null) await writeFile(join(dir, 'schema.json'), schema);
  return dir;
}

describe('normalizeSchema (R-SCH-02)', () => {
  it('R-SCH-02: "symbol": "string" becomes {type: "string"} and the input is not modified', () => {
    const input = { type: 'object', properties: { symbol: 'string' } };
    const { schema, repaired } = normalizeSchema(input);
    expect(schema).toEqual({ type: 'object', properties: { symbol: { type: 'string' } } });
    expect(repaired).toEqual(['properties.symbol']);
    expect(input.properties.symbol).toBe('string');
  });

  it('R-SCH-02: repairs recursively in nested properties, items and additionalProperties', () => {
    const { schema, repaired } = normalizeSchema({
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: 'Integer', c: { type: 'object', properties: { d: 'boolean' } } } },
        list: { type: 'array', items: { type: 'object', properties: { e: 'number' } } },
        map: { type: 'object', additionalProperties: 'string' },
      },
    });
    expect(schema.properties).toEqual({
      a: { type: 'object', properties: { b: { type: 'integer' }, c: { type: 'object', properties: { d: { type: 'boolean' } } } } },
      list: { type: 'array', items: { type: 'object', properties: { e: { type: 'number' } } } },
      map: { type: 'object', additionalProperties: { type: 'string' } },
    });
    expect(repaired).toHaveLength(4);
  });

  it('R-SCH-02: a missing top-level type/properties becomes an empty object schema', () => {
    expect(normalizeSchema({}).schema).toEqual({ type: 'object', properties: {} });
  });
});

describe('loadInputSchema (R-LOAD-13, A-43)', () => {
  const code = inspection({
    schemaConstant: { type: 'object', properties: { c: { type: 'string' } } },
    outputSchemaConstant: { type: 'object', properties: { co: { type: 'string' } } },
    cliCommandsConstant: { fromcode: { type: 'object' } },
  });

  it('R-LOAD-13: schema.json wins over the code constant; x-output-schema and x-cli-commands are read from it', async () => {
    const dir = await dirWithSchema(
      JSON.stringify({
        type: 'object',
        properties: { f: 'string' },
        'x-output-schema': { type: 'object' },
        'x-cli-commands': { go: { properties: { n: 'integer' } } },
      }),
    );
    const r = await loadInputSchema(dir, code);
    expect(r.schemaSource).toBe('schema.json');
    expect(r.inputSchema.properties).toEqual({ f: { type: 'string' } });
    expect(r.outputSchema).toEqual({ type: 'object' });
    expect(r.cliCommands).toEqual({ go: { type: 'object', properties: { n: { type: 'integer' } } } });
    expect(r.cliCommandsSource).toBe('schema.json');
  });

  it('R-SCH-01/A-43: without schema.json the code constants are used', async () => {
    const r = await loadInputSchema(await dirWithSchema(null), code);
    expect(r.schemaSource).toBe('code');
    expect(r.inputSchema.properties).toEqual({ c: { type: 'string' } });
    expect(r.outputSchema).toEqual({ type: 'object', properties: { co: { type: 'string' } } });
    expect(Object.keys(r.cliCommands ?? {})).toEqual(['fromcode']);
  });

  it('R-SCH-01: neither → empty object schema, source none', async () => {
    const r = await loadInputSchema(await dirWithSchema(null), null);
    expect(r).toMatchObject({ inputSchema: { type: 'object', properties: {} }, schemaSource: 'none', issues: [] });
  });

  it('R-SCH-01: an invalid schema.json is an error issue and the code constant is used', async () => {
    const r = await loadInputSchema(await dirWithSchema('{ not json'), code);
    expect(r.issues).toContainEqual(expect.objectContaining({ severity: 'error', code: 'schema.json_invalid' }));
    expect(r.schemaSource).toBe('code');
  });
});

describe('providerSchema (R-CFG-06, A-09)', () => {
  const schema = {
    type: 'object',
    'x-output-schema': { type: 'object' },
    properties: {
      q: { type: 'string', 'x-input-type': 'image', description: 'query' },
      api_token: { type: 'string' },
      nested: { type: 'object', properties: { inner: { type: 'string', 'x-secret': true } } },
      'x-literal-name': { type: 'string' },
      bare: 'string',
    },
    required: ['q', 'api_token'],
  };

  it('R-CFG-06: secret params leave properties and required; A-09: x-* keys are stripped at every depth', () => {
    const out = providerSchema(schema, ['api_token']);
    expect(out).toEqual({
      type: 'object',
      properties: {
        q: { type: 'string', description: 'query' },
        nested: { type: 'object', properties: { inner: { type: 'string' } } },
        'x-literal-name': { type: 'string' },
        bare: { type: 'string' },
      },
      required: ['q'],
    });
    expect((schema.properties as Record<string, unknown>).api_token).toBeDefined();
  });

  it('R-CFG-06: a required list left empty is removed', () => {
    const out = providerSchema({ type: 'object', properties: { token: { type: 'string' } }, required: ['token'] }, ['token']);
    expect(out).toEqual({ type: 'object', properties: {} });
  });

  it('A-09: stripExtensions keeps arrays and scalars', () => {
    expect(stripExtensions([{ 'x-a': 1, b: [{ 'x-c': 2, d: 3 }] }])).toEqual([{ b: [{ d: 3 }] }]);
  });
});

afterAll(cleanupTemp);
