import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mergeCallInput } from '../../src/orchestration/call-skill.ts';
import { listAttachments } from '../../src/session/attachments.ts';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { makeHarness, type Harness } from './helpers.ts';

describeEachEngine('call_skill', (db) => {
  let h: Harness;
  beforeAll(async () => {
    h = await makeHarness(db());
    await setSkillConfig(h.services.db, h.services.secretKey, {
      roleId: 'default',
      skill: 'caller',
      key: 'region',
      value: 'caller-only',
      via: 'operator',
      logger: h.services.log,
    });
    await setSkillConfig(h.services.db, h.services.secretKey, {
      roleId: 'default',
      skill: 'ctx_echo',
      key: 'api_token',
      value: 'callee-token',
      via: 'operator',
      logger: h.services.log,
    });
  });

  async function callVia(
    target: string,
    input?: Record<string, unknown>,
    options?: Record<string, unknown>,
    context: Record<string, unknown> = {},
  ) {
    const env = await h.run('caller', { input: { target, input, options }, context, rawInput: 'user text of this turn' });
    expect(env.success).toBe(true);
    return env.result as Record<string, unknown>;
  }

  it('R-CALL-05, R-CALL-06, R-CALL-07, A-21: the child context holds exactly the whitelist, empty fixed keys and its own config', async () => {
    const result = await callVia('ctx_echo', { note: 'from caller' }, undefined, {
      actor_emp_no: 'E7',
      actor_name: '张三',
      team_role: 'admin',
      _meta: { secret: true },
    });
    expect(result.success).toBe(true);
    const values = result.values as Record<string, unknown>;
    expect(values).toMatchObject({
      actor_emp_no: 'E7',
      actor_name: '张三',
      team_role: 'admin',
      channel: 'cli',
      raw_input: '',
      attachments: [],
    });
    expect(values.triggered_at).toBe(0);
    expect(values).not.toHaveProperty('_meta');
    expect(values).not.toHaveProperty('emp_no');
    expect(values).not.toHaveProperty('region'); // the caller's parameter (R-CALL-05/07)
    expect((result.input as Record<string, unknown>).api_token).toBe('callee-token'); // the callee's own (R-CALL-05)
    const keys = Object.keys(result.types as Record<string, string>).sort();
    expect(keys).toEqual(
      [
        'actor_department',
        'actor_department_path',
        'actor_email',
        'actor_emp_no',
        'actor_id',
        'actor_is_admin',
        'actor_key',
        'actor_name',
        'actor_phone',
        'actor_position',
        'actor_tags',
        'actor_title',
        'allow_sql',
        'attachments',
        'call_skill',
        'channel',
        'channel_registry',
        'chat_mode',
        'db',
        'db_factory',
        'abort_signal',
        'is_admin',
        'org_id',
        'raw_input',
        'request',
        'role_id',
        'session_id',
        'skill_args',
        'skill_config',
        'skill_configs',
        'team_id',
        'team_role',
        'triggered_at',
        'triggered_at_str',
        'user_id',
        'workspace_dir',
        'api_token',
      ].sort(),
    );
  });

  it('R-CALL-08: allow_sql=false in the caller stays false in the callee', async () => {
    const result = await callVia('ctx_echo', { note: 'x' }, undefined, { allow_sql: false });
    expect((result.values as Record<string, unknown>).allow_sql).toBe(false);
  });

  it('R-CALL-01, R-CALL-02, R-CALL-03, R-CALL-04: extra option fields act as input; explicit input > template > passthrough', async () => {
    expect(
      mergeCallInput(
        { note: 'explicit' },
        { source: { note: 'src', name: 'A' }, passthrough: true, template: { note: 'hi {name}', greeting: 'hi {name}' } },
      ),
    ).toEqual({
      note: 'explicit',
      name: 'A',
      greeting: 'hi A',
    });
    expect(mergeCallInput(undefined, { source: { note: 'src' }, passthrough: true })).toEqual({ note: 'src' });
    expect(mergeCallInput({}, { extra: 1 })).toEqual({ extra: 1 }); // R-CALL-01: extra fields act as input
    const result = await callVia('ctx_echo', undefined, { source: { name: '李四' }, template: { note: '你好 {name}' } });
    expect((result.input as Record<string, unknown>).note).toBe('你好 李四');
    // Through a real call: an extra option field is an input field (R-CALL-01) ...
    const kw = await callVia('ctx_echo', undefined, { note: 'as a keyword' });
    expect((kw.input as Record<string, unknown>).note).toBe('as a keyword');
    // ... passthrough hands the whole source over (R-CALL-04) ...
    const pass = await callVia('ctx_echo', undefined, { source: { note: 'from source', extra: 7 }, passthrough: true });
    expect(pass.input).toMatchObject({ note: 'from source', extra: 7 });
    // ... and explicit input beats both (R-CALL-02).
    const both = await callVia(
      'ctx_echo',
      { note: 'explicit' },
      { source: { note: 'from source' }, passthrough: true, template: { note: 'tpl' } },
    );
    expect((both.input as Record<string, unknown>).note).toBe('explicit');
  });

  it('R-CALL-10: an unknown skill is a failure object, never a throw', async () => {
    const result = await callVia('no_such_skill', {});
    expect(result).toMatchObject({ ok: false, skill: 'no_such_skill' });
    expect(String(result.error)).toMatch(/unknown skill/);
  });

  it('A-20: a validation failure of the callee is a platform-level failure object', async () => {
    const result = await callVia('ctx_echo', {});
    expect(result).toMatchObject({ ok: false, skill: 'ctx_echo' });
    expect(String(result.error)).toContain('note');
  });

  it('R-CALL-12: a skill may not call itself directly', async () => {
    const result = await callVia('caller', { target: 'ctx_echo' });
    expect(result).toMatchObject({ ok: false, skill: 'caller' });
    expect(String(result.error)).toMatch(/itself/);
  });

  it('R-CALL-11, A-19: levels 1→2→3 are allowed (indirect recursion too), a 4th level is refused', async () => {
    // deep (1) → deep2 (2) → deep (3): the bottom is reached.
    const three = await h.run('deep', { input: { chain: ['deep2', 'deep'] } });
    expect(three).toMatchObject({ success: true, result: { success: true, result: { success: true, bottom: true } } });
    // deep (1) → deep2 (2) → deep (3) → deep2 (4): refused at the 4th level.
    const four = await h.run('deep', { input: { chain: ['deep2', 'deep', 'deep2'] } });
    const level3 = ((four.result as Record<string, unknown>).result as Record<string, unknown>).result as Record<string, unknown>;
    expect(level3).toMatchObject({ ok: false, skill: 'deep2' });
    expect(String(level3.error)).toMatch(/depth/);
  });

  it("R-CALL-09: a callee's SQL error does not poison the caller: it holds no transaction and queries fine afterwards", async () => {
    for (const mode of ['tx', 'legacy']) {
      const env = await h.run('sql_caller', { input: { mode } });
      expect(env.success, JSON.stringify(env)).toBe(true);
      expect(env.own).toBe(true); // the caller's statement ran in its own implicit transaction
      const child = env.child as Record<string, unknown>;
      expect(child).toMatchObject({ ok: false, skill: 'sql_fail' });
      expect(String(child.error)).toMatch(mode === 'tx' ? /division by zero/ : /no_such_table_r_call_09/);
      expect(env.legacy).toBe(1);
      // The caller's committed row is there; the callee's row went with its rolled-back transaction.
      expect(env.rows).toEqual(['caller']);
    }
  });

  it('R-CALL-13: a subprocess callee gets no call_skill (nor db, db_factory) in SKILL_CONTEXT; an in-process callee has it', async () => {
    const sub = await callVia('logs_then_json', { city: '北京' });
    expect(sub).toMatchObject({ success: true, echoed: { city: '北京' } });
    const keys = sub.ctx_keys as string[];
    expect(keys).toEqual(expect.arrayContaining(['role_id', 'actor_emp_no', 'workspace_dir']));
    for (const k of ['call_skill', 'db', 'db_factory', 'abort_signal']) expect(keys, k).not.toContain(k);
    const inProcess = await callVia('ctx_echo', { note: 'x' });
    expect((inProcess.types as Record<string, string>).call_skill).toBe('function');
  });
});

