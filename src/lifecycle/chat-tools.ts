/**
 * The platform tools `create_skill` and `edit_skill`
 * (R-PRE-06..09): the bodies of the built-in skills `skills/create_skill/` and
 * `skills/edit_skill/`, reachable from both planners and the console.
 *
 * - The role is the caller's `runtime_context.role_id`, never a parameter (R-PRE-09).
 * - Input: `{name, full_files: {<relative path>: <full UTF-8 content>}}`; edit also accepts
 *   `null` to remove a file. create writes only SKILL.md, the handler and skill.toml and lists
 *   the rest as ignored (R-PRE-08); edit may also write schema.json and `references/…`.
 * - The checks are {@link createRoleSkill} / {@link editRoleSkill}: preflight in create mode
 *   blocks on every error, not on "will default" notices (R-PRE-06); a critical danger-scan
 *   finding blocks with the rule id, file and line (R-PRE-07).
 * - After a write the live skill set is reloaded (`AuthoringServices.reload`), so the skill is
 *   callable in the next turn; the result says what was written, the notices and warnings,
 *   and how to call it (`/name …`).
 *
 * Results are envelopes (docs/results.md): a refusal is `success:false` with `error`,
 * `error_type: "recoverable"`, a zh-CN (or English) `user_message` and the `refusal` code.
 * Never throws.
 */
import { langOf } from '../orchestration/messaging.ts';
import type { SkillIssue } from '../registry/types.ts';
import { exampleCommand } from '../turn/planners/command-help.ts';
import { authoringOf, type AuthoringServices } from './authoring.ts';
import type { DangerFinding } from './danger-scan.ts';
import { createRoleSkill, editRoleSkill, type SkillEditResult } from './skill-edit.ts';
import type { ReloadReport } from './types.ts';

type Lang = 'zh-CN' | 'en';

const T = {
  'zh-CN': {
    unavailable: '此处不能新建或修改技能（没有平台服务）。',
    no_role: '缺少当前角色（runtime_context.role_id），不能新建或修改技能。',
    no_name: '缺少 name：技能名，须匹配 ^[a-z0-9][a-z0-9_-]*$，并与 SKILL.md 的 name 一致。',
    no_files: '缺少 full_files：{"相对路径": "完整文件内容"}，如 {"SKILL.md": "…", "handler.ts": "…"}。',
    created: (n: string) => `已新建技能「${n}」。`,
    edited: (n: string) => `已修改技能「${n}」。`,
    written: (l: string) => `写入：${l}`,
    removed: (l: string) => `删除：${l}`,
    ignored: (l: string) =>
      `未写入（create_skill 只写 SKILL.md、handler 与 skill.toml，其余文件请随后用 edit_skill 的 full_files 补）：${l}`,
    notices: '提示：',
    warnings: '代码扫描提醒：',
    call: (c: string) => `现在就可以调用：\`${c}\``,
    not_live: '技能文件已写入，但这个进程没有热加载：重启后生效。',
    reload_failed: (why: string) => `技能文件已写入，但重新加载失败：${why}`,
    kept_old: (why: string) => `新版本加载失败，仍在使用上一个可用版本：${why}`,
    broken: (why: string) => `技能已写入但无法加载：${why}`,
    not_registered: '技能文件已写入，但重新加载后没有注册（可能与其他来源的技能重名），暂时不能调用。',
    sep: '、',
  },
  en: {
    unavailable: 'Skills cannot be created or edited here (no platform services).',
    no_role: 'The current role (runtime_context.role_id) is missing; skills cannot be created or edited.',
    no_name: 'name is missing: the skill name, matching ^[a-z0-9][a-z0-9_-]*$ and equal to the name in SKILL.md.',
    no_files: 'full_files is missing: {"relative path": "full file content"}, e.g. {"SKILL.md": "…", "handler.ts": "…"}.',
    created: (n: string) => `Skill "${n}" created.`,
    edited: (n: string) => `Skill "${n}" edited.`,
    written: (l: string) => `Written: ${l}`,
    removed: (l: string) => `Removed: ${l}`,
    ignored: (l: string) =>
      `Not written (create_skill writes only SKILL.md, the handler and skill.toml; add the rest later with edit_skill full_files): ${l}`,
    notices: 'Notices:',
    warnings: 'Code scan warnings:',
    call: (c: string) => `Call it now: \`${c}\``,
    not_live: 'The files are written but this process does not reload skills: they take effect after a restart.',
    reload_failed: (why: string) => `The files are written but the reload failed: ${why}`,
    kept_old: (why: string) => `The new version did not load; the last good version keeps serving: ${why}`,
    broken: (why: string) => `The skill is written but does not load: ${why}`,
    not_registered:
      'The files are written but the reload did not register the skill (a name clash with another source?); it cannot be called yet.',
    sep: ', ',
  },
} as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function refused(message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { success: false, error: message, error_type: 'recoverable', user_message: message, ...extra };
}

function issueLine(p: SkillIssue): string {
  return `${p.severity}: ${p.message}`;
}

function findingLine(f: DangerFinding, lang: Lang): string {
  return `${f.file}:${f.line} [${f.rule}] ${f.severity}: ${f.message[lang]}`;
}

