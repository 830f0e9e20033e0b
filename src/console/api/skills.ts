/**
 * Console section `skills` "skills per role (enable, disable, install, view
 * SKILL.md and preflight problems)"; docs/skill-authoring.md roles `skills:`; docs/console.md).
 * Backed by the live skill set `services.lifecycle` (src/lifecycle/types.ts); without one
 * (a console built outside a gateway) the list is read from the registry and the config file,
 * and enable/install answer 503.
 *
 *   GET  roles                                   [{id, org_id, skills, access}]
 *   GET  roles/:role                             {role, live, skills: [{skill, source, owner_role?, enabled, status, issues, description}]}
 *   GET  roles/:role/skills/:skill               {skill, source, primary_env (metadata.openclaw.primaryEnv or null, R-LOAD-10), skill_md (raw text, ≤ 256 KiB), issues (preflight, install mode)}
 *   POST roles/:role/skills/:skill/enabled       {enabled: boolean} → {ok, enabled}
 *   POST install?role=<id>&filename=<name>.zip   body: the zip (application/zip, ≤ 20 MiB); no role = shared → InstallResult
 */
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { roleSkills } from '../../config/file.ts';
import type { RoleSkillState } from '../../lifecycle/types.ts';
import { preflight } from '../../registry/preflight.ts';
import type { SkillRecord } from '../../registry/types.ts';
import { fail, roleOf, str, type AdminDeps, type AdminSection } from '../kit.ts';
import { unknownRoleMessage } from '../../lifecycle/live.ts';

/** Largest SKILL.md text returned, bytes. */
export const SKILL_MD_MAX_BYTES = 256 * 1024;
/** Accepted upload file names (`?filename=`): a plain `<name>.zip`, no path. */
const ZIP_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.zip$/;
/** Largest uploaded package, bytes. */
export const INSTALL_MAX_BYTES = 20 * 1024 * 1024;

/** The registry the console reads: the live one when present. */
function registryOf(deps: AdminDeps) {
  return deps.services.lifecycle?.registry() ?? deps.services.registry;
}

/** Every skill as `roleId` sees it: the lifecycle's view, else registry + config list. */
async function roleState(deps: AdminDeps, roleId: string): Promise<RoleSkillState[]> {
  if (deps.services.lifecycle) return deps.services.lifecycle.roleState(roleId);
  const list = roleSkills(deps.config, roleId) ?? '*';
  return registryOf(deps)
    .all()
    .filter((r) => r.skillType !== 'chain' && (r.source !== 'role' || r.ownerRole === roleId))
    .map((r) => ({
      skill: r.name,
      source: r.source,
      ...(r.ownerRole ? { ownerRole: r.ownerRole } : {}),
      enabled: r.source === 'role' || list === '*' || list.includes(r.name),
      status: r.status,
      issues: r.issues,
      dir: r.dir,
    }));
}

/** The record of `skill` if role `roleId` sees it (another role's own skill is not found). */
async function visibleRecord(deps: AdminDeps, roleId: string, skill: string): Promise<SkillRecord | undefined> {
  const state = (await roleState(deps, roleId)).find((s) => s.skill === skill);
  if (!state) return undefined;
  return registryOf(deps).get(skill);
}

async function readCapped(path: string, max: number): Promise<{ text: string; truncated: boolean }> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(max + 1);
    const { bytesRead } = await fh.read(buf, 0, max + 1, 0);
    return { text: buf.subarray(0, Math.min(bytesRead, max)).toString('utf8'), truncated: bytesRead > max };
  } finally {
    await fh.close();
  }
}

