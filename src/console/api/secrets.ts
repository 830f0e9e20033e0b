/**
 * Console section `secrets`: skill parameters per role and skill, secrets write-only
 * (a stored secret is never shown again; R-CFG-01, R-CFG-03, R-CFG-05; src/runtime/skill-config.ts;
 * docs/console.md).
 *
 * A parameter is secret when its name matches the secret substrings (R-CFG-05), the skill's
 * input schema declares it secret (`secretParams`, `x-secret: true`) or it is the skill's main
 * credential (`metadata.openclaw.primaryEnv`, R-LOAD-10); it is stored encrypted and listed
 * only as `{set: true}` — never its value, not even a prefix. The parameters the skill declares
 * (primaryEnv, requires.env, secret inputs — src/registry/credentials.ts) are listed before
 * anything is stored, the primary credential first and marked `primary: true`.
 *
 *   GET    :role/:skill          {role, skill, primary_env, params: [{key, secret, set, primary?, required?, value?, updated_at?}]}
 *   PUT    :role/:skill/:key     {value: string} → {ok, key, secret}   (via 'operator')
 *   DELETE :role/:skill/:key     → {ok, deleted}
 */
import express from 'express';
import { declaredParams, secretParamNames } from '../../registry/credentials.ts';
import { isSecretName } from '../../registry/secrets.ts';
import type { SkillRecord } from '../../registry/types.ts';
import { deleteSkillConfig, listSkillConfig, normalizeConfigKey, setSkillConfig } from '../../runtime/skill-config.ts';
import { fail, roleOf, type AdminDeps, type AdminSection } from '../kit.ts';

/** One parameter as the console lists it. `value` only for a non-secret parameter. */
export interface ConsoleParam {
  key: string;
  secret: boolean;
  set: boolean;
  /** The skill's main credential (`metadata.openclaw.primaryEnv`, R-LOAD-10). */
  primary?: boolean;
  /** Declared in requires.env as required (the skill does not run without it, A-07). */
  required?: boolean;
  value?: string;
  updated_at?: string;
}

/** zh-CN text of a refusal code of setSkillConfig. */
const REFUSAL_ZH: Record<string, string> = {
  invalid_target: '角色或技能名称无效。',
  invalid_key: '参数名只能包含字母、数字和下划线（不以数字开头，最长 64 个字符）。',
  reserved_key: '该参数名为平台保留，不能使用。',
  empty_value: '值不能为空。',
  value_too_long: '值太长。',
};

function routes(deps: AdminDeps): express.Router {
  const r = express.Router();
  const registry = () => deps.services.lifecycle?.registry() ?? deps.services.registry;

  /** 404 unless role and skill exist. @returns the skill's record. */
  const target = (res: express.Response, roleId: string, skill: string): SkillRecord | null => {
    const rec = registry().get(skill);
    if (!roleOf(deps, roleId) || !rec || (rec.source === 'role' && rec.ownerRole !== roleId)) {
      fail(res, 404, 'unknown_target', `角色 ${roleId} 没有技能 ${skill}。`);
      return null;
    }
    return rec;
  };

  r.get('/:role/:skill', async (req, res) => {
    const { role, skill } = req.params;
    const rec = target(res, role, skill);
    if (!rec) return;
    const declared = declaredParams(rec);
    const secretNames = secretParamNames(rec);
    const stored = await listSkillConfig(deps.db, role, skill);
    const params = new Map<string, ConsoleParam>();
    const flags = (key: string) => {
      const d = declared.find((p) => p.key === key);
      return { ...(d?.primary ? { primary: true } : {}), ...(d?.required ? { required: true } : {}) };
    };
    for (const d of declared) params.set(d.key, { key: d.key, secret: d.secret, set: false, ...flags(d.key) });
    for (const e of stored) {
      const secret = e.encrypted || secretNames.includes(e.key) || isSecretName(e.key);
      params.set(e.key, {
        key: e.key,
        secret,
        set: true,
        ...flags(e.key),
        ...(secret || e.value === null ? {} : { value: e.value }),
        updated_at: new Date(e.updated_at).toISOString(),
      });
    }
    const list = [...params.values()].sort((a, b) => Number(b.primary === true) - Number(a.primary === true) || a.key.localeCompare(b.key));
    res.json({ role, skill, primary_env: rec.frontmatter.primaryEnv ?? null, params: list });
  });

  r.put('/:role/:skill/:key', async (req, res) => {
    const { role, skill } = req.params;
    const rec = target(res, role, skill);
    if (!rec) return;
    const value = (req.body as { value?: unknown } | undefined)?.value;
    if (typeof value !== 'string') return fail(res, 400, 'bad_request', '需要字符串 value。');
    const key = normalizeConfigKey(req.params.key);
    const secret = secretParamNames(rec).includes(key) || isSecretName(key);
    const out = await setSkillConfig(deps.db, deps.services.secretKey, {
      roleId: role,
      skill,
      key,
      value,
      encrypt: secret,
      via: 'operator',
    });
    if (!out.ok) return fail(res, 400, out.code, REFUSAL_ZH[out.code] ?? '参数未保存。');
    res.json({ ok: true, key: out.key, secret: out.encrypted });
  });

  r.delete('/:role/:skill/:key', async (req, res) => {
    const { role, skill } = req.params;
    if (!target(res, role, skill)) return;
    const deleted = await deleteSkillConfig(deps.db, role, skill, req.params.key);
    res.json({ ok: true, deleted });
  });
  return r;
}

/** The `secrets` section. */
export const secretsSection: AdminSection = {
  id: 'secrets',
  title: { zh: '参数与密钥', en: 'Parameters & secrets' },
  routes,
};
