import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXED_CTX_FIELDS } from '../../src/runtime/types.ts';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeHarness, type Harness } from './helpers.ts';

const EMPTY_TYPES: Record<string, string> = {
  raw_input: 'string',
  attachments: 'array',
  actor_tags: 'array',
  triggered_at: 'number',
  actor_is_admin: 'boolean',
};

describeEachEngine('pipeline: one call as `skill run` makes it', (db) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(db());
  });

  it('R-CTX-02, R-CTX-03: a handler echoing runtime_context sees every fixed key with the right empty type', async () => {
    const env = await h.run('ctx_echo', { input: { note: 'hi' } });
    expect(env.success).toBe(true);
    const types = env.types as Record<string, string>;
    const values = env.values as Record<string, unknown>;
    for (const key of FIXED_CTX_FIELDS) {
      expect(types[key], key).toBe(EMPTY_TYPES[key] ?? 'string');
    }
    for (const key of FIXED_CTX_FIELDS) {
      if (key === 'channel' || key === 'triggered_at' || key === 'triggered_at_str') continue;
      const empty = EMPTY_TYPES[key] === 'array' ? [] : EMPTY_TYPES[key] === 'boolean' ? false : '';
      expect(values[key], key).toEqual(empty);
    }
    // README.md#the-skillgate-command defaults of `skill run`.
    expect(values).toMatchObject({
      channel: 'cli',
      role_id: 'default',
      org_id: 'demo',
      chat_mode: true,
      allow_sql: true,
      team_role: 'member',
      is_admin: false,
    });
    expect(values.session_id).toMatch(/^cli_[0-9a-f]{16}$/);
    expect(values.workspace_dir).toBe(join(h.dataDir, 'workspaces', 'default', String(values.session_id)));
    expect(types.db_factory).toBe('function');
    expect(types.call_skill).toBe('function');
    expect(env.artifacts).toEqual([]);
  });

  it('--context overrides defaults and fixed keys; --raw-input is raw_input; no emp_no alias (R-CTX-11)', async () => {
    const env = await h.run('ctx_echo', {
      input: { note: 'x' },
      context: { actor_emp_no: 'E100', emp_no: 'FORGED', team_role: 'owner', channel: 'telegram', _meta: { a: 1 } },
      rawInput: '帮我查一下',
    });
    const values = env.values as Record<string, unknown>;
    expect(values).toMatchObject({ actor_emp_no: 'E100', team_role: 'owner', channel: 'telegram', raw_input: '帮我查一下' });
    expect(values).not.toHaveProperty('emp_no');
    expect(values._meta).toEqual({ a: 1 });
  });

  it('the same workspace gives the same session id in the next run', async () => {
    const ws = join(h.dataDir, 'my-ws');
    const a = await h.run('ctx_echo', { input: { note: 'a' }, workspace: ws });
    const b = await h.run('ctx_echo', { input: { note: 'b' }, workspace: ws });
    expect((a.values as Record<string, unknown>).session_id).toBe((b.values as Record<string, unknown>).session_id);
    expect((a.values as Record<string, unknown>).workspace_dir).toBe(ws);
  });

  it('R-SCH-05: invalid input is refused with need_param before the skill runs', async () => {
    const env = await h.run('ctx_echo', { input: { note: '   ' } });
    expect(env).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'note', artifacts: [] });
    expect(String(env.error)).toContain('note');
  });

  it('R-CFG-02, R-CFG-06, R-CFG-10: stored parameters reach the four places; a secret param is injected, never model-filled', async () => {
    const saved = await setSkillConfig(h.services.db, h.services.secretKey, {
      roleId: 'default',
      skill: 'ctx_echo',
      key: 'api_token',
      value: 'tok-secret-123',
      via: 'operator',
      logger: h.services.log,
    });
    expect(saved.ok).toBe(true);
    await setSkillConfig(h.services.db, h.services.secretKey, {
      roleId: 'default',
      skill: 'ctx_echo',
      key: 'region',
      value: 'cn',
      via: 'operator',
      logger: h.services.log,
    });
    const env = await h.run('ctx_echo', { input: { note: 'n', api_token: 'MODEL-FILLED' } });
    const input = env.input as Record<string, unknown>;
    // The handler received the stored secret (not the model's value); the envelope shows it
    // redacted, since results reach the model (R-CFG-10).
    expect(input.api_token).toBe('[redacted]');
    expect(JSON.stringify(env)).not.toContain('MODEL-FILLED');
    expect(JSON.stringify(env)).not.toContain('tok-secret-123');
    const values = env.values as Record<string, Record<string, unknown> | unknown>;
    expect((values.skill_configs as Record<string, Record<string, unknown>>).ctx_echo!.region).toBe('cn');
    expect((values.skill_configs as Record<string, unknown>).region).toBe('cn');
    expect((values.skill_args as Record<string, unknown>).region).toBe('cn');
    expect(values.region).toBe('cn');
    expect(h.logs()).not.toContain('tok-secret-123');
  });

  it('R-LOAD-08: a missing requires.env returns needs_config and the skill does not run', async () => {
    const ws = join(h.dataDir, 'ws-needs-env');
    const env = await h.run('needs_env', { workspace: ws });
    expect(env).toMatchObject({ success: false, error_type: 'config', needs_config: ['SG_TEST_MISSING_API_KEY'] });
    expect(existsSync(join(ws, 'needs_env_ran.txt'))).toBe(false);
  });

  it('R-SUB-03: a subprocess that prints logs then JSON on its last line yields that JSON', async () => {
    const env = await h.run('logs_then_json', { input: { city: '上海' } });
    expect(env).toMatchObject({ success: true, echoed: { city: '上海' } });
    expect(env.argv).toEqual(['--city', '上海']);
    // R-SUB-02: no db, db_factory, call_skill or _ keys in SKILL_CONTEXT.
    const keys = env.ctx_keys as string[];
    for (const k of ['db', 'db_factory', 'call_skill', 'abort_signal', '_meta']) expect(keys).not.toContain(k);
    expect(keys).toEqual(expect.arrayContaining(['raw_input', 'actor_emp_no', 'workspace_dir']));
  });

  it('R-ENTRY-03/D-15: a Python handler with `runtime_context=None` still receives the context', async () => {
    const env = await h.run('py_default_ctx', { input: { q: 1 } });
    expect(env).toMatchObject({ success: true, got_context: true, channel: 'cli', has_call_skill: true, db_is_none: true });
    expect(env.keys).toEqual(expect.arrayContaining(['raw_input', 'actor_emp_no', 'org_id', 'workspace_dir']));
  });

  it('R-OFF-01, R-OFF-02, R-OFF-03: an oversized success is offloaded to a workspace file; the receipt keeps display_md', async () => {
    const env = await h.run('big_result', { input: { n: 400 } });
    expect(env.offloaded).toBe(true);
    expect(env.display_md).toBe('共 400 行');
    expect(env.counts).toMatchObject({ rows: 400 });
    const file = String(env.offload_path ?? env.local_path);
    expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8')).rows).toHaveLength(400);
    const small = await h.run('big_result', { input: { n: 2 } });
    expect(small.offloaded).toBeUndefined();
    expect(small.rows).toHaveLength(2);
  });

  it('R-ART-09, R-ART-10: report.xlsx, run.log and tmp/import_1.json yield exactly one artifact', async () => {
    const env = await h.run('writes_files', {});
    expect(env.success).toBe(true);
    const artifacts = env.artifacts as { filename: string; local_path: string; media: string }[];
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]).toMatchObject({ filename: 'report.xlsx', media: 'file' });
    expect(existsSync(artifacts[0]!.local_path)).toBe(true);
  });

  it('D-23: a symlink in the workspace pointing outside it is refused; a workspace file is read', async () => {
    const ws = join(h.dataDir, 'ws-files');
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'notes.txt'), 'inside');
    symlinkSync('/etc/hostname', join(ws, 'escape.txt'));
    const ok = await h.run('reads_file', { input: { file: 'notes.txt' }, workspace: ws });
    expect(ok).toMatchObject({ success: true, text: 'inside', file: join(ws, 'notes.txt') });
    const bad = await h.run('reads_file', { input: { file: 'escape.txt' }, workspace: ws });
    expect(bad).toMatchObject({ success: false, error_type: 'recoverable', need_param: 'file' });
    expect(bad.text).toBeUndefined();
    const abs = await h.run('reads_file', { input: { file: '/etc/passwd' }, workspace: ws });
    expect(abs).toMatchObject({ success: false, need_param: 'file' });
  });
});