function routes(deps: AdminDeps): express.Router {
  const r = express.Router();

  r.get('/roles', (_req, res) => {
    res.json(deps.config.roles.map((x) => ({ id: x.id, org_id: x.org_id, skills: x.skills, access: x.access })));
  });

  r.get('/roles/:role', async (req, res) => {
    const role = roleOf(deps, req.params.role);
    if (!role) return fail(res, 404, 'unknown_role', `没有角色 ${req.params.role}。`);
    const reg = registryOf(deps);
    const skills = (await roleState(deps, role.id)).map((s) => ({
      skill: s.skill,
      source: s.source,
      ...(s.ownerRole ? { owner_role: s.ownerRole } : {}),
      enabled: s.enabled,
      status: s.status,
      issues: s.issues,
      description: reg.get(s.skill)?.frontmatter.description ?? '',
    }));
    res.json({ role: role.id, live: deps.services.lifecycle !== undefined, skills });
  });

  r.get('/roles/:role/skills/:skill', async (req, res) => {
    const role = roleOf(deps, req.params.role);
    const rec = role ? await visibleRecord(deps, role.id, req.params.skill) : undefined;
    if (!role || !rec) return fail(res, 404, 'unknown_skill', `角色 ${req.params.role} 没有技能 ${req.params.skill}。`);
    const md = rec.skillMdPath ? await readCapped(rec.skillMdPath, SKILL_MD_MAX_BYTES).catch(() => null) : null;
    res.json({
      skill: rec.name,
      source: rec.source,
      primary_env: rec.frontmatter.primaryEnv ?? null,
      skill_md: md?.text ?? null,
      truncated: md?.truncated ?? false,
      issues: await preflight(rec.dir, { mode: 'install' }),
    });
  });

  r.post('/roles/:role/skills/:skill/enabled', async (req, res) => {
    const role = roleOf(deps, req.params.role);
    const enabled = (req.body as { enabled?: unknown } | undefined)?.enabled;
    if (!role) return fail(res, 404, 'unknown_role', `没有角色 ${req.params.role}。`);
    if (typeof enabled !== 'boolean') return fail(res, 400, 'bad_request', '需要 enabled: true 或 false。');
    const lc = deps.services.lifecycle;
    if (!lc) return fail(res, 503, 'no_lifecycle', '此网关未启用技能生命周期管理，无法更改启用状态。');
    if (!(await visibleRecord(deps, role.id, req.params.skill)))
      return fail(res, 404, 'unknown_skill', `角色 ${role.id} 没有技能 ${req.params.skill}。`);
    await lc.setEnabled(role.id, req.params.skill, enabled);
    deps.log.info({ role_id: role.id, skill: req.params.skill, enabled }, 'admin console: skill enablement changed');
    res.json({ ok: true, enabled });
  });

  r.post('/install', express.raw({ type: () => true, limit: INSTALL_MAX_BYTES }), async (req, res) => {
    const roleId = str(req.query.role);
    if (roleId && !roleOf(deps, roleId)) return fail(res, 404, 'unknown_role', unknownRoleMessage(roleId, deps.config));
    const lc = deps.services.lifecycle;
    if (!lc) return fail(res, 503, 'no_lifecycle', '此网关未启用技能生命周期管理，无法安装技能。');
    const body = req.body as unknown;
    if (!Buffer.isBuffer(body) || body.length === 0) return fail(res, 400, 'empty_package', '请上传技能包（zip 文件）。');
    const dir = await mkdtemp(join(tmpdir(), 'sg-admin-install-'));
    try {
      // The file name matters: a zip without a top folder installs under its name.
      const given = str(req.query.filename);
      const file = join(dir, given && ZIP_NAME_RE.test(given) ? given : 'package.zip');
      await writeFile(file, body, { mode: 0o600 });
      const result = await lc.install(file, roleId ? { roleId } : {});
      deps.log.info({ role_id: roleId ?? null, ok: result.ok, skill: result.skill }, 'admin console: install');
      res
        .status(result.ok ? 200 : 422)
        .json(result.ok ? result : { ...result, error: result.error ?? '安装失败。', code: 'install_refused' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  return r;
}

/** The `skills` section. */
export const skillsSection: AdminSection = {
  id: 'skills',
  title: { zh: '技能', en: 'Skills' },
  routes,
};
