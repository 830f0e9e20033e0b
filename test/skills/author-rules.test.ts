/**
 * The [SKILL-AUTHOR] rules (the checklist of docs/skill-authoring.md) held by our own built-in
 * skills (`skills/**`, examples included): loaded through the registry, pre-checked by preflight,
 * inspected by the handler inspector, run in process, as subprocesses, and against a database.
 * Source scans cover the skill folders (the code a skill author writes); the thin built-ins'
 * implementation in src/datatable, src/orchestration and src/lifecycle/chat-tools.ts is
 * scanned where the rule is about behaviour the built-in returns (R-OUT-12).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_SKILLS_DIR, EXAMPLE_SKILLS_DIR } from '../../src/config/settings.ts';
import { offloadIfLarge, OFFLOAD_DIR } from '../../src/envelope/offload.ts';
import { buildArgv, childEnv } from '../../src/executor/index.ts';
import { commandFor, SUBPROCESS_TYPES } from '../../src/executor/subprocess.ts';
import { AUTHORING_CTX_KEY } from '../../src/lifecycle/authoring.ts';
import { MESSAGING_CTX_KEY } from '../../src/orchestration/messaging.ts';
import { discoverSkills, SECRET_SUBSTRINGS, type Registry } from '../../src/registry/index.ts';
import { inspectHandler } from '../../src/registry/inspect/index.ts';
import { preflight } from '../../src/registry/preflight.ts';
import type { JsonSchema, SkillRecord } from '../../src/registry/types.ts';
import { imageOf } from '../../skills/repair_ticket/context.ts';
import { execute as repairTicket } from '../../skills/repair_ticket/handler.ts';
import { rowsEnv, type RowsEnv } from '../datatable/rows-env.ts';
import { makeCtx } from '../executor/exec-helpers.ts';
import { describeEachEngine } from '../helpers/db.ts';

const ROOT = join(BUILTIN_SKILLS_DIR, '..');
const CODE_EXT = new Set(['.ts', '.js', '.mjs', '.py', '.sh']);

/** Every code file under `dir` (recursively), with its text. */
function codeFiles(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...codeFiles(p));
    else if (CODE_EXT.has(extname(e.name))) out.push({ path: relative(ROOT, p), text: readFileSync(p, 'utf8') });
  }
  return out;
}

/** The skill folders' code (what the [SKILL-AUTHOR] rules bind). */
const SKILL_CODE = codeFiles(BUILTIN_SKILLS_DIR);

/** Lines of `files` matching `re`, as `path:line: text` (the failure message names them). */
function hits(files: { path: string; text: string }[], re: RegExp): string[] {
  const out: string[] = [];
  for (const f of files)
    for (const [i, line] of f.text.split('\n').entries()) if (re.test(line)) out.push(`${f.path}:${i + 1}: ${line.trim()}`);
  return out;
}

let registry: Registry;
let builtins: SkillRecord[];
beforeAll(async () => {
  registry = await discoverSkills([
    { dir: BUILTIN_SKILLS_DIR, source: 'builtin' },
    { dir: EXAMPLE_SKILLS_DIR, source: 'builtin' },
  ]);
  builtins = registry.all();
});

function skill(name: string): SkillRecord {
  const s = registry.get(name);
  if (!s) throw new Error(`built-in ${name} not found`);
  return s;
}

/** The `execute` of an in-process built-in, imported from its entry file. */
async function entryOf(
  name: string,
): Promise<(input: Record<string, unknown>, ctx: Record<string, unknown>) => Promise<Record<string, unknown>>> {
  const mod = (await import(skill(name).entryFile!)) as { execute: never };
  return mod.execute;
}

/** Run a subprocess built-in exactly as the executor starts it; raw stdout and stderr. */
async function runChild(
  rec: SkillRecord,
  input: Record<string, unknown>,
  ws: string,
): Promise<{ stdout: string; stderr: string; code: number }> {
  const cmd = await commandFor(rec, buildArgv(input));
  if (!cmd) throw new Error(`${rec.name}: no command`);
  const env = childEnv(process.env, { input, ctx: makeCtx(ws) });
  return new Promise((resolve) => {
    execFile(cmd.file, cmd.args, { cwd: rec.dir, env, encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ stdout, stderr, code: err ? Number((err as { code?: unknown }).code ?? 1) : 0 });
    });
  });
}

