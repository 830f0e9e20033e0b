import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSkill } from '../../src/registry/index.ts';
import { FIXTURE_ROOT, fixture, loadFixture } from './helpers.ts';

describe('skill types and exec types (R-FORM-01, R-FORM-05)', () => {
  it('R-FORM-01: a folder with handler.ts and no skill_type loads as an IN_PROCESS handler', async () => {
    const s = await loadFixture('type_handler_ts');
    expect(s).toMatchObject({ name: 'type_handler_ts', skillType: 'handler', execType: 'IN_PROCESS', status: 'ok', source: 'shared' });
    expect(s.entryFile).toBe(join(fixture('type_handler_ts'), 'handler.ts'));
  });

  it('A-04: handler.py with an entry and no argparse + __main__ runs through the Python bridge', async () => {
    const s = await loadFixture('type_handler_py');
    expect(s).toMatchObject({ skillType: 'handler', execType: 'PYTHON_BRIDGE', status: 'ok' });
    expect(s.entryFile).toBe(join(fixture('type_handler_py'), 'handler.py'));
  });

  it('R-ENTRY-07: handler.py with argparse + __main__ is a PYTHON CLI', async () => {
    const s = await loadFixture('type_python_cli');
    expect(s).toMatchObject({ skillType: 'handler', execType: 'PYTHON', status: 'ok' });
    expect(s.exec).toEqual({ type: 'PYTHON', config: join(fixture('type_python_cli'), 'handler.py') });
  });

  it('R-FORM-01: a folder with no handler file loads as skill_md', async () => {
    const s = await loadFixture('type_skill_md');
    expect(s).toMatchObject({ skillType: 'skill_md', execType: null, status: 'ok' });
    expect(s.doc).toBe('Steps for the sub-agent.\n');
  });

  it('R-FORM-01: skill_type knowledge is kept', async () => {
    const s = await loadFixture('type_knowledge');
    expect(s).toMatchObject({ skillType: 'knowledge', execType: null, status: 'ok' });
  });

  it('R-FORM-05/R-FORM-10: skill.toml [exec.primary] SHELL selects the exec type and its config path', async () => {
    const s = await loadFixture('type_shell');
    expect(s).toMatchObject({ skillType: 'handler', execType: 'SHELL', version: '1.2.3', status: 'ok' });
    expect(s.exec).toEqual({ type: 'SHELL', config: join(fixture('type_shell'), 'run.sh') });
    expect(s.issues.map((i) => i.code)).not.toContain('version.default');
  });

  it('R-FORM-10: a missing version defaults to 0.0.0 with a notice', async () => {
    const s = await loadFixture('type_skill_md');
    expect(s.version).toBe('0.0.0');
    expect(s.issues).toContainEqual(expect.objectContaining({ severity: 'notice', code: 'version.default' }));
  });
});

describe('D-14: a handler without an entry is broken, not a document skill', () => {
  it('D-14/R-ENTRY-06: handler.ts without execute/run/handler/main/handle → broken with an error issue', async () => {
    const s = await loadFixture('handler_no_entry');
    expect(s.status).toBe('broken');
    expect(s.skillType).toBe('handler');
    expect(s.execType).toBeNull();
    expect(s.issues).toContainEqual(expect.objectContaining({ severity: 'error', code: 'handler.no_entry' }));
  });

  it('D-14: the legacy fallback (option, default off) loads it as a document skill instead', async () => {
    const s = await loadSkill(fixture('handler_no_entry'), FIXTURE_ROOT, { legacyDocFallback: true });
    expect(s).toMatchObject({ status: 'ok', skillType: 'skill_md', execType: null });
  });

  it('D-14: a handler that does not parse is broken', async () => {
    const s = await loadFixture('handler_parse_error');
    expect(s.status).toBe('broken');
    expect(s.issues).toContainEqual(expect.objectContaining({ severity: 'error', code: 'handler.parse' }));
  });

  it('D-14: python3 unavailable → treated as having execute, with a warning', async () => {
    const s = await loadSkill(fixture('type_handler_py'), FIXTURE_ROOT, {
      inspect: async (file) => ({
        file,
        language: 'python',
        parsed: true,
        entries: [],
        entry: null,
        isCli: false,
        unavailable: 'python3 not found',
      }),
    });
    expect(s).toMatchObject({ status: 'ok', execType: 'PYTHON_BRIDGE' });
    expect(s.issues).toContainEqual(expect.objectContaining({ severity: 'warning', code: 'handler.inspect_unavailable' }));
  });
});

