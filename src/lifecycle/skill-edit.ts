/**
 * create_skill / edit_skill as library operations
 * (R-PRE-06..09). The lead wires them as the platform tools `create_skill` / `edit_skill`.
 *
 * Both work on a staged copy and only replace the live folder when everything passed:
 * 1. the role id and the skill name are valid (R-PRE-03); the name is not a built-in, shared
 *    or market skill, nor another role's, nor a saved chain (R-PRE-09);
 * 2. every file path is confined (no `..`, not absolute, no hidden segments) and allowed:
 *    create writes only SKILL.md, the handler and skill.toml, anything else is ignored and
 *    listed (R-PRE-08); edit may also write schema.json and `references/…`; a symbolic link in
 *    the role's folders refuses the change;
 * 3. preflight in `create` mode: every `error` blocks, "will default" notices and advice do
 *    not (R-PRE-06);
 * 4. the danger scan (`danger-scan.ts`): a `critical` finding blocks the write (R-PRE-07);
 * 5. the staged folder replaces the live one by rename — a refused change writes nothing.
 */
import { randomBytes } from 'node:crypto';
import { cp, lstat, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { preflight } from '../registry/preflight.ts';
import { isInside } from '../registry/paths.ts';
import type { Registry } from '../registry/discover.ts';
import type { SkillIssue } from '../registry/types.ts';
import { hasCritical, scanSkillDir, type DangerFinding } from './danger-scan.ts';
import { ROLE_ID_RE, ROLE_SKILLS_DIR, SKILL_NAME_RE, ensureRoleDir, isCreateFile, isEditFile, unsafePath } from './role-paths.ts';

/** Largest file content accepted, in UTF-8 bytes. */
export const MAX_FILE_BYTES = 256 * 1024;
/** Most files one request may name. */
export const MAX_FILES = 64;

/** Why a create/edit was refused (stable codes). */
export type EditRefusalCode =
  | 'role.invalid'
  | 'name.invalid'
  | 'scope.builtin'
  | 'scope.shared'
  | 'scope.market'
  | 'scope.other_role'
  | 'scope.chain'
  | 'skill.exists'
  | 'skill.not_found'
  | 'files.invalid'
  | 'path.invalid'
  | 'path.not_allowed'
  | 'path.symlink'
  | 'preflight'
  | 'danger.critical';

/** A refusal: what and why, in zh-CN (default) and English. */
export interface EditRefusal {
  code: EditRefusalCode;
  message: { 'zh-CN': string; en: string };
}

/** The outcome of {@link createRoleSkill} / {@link editRoleSkill}. */
export interface SkillEditResult {
  /** True when the files were written. */
  ok: boolean;
  op: 'create' | 'edit';
  skill: string;
  /** The live skill folder `<data>/role-skills/<role>/<name>` (absolute). */
  dir: string;
  /** Relative paths written (ok) or that would have been written (refused), sorted. */
  written: string[];
  /** Relative paths removed by an edit (`null` content). */
  removed: string[];
  /** create: files beyond SKILL.md / handler / skill.toml, not written (R-PRE-08). */
  ignored: string[];
  /** Set when `ok` is false. */
  refusal?: EditRefusal;
  /** Preflight issues of the staged folder in create mode (every severity; R-PRE-06). */
  problems: SkillIssue[];
  /** Danger scan findings of the staged folder (R-PRE-07). */
  findings: DangerFinding[];
}

/** Where and for whom a change happens. */
export interface RoleSkillScope {
  /** The data dir (`SKILLGATE_DATA_DIR`). */
  dataDir: string;
  /** The current role (R-PRE-09: only its own skills can change). */
  roleId: string;
  /**
   * The role's registry (built-in, shared, market and role roots), used to refuse names that
   * belong to a non-role skill or to another role's folder. Absent: only the folder is checked.
   */
  registry?: Pick<Registry, 'get'>;
}

/** A create_skill request. */
export interface CreateRoleSkillRequest extends RoleSkillScope {
  /** The new skill's name (= folder name, R-PRE-03). */
  name: string;
  /** Relative path → UTF-8 content; only SKILL.md, the handler and skill.toml are written. */
  files: Record<string, string>;
}

/** An edit_skill request (`full_files`). */
export interface EditRoleSkillRequest extends RoleSkillScope {
  name: string;
  /** Relative path → new full UTF-8 content, or `null` to remove the file. */
  files: Record<string, string | null>;
}

const SOURCE_WORD: Record<string, { zh: string; en: string }> = {
  builtin: { zh: '内置', en: 'built-in' },
  shared: { zh: '共享', en: 'shared' },
  market: { zh: '市场', en: 'market' },
};

function refuse(code: EditRefusalCode, zh: string, en: string): EditRefusal {
  return { code, message: { 'zh-CN': zh, en } };
}

/** Checks that do not touch the disk: ids, scope by registry, the file list. */
function checkRequest(
  op: 'create' | 'edit',
  req: RoleSkillScope & { name: string; files: Record<string, string | null> },
  roleDir: string,
): { refusal?: EditRefusal; write: Map<string, string | null>; ignored: string[] } {
  const write = new Map<string, string | null>();
  const ignored: string[] = [];
  const none = { write, ignored };
  if (!ROLE_ID_RE.test(req.roleId))
    return { ...none, refusal: refuse('role.invalid', `角色 ID「${req.roleId}」不合法`, `role id "${req.roleId}" is not valid`) };
  if (!SKILL_NAME_RE.test(req.name)) {
    return {
      ...none,
      refusal: refuse(
        'name.invalid',
        `技能名「${req.name}」不合法：须匹配 ^[a-z0-9][a-z0-9_-]*$`,
        `skill name "${req.name}" must match ^[a-z0-9][a-z0-9_-]*$`,
      ),
    };
  }
  const rec = req.registry?.get(req.name);
  if (rec?.skillType === 'chain') {
    return {
      ...none,
      refusal: refuse(
        'scope.chain',
        `「${req.name}」是已保存的技能链，不能${op === 'create' ? '同名新建技能' : '用 edit_skill 修改'}（技能链用 chain save 修改）`,
        `"${req.name}" is a saved chain and cannot be ${op === 'create' ? 'shadowed by a skill' : 'changed with edit_skill'} (use chain save)`,
      ),
    };
  }
  if (rec && rec.source !== 'role') {
    const w = SOURCE_WORD[rec.source] ?? { zh: rec.source, en: rec.source };
    return {
      ...none,
      refusal: refuse(
        `scope.${rec.source}` as EditRefusalCode,
        `「${req.name}」是${w.zh}技能，不能${op === 'create' ? '同名新建' : '修改'}；只能改本角色自己的技能`,
        `"${req.name}" is a ${w.en} skill and cannot be ${op === 'create' ? 'shadowed' : 'edited'}; only the role's own skills can change`,
      ),
    };
  }
  if (rec && !isInside(roleDir, rec.dir)) {
    return {
      ...none,
      refusal: refuse(
        'scope.other_role',
        `「${req.name}」属于其他角色，不能修改`,
        `"${req.name}" belongs to another role and cannot be changed here`,
      ),
    };
  }
  if (typeof req.files !== 'object' || req.files === null)
    return { ...none, refusal: refuse('files.invalid', '没有给出文件', 'no files given') };
  const entries = Object.entries(req.files);
  if (entries.length === 0 || entries.length > MAX_FILES) {
    return {
      ...none,
      refusal: refuse('files.invalid', `文件数须在 1 到 ${MAX_FILES} 之间`, `between 1 and ${MAX_FILES} files are accepted`),
    };
  }
  for (const [rel, content] of entries) {
    const why = unsafePath(rel);
    if (why) return { ...none, refusal: refuse('path.invalid', `路径「${rel}」不允许：${why}`, `path "${rel}" is refused: ${why}`) };
    if (content !== null && typeof content !== 'string')
      return { ...none, refusal: refuse('files.invalid', `「${rel}」的内容不是文本`, `the content of "${rel}" is not text`) };
    if (content !== null && Buffer.byteLength(content, 'utf8') > MAX_FILE_BYTES) {
      return {
        ...none,
        refusal: refuse('files.invalid', `「${rel}」超过 ${MAX_FILE_BYTES} 字节`, `"${rel}" is larger than ${MAX_FILE_BYTES} bytes`),
      };
    }
    if (op === 'create') {
      if (isCreateFile(rel) && content !== null) write.set(rel, content);
      else ignored.push(rel);
    } else if (isEditFile(rel)) write.set(rel, content);
    else {
      return {
        ...none,
        refusal: refuse(
          'path.not_allowed',
          `edit_skill 不能写「${rel}」：只能写 SKILL.md、handler、skill.toml、schema.json 和 references/ 下的文件`,
          `edit_skill cannot write "${rel}": only SKILL.md, the handler, skill.toml, schema.json and files under references/`,
        ),
      };
    }
  }
  if (write.size === 0)
    return {
      ...none,
      ignored,
      refusal: refuse(
        'files.invalid',
        '没有可写入的文件（create_skill 只写 SKILL.md、handler 与 skill.toml）',
        'nothing to write (create_skill writes only SKILL.md, the handler and skill.toml)',
      ),
    };
  return { write, ignored: ignored.sort() };
}

/** Relative paths of symbolic links under `dir` (hidden entries included). */
async function symlinksUnder(dir: string, base = ''): Promise<string[]> {
  const out: string[] = [];
  for (const ent of await readdir(dir, { withFileTypes: true })) {
    const rel = base ? `${base}/${ent.name}` : ent.name;
    if (ent.isSymbolicLink()) out.push(rel);
    else if (ent.isDirectory()) out.push(...(await symlinksUnder(join(dir, ent.name), rel)));
  }
  return out;
}

async function exists(p: string): Promise<boolean> {
  return lstat(p).then(
    () => true,
    () => false,
  );
}

/** The preflight issues that block a create/edit: every `error` (R-PRE-06). */
function blocking(problems: readonly SkillIssue[]): SkillIssue[] {
  return problems.filter((p) => p.severity === 'error');
}

function findingsText(findings: readonly DangerFinding[], lang: 'zh-CN' | 'en'): string {
  return findings
    .filter((f) => f.severity === 'critical')
    .map((f) => `${f.file}:${f.line} [${f.rule}] ${f.message[lang]}`)
    .join('; ');
}

/** The shared path of create and edit. */
async function change(op: 'create' | 'edit', req: CreateRoleSkillRequest | EditRoleSkillRequest): Promise<SkillEditResult> {
  const roleDirPath = join(req.dataDir, ROLE_SKILLS_DIR, ROLE_ID_RE.test(req.roleId) ? req.roleId : '_');
  const target = join(roleDirPath, SKILL_NAME_RE.test(req.name) ? req.name : '_');
  const result: SkillEditResult = {
    ok: false,
    op,
    skill: req.name,
    dir: target,
    written: [],
    removed: [],
    ignored: [],
    problems: [],
    findings: [],
  };
  const checked = checkRequest(op, req, roleDirPath);
  result.ignored = checked.ignored;
  if (checked.refusal) return { ...result, refusal: checked.refusal };
  result.written = [...checked.write]
    .filter(([, c]) => c !== null)
    .map(([p]) => p)
    .sort();
  result.removed = [...checked.write]
    .filter(([, c]) => c === null)
    .map(([p]) => p)
    .sort();

  const roleDir = await ensureRoleDir(req.dataDir, req.roleId);
  if (!roleDir)
    return {
      ...result,
      refusal: refuse(
        'path.symlink',
        '角色技能目录是符号链接或不在数据目录内',
        "the role's skill folder is a symbolic link or outside the data dir",
      ),
    };
  const present = await exists(target);
  if (op === 'create' && present)
    return {
      ...result,
      refusal: refuse(
        'skill.exists',
        `技能「${req.name}」已存在，请用 edit_skill 修改`,
        `skill "${req.name}" already exists; use edit_skill`,
      ),
    };
  if (op === 'edit') {
    if (!present)
      return {
        ...result,
        refusal: refuse('skill.not_found', `本角色没有名为「${req.name}」的技能`, `the role has no skill named "${req.name}"`),
      };
    const st = await lstat(target);
    const links = st.isSymbolicLink() ? ['.'] : st.isDirectory() ? await symlinksUnder(target) : ['.'];
    if (links.length > 0)
      return {
        ...result,
        refusal: refuse(
          'path.symlink',
          `技能目录含符号链接（${links.join(', ')}），拒绝修改`,
          `the skill folder holds symbolic links (${links.join(', ')}); refused`,
        ),
      };
  }

  const stageRoot = join(req.dataDir, ROLE_SKILLS_DIR, '.staging', randomBytes(8).toString('hex'));
  const staged = join(stageRoot, req.name);
  try {
    if (op === 'edit') await cp(target, staged, { recursive: true, verbatimSymlinks: true });
    else await mkdir(staged, { recursive: true });
    for (const [rel, content] of checked.write) {
      const abs = join(staged, ...rel.split('/'));
      if (content === null) await rm(abs, { force: true });
      else {
        await mkdir(dirname(abs), { recursive: true });
        await writeFile(abs, content, 'utf8');
      }
    }
    result.problems = await preflight(staged, { mode: 'create' });
    result.findings = await scanSkillDir(staged);
    if (hasCritical(result.findings)) {
      return {
        ...result,
        refusal: refuse(
          'danger.critical',
          `危险代码扫描发现严重问题，未写入：${findingsText(result.findings, 'zh-CN')}`,
          `the danger scan found critical code, nothing was written: ${findingsText(result.findings, 'en')}`,
        ),
      };
    }
    const blockers = blocking(result.problems);
    if (blockers.length > 0) {
      const list = blockers.map((p) => p.message).join('; ');
      return { ...result, refusal: refuse('preflight', `预检未通过，未写入：${list}`, `preflight failed, nothing was written: ${list}`) };
    }
    if (op === 'create') await rename(staged, target);
    else {
      const old = join(stageRoot, `${req.name}.old`);
      await rename(target, old);
      try {
        await rename(staged, target);
      } catch (err) {
        await rename(old, target);
        throw err;
      }
    }
    return { ...result, ok: true };
  } finally {
    await rm(stageRoot, { recursive: true, force: true });
  }
}

/**
 * create_skill (R-PRE-08, R-PRE-09, R-PRE-06, R-PRE-07): write a new role skill
 * `<data>/role-skills/<role>/<name>/` from SKILL.md, the handler (`handler.ts|js|mjs|py`)
 * and skill.toml; other files are ignored and listed in `ignored`.
 * @returns `ok: false` with a `refusal` (nothing written) on any refused check. Throws only
 *   on I/O failures of the data dir.
 */
export function createRoleSkill(req: CreateRoleSkillRequest): Promise<SkillEditResult> {
  return change('create', req);
}

/**
 * edit_skill with `full_files` (R-PRE-07..09, R-PRE-06): replace or add files of an existing
 * role skill of the current role — SKILL.md, the handler, skill.toml, schema.json and files
 * under `references/`; `null` removes a file. Built-in, shared, market and other roles'
 * skills are refused; the edit is written only when preflight (create mode) has no error and
 * the danger scan has no critical finding.
 * @returns `ok: false` with a `refusal` (the live folder untouched) on any refused check.
 */
export function editRoleSkill(req: EditRoleSkillRequest): Promise<SkillEditResult> {
  return change('edit', req);
}