/** Outcome of the reload after a write, for the result. */
interface LiveState {
  live: boolean;
  note?: string;
}

async function makeLive(svc: AuthoringServices, name: string, op: 'create' | 'edit', lang: Lang): Promise<LiveState> {
  if (!svc.reload) return { live: false, note: T[lang].not_live };
  let report: ReloadReport | void;
  try {
    report = await svc.reload(`${op}_skill ${name}`);
  } catch (err) {
    return { live: false, note: T[lang].reload_failed((err as Error).message) };
  }
  const kept = report?.keptLastGood.find((k) => k.skill === name);
  const why = (issues: readonly SkillIssue[]): string =>
    issues
      .filter((i) => i.severity === 'error')
      .map((i) => i.message)
      .join('; ') || '?';
  if (kept) return { live: false, note: T[lang].kept_old(why(kept.issues)) };
  const rec = svc.registry().get(name);
  if (!rec) return { live: false, note: T[lang].not_registered };
  if (rec.status === 'broken') return { live: false, note: T[lang].broken(why(rec.issues)) };
  return { live: true };
}

/** `/name …` for the written skill (its first tool), or `/name` when the registry does not list it yet. */
function callExample(svc: AuthoringServices, name: string): string {
  const tools = svc.registry().tools({ skills: [name] });
  const tool = tools.find((t) => t.function.name === name) ?? tools[0];
  return tool ? exampleCommand(tool) : `/${name}`;
}

function successMessage(r: SkillEditResult, lang: Lang, live: LiveState, call: string): string {
  const t = T[lang];
  const lines: string[] = [r.op === 'create' ? t.created(r.skill) : t.edited(r.skill)];
  if (r.written.length) lines.push(t.written(r.written.join(t.sep)));
  if (r.removed.length) lines.push(t.removed(r.removed.join(t.sep)));
  if (r.ignored.length) lines.push(t.ignored(r.ignored.join(t.sep)));
  const notices = r.problems.filter((p) => p.severity !== 'error');
  if (notices.length) lines.push([t.notices, ...notices.map((p) => `- ${issueLine(p)}`)].join('\n'));
  const warnings = r.findings.filter((f) => f.severity !== 'critical');
  if (warnings.length) lines.push([t.warnings, ...warnings.map((f) => `- ${findingLine(f, lang)}`)].join('\n'));
  if (live.note) lines.push(live.note);
  if (live.live) lines.push(t.call(call));
  return lines.join('\n\n');
}

/** The shared body of both tools. */
async function run(op: 'create' | 'edit', input: Record<string, unknown>, ctx: Record<string, unknown>): Promise<Record<string, unknown>> {
  const lang = langOf(input, ctx);
  const t = T[lang];
  const svc = authoringOf(ctx);
  if (!svc) return refused(t.unavailable, { error_type: 'config', non_retriable: true });
  const roleId = typeof ctx.role_id === 'string' ? ctx.role_id : '';
  if (roleId === '') return refused(t.no_role, { error_type: 'config', non_retriable: true });
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name === '') return refused(t.no_name, { need_param: 'name' });
  if (!isRecord(input.full_files)) return refused(t.no_files, { need_param: 'full_files' });
  const scope = { dataDir: svc.dataDir, roleId, name, registry: svc.registry() };
  const files = input.full_files as Record<string, string | null>;
  const r =
    op === 'create'
      ? await createRoleSkill({ ...scope, files: files as Record<string, string> })
      : await editRoleSkill({ ...scope, files });
  const details = {
    skill: r.skill,
    op,
    written: r.written,
    removed: r.removed,
    ignored: r.ignored,
    problems: r.problems.map(issueLine),
    findings: r.findings.map((f) => findingLine(f, lang)),
  };
  if (!r.ok) {
    const msg = r.refusal?.message[lang] ?? r.refusal?.message['zh-CN'] ?? '';
    return refused(msg, { refusal: r.refusal?.code, ...details, written: [], removed: [] });
  }
  const live = await makeLive(svc, r.skill, op, lang);
  const call = callExample(svc, r.skill);
  return { success: true, ...details, live: live.live, call, user_message: successMessage(r, lang, live, call) };
}

/**
 * `create_skill` (R-PRE-06, R-PRE-08, R-PRE-09): a new role skill of the caller's role.
 * @returns `{success, skill, op, written, removed, ignored, problems, findings, live, call,
 *   user_message}`; a refusal: `{success:false, error, error_type, user_message, refusal (code), …}`.
 */
export function runCreateSkill(input: Record<string, unknown>, ctx: Record<string, unknown>): Promise<Record<string, unknown>> {
  return run('create', input, ctx);
}

/**
 * `edit_skill` (R-PRE-06, R-PRE-07, R-PRE-09): replace, add (schema.json, `references/…`) or
 * remove (`null`) files of one of the caller's role skills; same result shape as create.
 */
export function runEditSkill(input: Record<string, unknown>, ctx: Record<string, unknown>): Promise<Record<string, unknown>> {
  return run('edit', input, ctx);
}