describe('the built-ins load', () => {
  it('every built-in and example is discovered and loads ok', () => {
    const names = builtins.map((s) => s.name);
    for (const n of [
      'help',
      'datatable',
      'nocodb',
      'notify',
      'send_message',
      'await_reply',
      'repair_ticket',
      'create_skill',
      'edit_skill',
      'countdown',
      'file_info',
      'hello_py',
      'word_count',
      'clock_sh',
      'gateway_health',
    ]) {
      expect(names).toContain(n);
    }
    expect(builtins.filter((s) => s.status !== 'ok').map((s) => s.name)).toEqual([]);
  });
});

describe('R-ENTRY-08: exactly `async execute(input_data, runtime_context)`', () => {
  it('R-ENTRY-08 every in-process / Python handler declares async execute(input_data, runtime_context) and passes preflight R-PRE-04 (create mode)', async () => {
    const handlers = builtins.filter((s) => s.execType === 'IN_PROCESS' || s.execType === 'PYTHON_BRIDGE');
    expect(handlers.length).toBeGreaterThanOrEqual(12);
    for (const s of handlers) {
      const inspected = await inspectHandler(s.entryFile!);
      expect(inspected.parsed, s.name).toBe(true);
      expect(
        inspected.entries.map((e) => e.name),
        s.name,
      ).toEqual(['execute']);
      expect(inspected.entry, s.name).toMatchObject({
        name: 'execute',
        isAsync: true,
        params: [
          { name: 'input_data', hasDefault: false, rest: false },
          { name: 'runtime_context', hasDefault: false, rest: false },
        ],
      });
      expect(inspected.isCli, s.name).toBe(false);
    }
    for (const s of builtins) {
      const issues = await preflight(s.dir, { mode: 'create' });
      expect(
        issues.filter((i) => i.severity !== 'notice'),
        s.name,
      ).toEqual([]);
    }
  });
});

