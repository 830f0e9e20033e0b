/**
 * The pre-execution `requires` check: env variables and host binaries a skill declares.
 *
 * Requirement ids: R-LOAD-07, R-LOAD-08, R-LOAD-09, A-07.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { SkillRecord } from './types.ts';

/** The failure envelope returned instead of running a skill whose requirements are missing. */
export interface NeedsConfigEnvelope {
  success: false;
  error_type: 'config';
  /** Missing env names (required ones only) then missing binaries, in declaration order. */
  needs_config: string[];
  /** Text for the user, zh-CN by default. */
  user_message: string;
  /** Same content for the model / logs (English). */
  error: string;
}

/** Where requirements are looked up. */
export interface RequiresContext {
  /** Process environment (second place an env requirement is satisfied from). */
  env: NodeJS.ProcessEnv;
  /** The role's stored skill parameters by name (first place, A-07). */
  config: Record<string, string | undefined>;
  /** Binary lookup; default {@link whichSync} on `env.PATH`. */
  which?: (bin: string) => boolean;
  /** Language of `user_message` (default `zh-CN`). */
  lang?: 'zh-CN' | 'en';
}

function nonBlank(v: string | undefined): boolean {
  return typeof v === 'string' && v.trim() !== '';
}

/**
 * True when `bin` is an executable file: an absolute/relative path is checked as is, a bare
 * name is searched on `pathVar` (`:`-separated). No child process is started.
 */
export function whichSync(bin: string, pathVar: string | undefined = process.env.PATH): boolean {
  const executable = (file: string): boolean => {
    try {
      if (!statSync(file).isFile()) return false;
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (bin.includes('/')) return isAbsolute(bin) ? executable(bin) : false;
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (dir !== '' && executable(join(dir, bin))) return true;
  }
  return false;
}

/**
 * Check a skill's `requires` before execution (R-LOAD-08).
 *
 * - `requires.env`: an entry with `required: false` never blocks; an entry is satisfied by a
 *   non-blank role config value of that name, else a non-blank process env value.
 * - `requires.bins`: each must be found on PATH, except for skills declaring
 *   `exec_mode: shell` or `exec_mode: runtime` (R-LOAD-09); missing ones join needs_config.
 * @returns null when satisfied, else the needs_config envelope (the skill must not run).
 */
export function checkRequires(skill: Pick<SkillRecord, 'name' | 'frontmatter'>, ctx: RequiresContext): NeedsConfigEnvelope | null {
  const { env: envReqs, bins } = skill.frontmatter.requires;
  const missing: string[] = [];
  for (const req of envReqs) {
    if (!req.required) continue;
    if (nonBlank(ctx.config[req.name]) || nonBlank(ctx.env[req.name])) continue;
    if (!missing.includes(req.name)) missing.push(req.name);
  }
  const mode = skill.frontmatter.execMode?.trim().toLowerCase();
  if (mode !== 'shell' && mode !== 'runtime') {
    const which = ctx.which ?? ((b: string) => whichSync(b, ctx.env.PATH));
    for (const bin of bins) if (!which(bin) && !missing.includes(bin)) missing.push(bin);
  }
  if (missing.length === 0) return null;
  return {
    success: false,
    error_type: 'config',
    needs_config: missing,
    user_message: needsConfigMessage(skill.name, missing, ctx.lang ?? 'zh-CN'),
    error: needsConfigMessage(skill.name, missing, 'en'),
  };
}

/** `技能 X 缺少配置：A、B。请管理员配置后重试。` (zh-CN) or the English equivalent. */
export function needsConfigMessage(skill: string, missing: readonly string[], lang: 'zh-CN' | 'en'): string {
  return lang === 'en'
    ? `Skill ${skill} is missing configuration: ${missing.join(', ')}. Ask an administrator to configure it and try again.`
    : `技能 ${skill} 缺少配置：${missing.join('、')}。请管理员配置后重试。`;
}