describeEachEngine('pipeline: secrets and URLs', (db) => {
  let h: Harness;
  let server: Server;
  let hits: string[] = [];
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h = await makeHarness(db());
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('R-SUB-07/R-CFG-09: a secret reaches the subprocess as an env var, never argv, never a log line', async () => {
    await setSkillConfig(h.services.db, h.services.secretKey, {
      roleId: 'default',
      skill: 'secret_sh',
      key: 'api_token',
      value: 'sk-live-SECRET-777',
      via: 'operator',
      logger: h.services.log,
    });
    const env = await h.run('secret_sh', { input: { city: 'Paris', api_token: 'from-model' } });
    expect(env).toMatchObject({ success: true, has_token: true, argv_has_token: false, token_length: 'sk-live-SECRET-777'.length });
    expect(String(env.argv)).toBe('--city Paris');
    expect(h.logs()).not.toContain('sk-live-SECRET-777');
    expect(JSON.stringify(env)).not.toContain('sk-live-SECRET-777');
  });

  it('R-ART-03/D-23: a URL pointing at 127.0.0.1 in a result is not fetched unless allowed', async () => {
    hits = [];
    const env = await h.run('url_result', { input: { url: `${base}/a.png` } });
    expect(env.success).toBe(true);
    expect(hits).toEqual([]);
    expect(env.artifacts).toEqual([]);
    expect(JSON.stringify(env.artifact_errors)).toContain('127.0.0.1');

    const allowed = await makeHarness(h.services.db, { fetchAllow: ['127.0.0.1'] });
    const env2 = await allowed.run('url_result', { input: { url: `${base}/b.png` } });
    expect(hits).toEqual(['/b.png']);
    const arts = env2.artifacts as { filename: string; media: string; local_path: string }[];
    expect(arts).toHaveLength(1);
    expect(arts[0]).toMatchObject({ filename: 'b.png', media: 'image' });
  });
});