describe('R-LOAD-18: requires.env / requires.bins declared', () => {
  it('R-LOAD-18 built-ins that need configuration or programs declare them in the frontmatter', () => {
    const env = (n: string) =>
      skill(n)
        .frontmatter.requires.env.filter((e) => e.required)
        .map((e) => e.name);
    const bins = (n: string) => skill(n).frontmatter.requires.bins;
    expect(env('notify')).toEqual(['APPRISE_API_URL']); // the gateway registers the Apprise adapter from it
    expect(env('gateway_health')).toEqual(['PORT']); // ${PORT} in request.toml
    expect(bins('hello_py')).toEqual(['python3']); // the Python bridge
    expect(bins('clock_sh')).toEqual(['date', 'cut']); // clock.sh
    // every ${VAR} / $VAR an HTTP request file substitutes is declared
    for (const s of builtins.filter((b) => b.execType === 'HTTP')) {
      const request = readFileSync(s.exec!.config!, 'utf8').replace(/^\s*#.*$/gm, '');
      const used = [...request.matchAll(/\$\{?([A-Z][A-Z0-9_]*)\}?/g)].map((m) => m[1]);
      expect(used.length, s.name).toBeGreaterThan(0);
      for (const v of used) expect(env(s.name), `${s.name} uses $${v}`).toContain(v);
    }
    // every program a shell built-in runs (first word of each command line) is declared or a shell builtin
    for (const s of builtins.filter((b) => b.execType === 'SHELL')) {
      const script = readFileSync(s.exec!.config!, 'utf8');
      const programs = [...script.matchAll(/\$\((\w+)/g)].map((m) => m[1]);
      for (const p of programs) expect(bins(s.name), `${s.name} runs ${p}`).toContain(p);
    }
  });
});

describe('R-SCH-06: descriptions and required', () => {
  /** Every property path of a schema (nested `properties` and `items.properties` too) lacking a description. */
  function undescribed(schema: JsonSchema, at = ''): string[] {
    const out: string[] = [];
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [k, v] of Object.entries(props)) {
      const path = `${at}${k}`;
      if (typeof v.description !== 'string' || v.description.trim() === '') out.push(path);
      if (v.properties) out.push(...undescribed(v, `${path}.`));
      const items = v.items as JsonSchema | undefined;
      if (items && typeof items === 'object' && items.properties) out.push(...undescribed(items, `${path}[].`));
    }
    return out;
  }

  it('R-SCH-06 every property of every built-in schema (nested and sub-command ones too) has a description; required names declared properties', () => {
    for (const s of builtins) {
      expect(undescribed(s.inputSchema), s.name).toEqual([]);
      for (const [sub, schema] of Object.entries(s.subcommands ?? {})) expect(undescribed(schema), `${s.name}__${sub}`).toEqual([]);
      const required = (s.inputSchema.required ?? []) as string[];
      for (const r of required) expect(Object.keys(s.inputSchema.properties as object), s.name).toContain(r);
    }
  });

  /** A complete input per built-in with `required`, and the context its handler needs to reach the checks. */
  const fakeMessaging = { outbox: {}, adapterFor: () => ({}), db: {} };
  const CASES: Record<string, { input: Record<string, unknown>; ctx: Record<string, unknown> }> = {
    file_info: { input: { file: '/nonexistent/x.txt' }, ctx: {} },
    countdown: { input: { seconds: 1 }, ctx: {} },
    notify: { input: { message: 'm', target: 'ops' }, ctx: { [MESSAGING_CTX_KEY]: fakeMessaging } },
    send_message: { input: { to: 'web:a', message: 'm' }, ctx: { [MESSAGING_CTX_KEY]: fakeMessaging } },
    await_reply: { input: { to: 'web:a', skill: 'help' }, ctx: { [MESSAGING_CTX_KEY]: fakeMessaging } },
    create_skill: {
      input: { name: 'x', full_files: {} },
      ctx: { role_id: 'default', [AUTHORING_CTX_KEY]: { dataDir: '/nonexistent', registry: () => registry } },
    },
    edit_skill: {
      input: { name: 'x', full_files: {} },
      ctx: { role_id: 'default', [AUTHORING_CTX_KEY]: { dataDir: '/nonexistent', registry: () => registry } },
    },
    word_count: { input: { text: 'a' }, ctx: {} },
  };

  it('R-SCH-06 `required` matches what each handler checks: without any one required field the handler itself refuses with need_param naming it', async () => {
    const withRequired = builtins
      .filter((s) => ((s.inputSchema.required ?? []) as string[]).length > 0)
      .map((s) => s.name)
      .sort();
    expect(withRequired).toEqual(Object.keys(CASES).sort());
    const ws = mkdtempSync(join(tmpdir(), 'authorlint-req-'));
    for (const [name, c] of Object.entries(CASES)) {
      const rec = skill(name);
      for (const field of rec.inputSchema.required as string[]) {
        const input = { ...c.input };
        delete input[field];
        let out: Record<string, unknown>;
        if (rec.execType === 'IN_PROCESS') out = await (await entryOf(name))(input, { workspace_dir: ws, ...c.ctx });
        else {
          const r = await runChild(rec, input, ws);
          expect(r.code, name).toBe(0);
          out = JSON.parse(r.stdout) as Record<string, unknown>;
        }
        expect(out.success === false || out.ok === false, `${name} without ${field}: ${JSON.stringify(out)}`).toBe(true);
        expect(out, `${name} without ${field}`).toMatchObject({ need_param: field, error_type: 'recoverable' });
        expect(String(out.error ?? '')).not.toBe('');
      }
    }
  });
});

describe('R-SUB-08: subprocess built-ins print only the final JSON on stdout', () => {
  it('R-SUB-08 each subprocess built-in writes exactly one JSON value on stdout and its logs on stderr', async () => {
    const subs = builtins.filter((s) => (SUBPROCESS_TYPES as readonly string[]).includes(s.execType ?? ''));
    expect(subs.map((s) => s.name).sort()).toEqual(['clock_sh', 'word_count']);
    const ws = mkdtempSync(join(tmpdir(), 'authorlint-sub-'));
    const inputs: Record<string, Record<string, unknown>[]> = { clock_sh: [{}], word_count: [{ text: '今天 天气 很好' }, {}] };
    for (const s of subs) {
      for (const input of inputs[s.name]!) {
        const r = await runChild(s, input, ws);
        expect(r.code, s.name).toBe(0);
        const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
        expect(lines, `${s.name} stdout: ${r.stdout}`).toHaveLength(1);
        const value = JSON.parse(r.stdout) as unknown;
        expect(typeof value === 'object' && value !== null && !Array.isArray(value), s.name).toBe(true);
        expect(r.stderr, `${s.name} logs go to stderr`).toContain(`${s.name}:`);
      }
    }
  });
});

describe('R-CFG-11: non-credential constant names avoid the six substrings', () => {
  /** UPPER_CASE constants declared in TS/JS/Python/shell code. */
  function constants(files: { path: string; text: string }[]): { file: string; name: string }[] {
    const out: { file: string; name: string }[] = [];
    const re = /(?:\b(?:const|let|var)\s+|^)([A-Z][A-Z0-9_]*)\s*(?::[^=\n]+)?=/gm;
    for (const f of files) for (const m of f.text.matchAll(re)) out.push({ file: f.path, name: m[1]! });
    return out;
  }
  const credential = (name: string) => SECRET_SUBSTRINGS.some((s) => name.toLowerCase().includes(s));

  it('R-CFG-11 a substring (not suffix) scan of every constant in the built-in skills finds no credential word; the scan itself catches PARAM_KEYS / KEYWORD_RE', () => {
    expect([...SECRET_SUBSTRINGS].sort()).toEqual(['auth', 'credential', 'key', 'password', 'secret', 'token']);
    const all = constants(SKILL_CODE);
    expect(all.map((c) => c.name)).toContain('ACTION_ALIASES'); // the scan sees the constants
    expect(all.filter((c) => credential(c.name))).toEqual([]);
    const probe = constants([
      { path: 'probe.ts', text: 'export const PARAM_KEYS = [];\nconst KEYWORD_RE: RegExp = /x/;\nAUTH_HEADERS = {}\n' },
    ]);
    expect(probe.filter((c) => credential(c.name)).map((c) => c.name)).toEqual(['PARAM_KEYS', 'KEYWORD_RE', 'AUTH_HEADERS']);
  });

  it('R-CFG-11 no built-in input property is taken for a credential: the two idempotency keys opt out with x-secret false', () => {
    for (const s of builtins) expect(s.secretParams, s.name).toEqual([]);
    const props = (n: string) => skill(n).inputSchema.properties as Record<string, JsonSchema>;
    for (const n of ['notify', 'send_message']) expect(props(n).idempotency_key!['x-secret']).toBe(false);
  });
});

describe('R-ADM-04, R-CTX-12: identity keys', () => {
  /** Lines that branch on actor_title / actor_department(_path): a comparison, a condition or a membership test. */
  function branchesOnRank(files: { path: string; text: string }[]): string[] {
    return hits(files, /actor_(title|department)/).filter((l) =>
      /\bif\b|\?|===?|!==?|[<>]=?|\bin\b|includes\(|startsWith|startswith|switch|case\b|\bnot\b|&&|\|\||\band\b/.test(
        l.replace(/^[^:]+:\d+: /, '').replace(/\bor\s+"（未知）"/, ''),
      ),
    );
  }

  it('R-ADM-04 no built-in branches on actor_title / actor_department (so none can treat an empty or proxy-filled value as the lowest tier); the scan catches such a branch', () => {
    expect(branchesOnRank(SKILL_CODE)).toEqual([]);
    // the only reader shows the path as a fact, 「（未知）」 when empty (admin proxy-fill clears it)
    expect(hits(SKILL_CODE, /actor_(title|department)/).map((l) => l.split(':')[0])).toEqual(['skills/examples/hello_py/handler.py']);
    const probe = [
      { path: 'a.py', text: 'if ctx.get("actor_title") == "经理":\n    limit = 5000' },
      { path: 'b.ts', text: 'const tier = ctx.actor_department === "" ? 0 : 1;' },
      { path: 'c.ts', text: 'if (ctx.actor_department_path.includes("/销售中心/")) ok();' },
    ];
    expect(branchesOnRank(probe)).toHaveLength(3);
  });

  it('R-CTX-12 built-ins read attachments[].type, never att_type, and never compare actor_name (no real-name checks)', () => {
    expect(hits(SKILL_CODE, /att_type/)).toEqual([]);
    expect(hits(SKILL_CODE, /actor_name\W*\s*(===?|!==?|\.includes|\.startsWith)|(===?|!==?)\s*[\w.?[\]'"]*actor_name/)).toEqual([]);
    const photo = mkdtempSync(join(tmpdir(), 'authorlint-att-'));
    const a = join(photo, 'a.jpg');
    const b = join(photo, 'b.jpg');
    writeFileSync(a, 'a');
    writeFileSync(b, 'b');
    // the newest item has only the legacy att_type: it is not an image for the skill
    expect(
      imageOf([
        { type: 'image', local_path: a },
        { att_type: 'image', type: 'file', local_path: b } as { type: string; local_path: string },
      ]),
    ).toBe(a);
    expect(imageOf([{ att_type: 'image', local_path: b } as { local_path: string }])).toBe('');
  });
});

describe('R-ART-13, R-DT-105, R-OUT-12: source scans', () => {
  it('R-ART-13 no built-in skill code builds a download link or a domain (URL literals, /files/ paths, public base URL, download_url / abs_url)', () => {
    expect(hits(SKILL_CODE, /https?:\/\/|\/files\/|PUBLIC_URL|public_url|download_url|abs_url/)).toEqual([]);
  });

  it('R-DT-105 business tables are reached only through datatable: no skill other than the datatable entry (datatable, nocodb) touches org_data_*, db / db_factory or a database driver', () => {
    const others = SKILL_CODE.filter((f) => !/^skills\/(datatable|nocodb)\//.test(f.path));
    expect(
      hits(
        others,
        /org_data_|db_factory|\bctx\.db\b|runtime_context\.db\b|\[['"]db['"]\]|from ['"](pg|@electric-sql\/pglite)['"]|src\/store\//,
      ),
    ).toEqual([]);
    expect(readFileSync(join(BUILTIN_SKILLS_DIR, 'repair_ticket', 'tables.ts'), 'utf8')).toContain("call('datatable'");
  });

  /** The span of the innermost bracket pair around `at`, and of the one around it. */
  function enclosing(text: string, at: number): string[] {
    const spans: string[] = [];
    let start = at;
    for (let level = 0; level < 2; level++) {
      let depth = 0;
      let i = start - 1;
      for (; i >= 0; i--) {
        const ch = text[i]!;
        if (ch === '}' || ch === ')') depth++;
        else if (ch === '{' || ch === '(') {
          if (depth === 0) break;
          depth--;
        }
      }
      if (i < 0) break;
      let d = 0;
      let j = i;
      for (; j < text.length; j++) {
        const ch = text[j]!;
        if (ch === '{' || ch === '(') d++;
        else if (ch === '}' || ch === ')') {
          d--;
          if (d === 0) break;
        }
      }
      spans.push(text.slice(Math.max(0, i - 40), j + 1));
      start = i;
    }
    return spans;
  }

  it('R-OUT-12 non_retriable is set only on config paths (missing deployment pieces, authorisation): in the skills and in the modules the thin built-ins delegate to', () => {
    const impl = [
      ...codeFiles(join(ROOT, 'src', 'datatable')),
      ...codeFiles(join(ROOT, 'src', 'orchestration')),
      ...codeFiles(join(ROOT, 'src', 'lifecycle')).filter((f) => f.path.endsWith('chat-tools.ts')),
    ];
    let seen = 0;
    const bad: string[] = [];
    for (const f of [...SKILL_CODE, ...impl]) {
      for (const m of f.text.matchAll(/non_retriable:\s*true/g)) {
        const line = f.text.slice(f.text.lastIndexOf('\n', m.index!) + 1, m.index!).trim();
        if (line.startsWith('*') || line.startsWith('//')) continue; // documentation
        seen++;
        const [inner, outer] = enclosing(f.text, m.index!);
        const config = /error_type:\s*'config'/.test(inner ?? '') || /\w+\(\s*'config'/.test(outer ?? '');
        if (!config) bad.push(`${f.path}: ${(inner ?? '').replace(/\s+/g, ' ').slice(0, 160)}`);
      }
    }
    expect(seen).toBeGreaterThanOrEqual(10);
    expect(bad).toEqual([]);
  });

  it('R-OUT-12 at run time: off the gateway is config + non_retriable; a missing field or a failed table call is not non_retriable', async () => {
    const off = await (await entryOf('await_reply'))({ to: 'web:a', skill: 'help' }, {});
    expect(off).toMatchObject({ ok: false, error_type: 'config', non_retriable: true });
    const missing = await (await entryOf('await_reply'))({ skill: 'help' }, {});
    expect(missing.non_retriable).toBeUndefined();
    expect(await repairTicket({ action: '查询' }, {})).toMatchObject({ success: false, error_type: 'config', non_retriable: true });
    const busy = await repairTicket(
      { action: '查询' },
      { call_skill: async () => ({ success: false, error: 'connection lost', error_type: 'transient' }) },
    );
    expect(busy).toMatchObject({ success: false, error_type: 'transient' });
    expect(busy.non_retriable).toBeUndefined();
  });
});

describe('R-DISP-07: complete answers are display_only', () => {
  it('R-DISP-07 help returns its list as display_only with display_md', async () => {
    const out = await (await entryOf('help'))({}, { role_id: 'default' });
    expect(out.display_only).toBe(true);
    expect(String(out.display_md)).toContain('datatable');
    expect(out.skills).toEqual(expect.arrayContaining(['help', 'datatable', 'repair_ticket']));
    expect(JSON.stringify(out)).not.toMatch(/https?:\/\//); // R-ART-13
  });
});

describe('R-FILE-10: the received path is used as given', () => {
  it('R-FILE-10 file_info reads an absolute workspace path directly (a re-join with workspace_dir would miss it)', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'authorlint-file-'));
    mkdirSync(join(ws, 'uploads', 'u1'), { recursive: true });
    const file = join(ws, 'uploads', 'u1', 'notes.txt');
    writeFileSync(file, 'line one\nline two\n');
    const other = mkdtempSync(join(tmpdir(), 'authorlint-elsewhere-'));
    const out = await (await entryOf('file_info'))({ file }, { workspace_dir: other, actor_name: 'Tester' });
    expect(out).toMatchObject({ filename: 'notes.txt', size_bytes: 18, first_lines: ['line one', 'line two', ''] });
    expect(JSON.stringify(out)).not.toMatch(/https?:\/\//); // R-ART-13
  });
});

/** A recording call_skill over an in-memory 工单 / 维修工 pair (the datatable answers repair_ticket reads). */
function fakeDatatable() {
  const tickets: Record<string, unknown>[] = [];
  const worker = { id: 1, 姓名: '李四', 工号: 'E2001', 联系方式: 'telegram:777', 值班: true };
  const calls: { name: string; input: Record<string, unknown> }[] = [];
  const call = async (name: string, input: Record<string, unknown>): Promise<Record<string, unknown>> => {
    calls.push({ name, input });
    if (name === 'datatable') {
      const p = input.payload as Record<string, unknown>;
      if (input.action === 'list_tables') return { success: true, result: [{ title: '工单' }, { title: '维修工' }] };
      if (input.action === 'query') return { success: true, list: p.table_name === '维修工' ? [worker] : tickets };
      if (input.action === 'insert') {
        const rec = { id: 7, ...(p.data as object) };
        tickets.push(rec);
        return { success: true, record: rec };
      }
      if (input.action === 'update') return { success: true, record: Object.assign(tickets.find((t) => t.id === p.row_id)!, p.data) };
    }
    if (name === 'send_message') return { ok: true, sent: 1, total: 1 };
    if (name === 'notify') return { ok: true, sent: true, status: 'sent' };
    return { success: false, error: `unexpected ${name}` };
  };
  return { call, calls, tickets };
}

describe('R-ID-03, R-ART-14, R-DT-105: a repair report', () => {
  it('R-ID-03 R-DT-105 R-ART-14 recipients come from the tables (never actor_*), tables only through datatable, the photo copy lands in a sub-directory (no new file in the workspace root)', async () => {
    const data = mkdtempSync(join(tmpdir(), 'authorlint-rt-'));
    const ws = join(data, 'workspaces', 'default', 's1');
    mkdirSync(join(ws, 'uploads'), { recursive: true });
    const photo = join(ws, 'uploads', 'pump.jpg');
    writeFileSync(photo, 'jpg');
    const rootBefore = readdirSync(ws).filter((n) => statSync(join(ws, n)).isFile());
    const h = fakeDatatable();
    const waits: Record<string, unknown>[] = [];
    const trap = () => {
      throw new Error('a skill opened the database itself');
    };
    const ctx = {
      ...makeCtx(ws, {
        actor_name: '张三',
        actor_key: 'web:decoy_actor_key',
        actor_id: 'decoy_actor_id',
        actor_phone: '13800000000',
        actor_email: 'decoy@example.invalid',
        attachments: [{ type: 'image', filename: 'pump.jpg', local_path: photo }],
        request: { channel: 'feishu', account: 'default', actor: { id: 'ou_reporter' }, attachments: [{}] },
      }),
      call_skill: h.call,
      await_reply: async (req: Record<string, unknown>) => (waits.push(req), { ok: true, id: '1' }),
      db: { query: trap },
      db_factory: trap,
    };
    const out = await repairTicket({ action: '报修', 描述: '3号泵漏水', 位置: '泵房' }, ctx);
    expect(out).toMatchObject({ success: true, display_only: true });
    // R-ID-03: the worker's address from the 维修工 row; the reporter's origin stored on the ticket
    const recipients = h.calls.filter((c) => c.name === 'send_message').map((c) => c.input.to);
    expect(recipients).toEqual(['telegram:777']);
    expect(waits.map((w) => w.to)).toEqual(['telegram:777']);
    expect(JSON.stringify(h.calls.map((c) => c.input.to ?? null))).not.toContain('decoy');
    expect(h.tickets[0]).toMatchObject({ origin_channel: 'feishu', origin_openid: 'ou_reporter' });
    // R-DT-105: every table access went through call_skill('datatable')
    expect(new Set(h.calls.filter((c) => c.name !== 'send_message' && c.name !== 'notify').map((c) => c.name))).toEqual(
      new Set(['datatable']),
    );
    // R-ART-14: kept file under repair_ticket/T-7/, nothing new at the root
    expect(existsSync(join(ws, 'repair_ticket', 'T-7', '报修照片.jpg'))).toBe(true);
    expect(readdirSync(ws).filter((n) => statSync(join(ws, n)).isFile())).toEqual(rootBefore);
    expect(JSON.stringify(out)).not.toMatch(/https?:\/\//); // R-ART-13
  });

  it('R-ART-14 no built-in creates import files for insert_from_file (none has intermediate files to clean up)', () => {
    expect(
      hits(
        SKILL_CODE.filter((f) => !/^skills\/(datatable|nocodb)\//.test(f.path)),
        /insert_from_file|_import_/,
      ),
    ).toEqual([]);
  });
});

describeEachEngine('datatable as a built-in: import files and large results', (db) => {
  let t: RowsEnv;
  let id: string;
  beforeAll(async () => {
    t = await rowsEnv(db());
    id = await t.table('台账', [{ title: '名称', uidt: '文本', required: true }]);
  });

  it("R-ART-14 the caller's import file in a workspace sub-directory is left to the caller: untouched on success, kept and named (relative) on failure", async () => {
    mkdirSync(join(t.ws, 'imports'), { recursive: true });
    const good = join(t.ws, 'imports', 'ok.json');
    writeFileSync(good, JSON.stringify([{ 名称: 'a' }, { 名称: 'b' }]));
    expect(await t.call({ action: 'insert_from_file', payload: { table_id: id, file: 'imports/ok.json' } })).toMatchObject({
      success: true,
      inserted: 2,
    });
    expect(existsSync(good)).toBe(true);
    const bad = join(t.ws, 'imports', 'bad.json');
    writeFileSync(bad, '[{"名称": ');
    const failed = await t.call({ action: 'insert_from_file', payload: { table_id: id, file: 'imports/bad.json' } });
    expect(failed.success).toBe(false);
    expect(existsSync(bad)).toBe(true);
    expect(JSON.stringify(failed)).not.toContain(t.ws);
    expect(readdirSync(t.ws).filter((n) => statSync(join(t.ws, n)).isFile())).toEqual([]);
  });

  it('R-OFF-06 a large query keeps its status and the row count at the top level of the offload receipt', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ 名称: `设备-${String(i).padStart(3, '0')}` }));
    mkdirSync(join(t.ws, 'imports'), { recursive: true });
    writeFileSync(join(t.ws, 'imports', 'many.json'), JSON.stringify(rows));
    expect(await t.call({ action: 'insert_from_file', payload: { table_id: id, file: 'imports/many.json' } })).toMatchObject({
      success: true,
      inserted: 300,
    });
    const result = await t.call({ action: 'query', payload: { table_id: id, limit: 302 } });
    expect(result).toMatchObject({ success: true });
    expect((result.list as unknown[]).length).toBe(302);
    const receipt = await offloadIfLarge(result, { skill: 'datatable', workspaceDir: t.ws });
    expect(receipt).toMatchObject({ offloaded: true, success: true, counts: { list: 302 } });
    expect(receipt.list).toBeUndefined();
    expect(receipt.fields).toEqual(expect.arrayContaining(['success', 'list', 'pageInfo']));
    expect(String(receipt.offload_path)).toContain(join(t.ws, OFFLOAD_DIR));
    expect(JSON.parse(readFileSync(String(receipt.offload_path), 'utf8')).pageInfo).toMatchObject({ totalRows: 302 });
  });
});