describe('names and frontmatter problems', () => {
  it('R-LOAD-14: a frontmatter name different from the folder registers under the name, with an issue', async () => {
    const s = await loadFixture('name_mismatch');
    expect(s.name).toBe('renamed_skill');
    expect(s.dir).toBe(fixture('name_mismatch'));
    expect(s.status).toBe('ok');
    expect(s.issues).toContainEqual(expect.objectContaining({ code: 'name.mismatch' }));
  });

  it('R-PRE-02: bad frontmatter YAML → broken with an issue, named after the folder', async () => {
    const s = await loadFixture('bad_frontmatter');
    expect(s.name).toBe('bad_frontmatter');
    expect(s.status).toBe('broken');
    expect(s.issues).toContainEqual(expect.objectContaining({ severity: 'error', code: 'frontmatter.invalid' }));
  });

  it('R-LOAD-16: an OpenClaw-style folder (inline JSON metadata, references/, scripts/) loads unchanged', async () => {
    const s = await loadFixture('openclaw_style');
    expect(s).toMatchObject({ name: 'openclaw_style', skillType: 'skill_md', status: 'ok' });
    expect(s.frontmatter.primaryEnv).toBe('WEATHER_API_KEY');
    expect(s.frontmatter.requires).toEqual({ env: [{ name: 'WEATHER_API_KEY', required: true }], bins: ['curl'] });
    expect(s.frontmatter.raw.homepage).toBe('https://example.com/weather');
    expect(s.doc).toContain('references/units.md');
    expect(s.issues.filter((i) => i.severity !== 'notice')).toEqual([]);
  });

  it('R-LOAD-04: tags in list form and cost_tier / trigger_type spellings are read from a fixture', async () => {
    const s = await loadFixture('trigger_manual');
    expect(s.frontmatter).toMatchObject({ tags: ['ops', 'nightly'], costTier: 'high', triggerType: 'scheduled' });
    const c = await loadFixture('category_prefix');
    expect(c.frontmatter).toMatchObject({ tags: ['finance', 'price'], costTier: 'low', category: 'data' });
  });

  it('R-LOAD-04: the source of a skill is its root, not the frontmatter claim', async () => {
    const s = await loadFixture('category_prefix');
    expect(s.frontmatter.source).toBe('builtin');
    expect(s.source).toBe('shared');
  });
});

describe('schemas of loaded skills (R-LOAD-13, R-SCH-02, A-43, R-CFG-06)', () => {
  it('R-LOAD-13: schema.json beats the code constant (input and output schema)', async () => {
    const s = await loadFixture('schema_precedence');
    expect(s.schemaSource).toBe('schema.json');
    expect(Object.keys(s.inputSchema.properties as object)).toEqual(['from_file']);
    expect(s.inputSchema.required).toEqual(['from_file']);
    expect(s.outputSchema).toEqual({ type: 'object', properties: { file_out: { type: 'string' } } });
  });

  it('R-LOAD-13/A-43: with no schema.json the code constants are used', async () => {
    const s = await loadFixture('schema_code_only');
    expect(s.schemaSource).toBe('code');
    expect(s.inputSchema).toEqual({ type: 'object', properties: { from_code: { type: 'string' } }, required: ['from_code'] });
    expect(s.outputSchema).toEqual({ type: 'object', properties: { code_out: { type: 'string' } } });
  });

  it('R-SCH-02: bare-string property values are normalised, also nested, with warnings', async () => {
    const s = await loadFixture('bare_string_schema');
    const props = s.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props.symbol).toEqual({ type: 'string' });
    expect(props.note).toEqual({ type: 'string', description: 'free text the user typed' });
    expect(props.options).toEqual({ type: 'object', properties: { limit: { type: 'integer' } } });
    expect(props.codes).toEqual({ type: 'array', items: { type: 'string' } });
    expect(s.issues.filter((i) => i.code === 'schema.bare_string')).toHaveLength(4);
    expect(s.status).toBe('ok');
  });

  it('R-CFG-06: secretParams lists top-level secret names only, honouring x-secret', async () => {
    const s = await loadFixture('secret_params');
    expect(s.secretParams).toEqual(['api_token', 'AUTH_HEADERS', 'pin']);
  });

  it('A-03: sub-commands come from frontmatter cli_commands or schema.json x-cli-commands', async () => {
    const two = await loadFixture('subcmd_two');
    expect(Object.keys(two.subcommands ?? {})).toEqual(['start', 'stop']);
    expect((two.subcommands!.stop!.properties as Record<string, unknown>).service).toEqual({ type: 'string' });
    const many = await loadFixture('subcmd_many');
    expect(Object.keys(many.subcommands ?? {})).toHaveLength(46);
    expect((await loadFixture('type_handler_ts')).subcommands).toBeNull();
  });
});