describeEachEngine('call_skill: no dialog-layer post-processing for callee results (R-ART-12, R-CALL-14)', (db) => {
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
    // The loopback server is allowed, so a dialog-layer result WOULD be downloaded.
    h = await makeHarness(db(), { fetchAllow: ['127.0.0.1'] });
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('R-CALL-14, R-ART-12: a callee returning an image_url leaves nothing downloaded, registered or listed as an artifact', async () => {
    hits = [];
    const ws = join(h.dataDir, 'ws-callee-url');
    const url = `${base}/callee.png`;
    const env = await h.run('call_summary', { input: { target: 'url_result', input: { url } }, workspace: ws });
    expect(env).toMatchObject({ success: true, child_success: true, image_url_seen: url.replace('http://', ''), artifacts: [] });
    expect(hits).toEqual([]);
    expect(readdirSync(ws)).toEqual([]);
    const sessionId = (await h.run('ctx_echo', { input: { note: 'n' }, workspace: ws })).values as Record<string, unknown>;
    expect(await listAttachments(h.services.db, String(sessionId.session_id))).toEqual([]);
    // Control: the same skill on the dialog layer is materialised.
    const direct = await h.run('url_result', { input: { url: `${base}/direct.png` }, workspace: join(h.dataDir, 'ws-direct') });
    expect(hits).toEqual(['/direct.png']);
    expect(direct.artifacts).toHaveLength(1);
  });

  it('R-CALL-14, R-ART-12: an oversized callee result comes back whole, not offloaded, and no offload file is written', async () => {
    const ws = join(h.dataDir, 'ws-callee-big');
    const env = await h.run('call_summary', { input: { target: 'big_result', input: { n: 400 } }, workspace: ws });
    expect(env).toMatchObject({ success: true, child_success: true, offloaded: null, rows: 400 });
    expect(env.keys).not.toContain('offloaded');
    expect(env.offloaded).toBeNull();
    expect(existsSync(join(ws, '.offload'))).toBe(false);
    // Control: the same result on the dialog layer is offloaded.
    const direct = await h.run('big_result', { input: { n: 400 }, workspace: ws });
    expect(direct.offloaded).toBe(true);
  });
});
