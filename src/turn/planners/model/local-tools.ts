/**
 * Tools the model planner serves itself (not skills): `file_read` (paged reading of an
 * offloaded result, R-OFF-05), `save_skill_config` (a skill parameter for the role, R-CFG-01/08)
 * and, inside a `skill_md` sub-agent, `read_skill_file` (files of that skill, R-LOAD-12).
 *
 * Each returns an envelope like a skill does, so the budget and the model see one shape.
 */
import { readFile, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Envelope } from '../../../envelope/types.ts';
import type { Logger } from '../../../log/logger.ts';
import type { Registry } from '../../../registry/discover.ts';
import { setSkillConfig } from '../../../runtime/skill-config.ts';
import type { Queryable } from '../../../store/db.ts';
import type { ChatTool } from './client.ts';

/** Longest page `file_read` returns, characters (UTF-16 units). */
export const FILE_READ_MAX = 20_000;
/** Default page of `file_read`, characters. */
export const FILE_READ_DEFAULT = 8_000;
/** Longest answer of one `read_skill_file` call, characters (R-LOAD-12). */
export const SKILL_FILE_MAX = 40_000;

export const FILE_READ = 'file_read';
export const SAVE_SKILL_CONFIG = 'save_skill_config';
export const READ_SKILL_FILE = 'read_skill_file';

/** `file_read` in the OpenAI tools form. */
export const FILE_READ_TOOL: ChatTool = {
  type: 'function',
  function: {
    name: FILE_READ,
    description:
      'Read a file whose result was offloaded in this turn (`offloaded: true`), one page at a time. Pass `offload_path` as path; continue with `next_offset` until it is null or you have enough.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'offload_path (or offload_file) from the receipt' },
        offset: { type: 'integer', minimum: 0, description: 'first character to read (default 0)' },
        limit: { type: 'integer', minimum: 1, maximum: FILE_READ_MAX, description: `characters to read (default ${FILE_READ_DEFAULT})` },
      },
      required: ['path'],
    },
  },
};

/** `save_skill_config` in the OpenAI tools form. */
export const SAVE_SKILL_CONFIG_TOOL: ChatTool = {
  type: 'function',
  function: {
    name: SAVE_SKILL_CONFIG,
    description:
      'Save a configuration parameter of a skill for this assistant, e.g. after a result asked for it (needs_config). A credential is saved only when the user typed its exact value in this message; never fill one yourself.',
    parameters: {
      type: 'object',
      properties: {
        skill: { type: 'string', description: 'the skill name (without __sub-command)' },
        parameter: { type: 'string', description: 'the parameter name, as the skill asked for it' },
        value: { type: 'string', description: 'the value, exactly as the user wrote it' },
      },
      required: ['skill', 'parameter', 'value'],
    },
  },
};

/** `read_skill_file` in the OpenAI tools form. */
export const READ_SKILL_FILE_TOOL: ChatTool = {
  type: 'function',
  function: {
    name: READ_SKILL_FILE,
    description: `Read a file of this skill, e.g. "references/guide.md" (a path relative to the skill folder). At most ${SKILL_FILE_MAX} characters per call; continue with next_offset.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'path relative to the skill folder' },
        offset: { type: 'integer', minimum: 0, description: 'first character to read (default 0)' },
      },
      required: ['path'],
    },
  },
};

function fail(error: string, extra: Partial<Envelope> = {}): Envelope {
  return { success: false, error, error_type: 'recoverable', ...extra };
}

function intArg(v: unknown, dflt: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : dflt;
}

/** A page of `text` from `offset`, at most `limit` characters. */
function page(
  text: string,
  offset: number,
  limit: number,
): { content: string; offset: number; next_offset: number | null; total_chars: number } {
  const start = Math.min(offset, text.length);
  const end = Math.min(text.length, start + limit);
  return { content: text.slice(start, end), offset: start, next_offset: end < text.length ? end : null, total_chars: text.length };
}

/**
 * `file_read`: only files this turn handed to the model (`offload_path` / `offload_file` of
 * receipts, registered in `readable`) can be read — never an arbitrary path.
 */
export async function fileRead(args: Record<string, unknown>, readable: ReadonlyMap<string, string>): Promise<Envelope> {
  const want = typeof args.path === 'string' ? args.path.trim() : '';
  if (want === '') return fail('path is required: pass offload_path from an offloaded result', { need_param: 'path' });
  const abs = readable.get(want);
  if (!abs)
    return fail(`"${want}" is not an offloaded result of this turn; file_read reads only offload_path values of receipts`, {
      need_param: 'path',
    });
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (e) {
    return fail(`the file cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { error_type: 'transient' });
  }
  const limit = Math.min(FILE_READ_MAX, Math.max(1, intArg(args.limit, FILE_READ_DEFAULT)));
  return { success: true, path: want, ...page(text, intArg(args.offset, 0), limit) };
}

/**
 * `read_skill_file`: a file inside `skillDir` (symlinks resolved; absolute paths and `..`
 * escapes refused), at most {@link SKILL_FILE_MAX} characters from `offset`.
 */
export async function readSkillFile(skillDir: string, args: Record<string, unknown>): Promise<Envelope> {
  const want = typeof args.path === 'string' ? args.path.trim() : '';
  if (want === '' || isAbsolute(want))
    return fail('path must be relative to the skill folder, e.g. references/guide.md', { need_param: 'path' });
  let root: string;
  let abs: string;
  try {
    root = await realpath(skillDir);
    abs = await realpath(resolve(root, want));
  } catch {
    return fail(`no file "${want}" in this skill`, { need_param: 'path' });
  }
  const rel = relative(root, abs);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel))
    return fail(`"${want}" is outside the skill folder`, { need_param: 'path' });
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (e) {
    return fail(`"${want}" cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { need_param: 'path' });
  }
  const p = page(text, intArg(args.offset, 0), SKILL_FILE_MAX);
  return { success: true, path: want, ...p, truncated: p.next_offset !== null };
}

/** What `save_skill_config` needs. */
export interface SaveConfigDeps {
  db: Queryable;
  secretKey: Buffer;
  registry: Registry;
  roleId: string;
  /** Names of skills this role may use (from its tool list). */
  roleSkills: ReadonlySet<string>;
  rawInput: string;
  lang: 'zh-CN' | 'en';
  log: Logger;
}

/**
 * `save_skill_config`: the role's parameter through `setSkillConfig` with `via: 'chat'`, so a
 * secret (by name, or declared secret by the skill) is saved only when its value appears
 * verbatim in this turn's raw_input (R-CFG-08). The answer never carries the value.
 */
export async function saveSkillConfig(args: Record<string, unknown>, deps: SaveConfigDeps): Promise<Envelope> {
  const skill = typeof args.skill === 'string' ? args.skill.trim().split('__')[0]! : '';
  const parameter = typeof args.parameter === 'string' ? args.parameter : '';
  const value =
    typeof args.value === 'string'
      ? args.value
      : typeof args.value === 'number' || typeof args.value === 'boolean'
        ? String(args.value)
        : '';
  const record = skill ? deps.registry.get(skill) : undefined;
  if (!record || !deps.roleSkills.has(record.name)) {
    return fail(`unknown skill "${skill}": pass the name of one of this assistant's skills`, { need_param: 'skill' });
  }
  if (parameter.trim() === '') return fail('parameter is required', { need_param: 'parameter' });
  const normalized = parameter.trim().replace(/^-+/, '').replace(/-/g, '_');
  const res = await setSkillConfig(deps.db, deps.secretKey, {
    roleId: deps.roleId,
    skill: record.name,
    key: parameter,
    value,
    rawInput: deps.rawInput,
    via: 'chat',
    encrypt: record.secretParams.includes(normalized),
    lang: deps.lang,
    logger: deps.log,
  });
  if (res.ok) {
    return {
      success: true,
      saved: { skill: record.name, parameter: res.key, encrypted: res.encrypted },
      message: deps.lang === 'en' ? `Saved "${res.key}" for ${record.name}.` : `已为「${record.name}」保存参数「${res.key}」。`,
    };
  }
  return {
    success: false,
    error: res.error,
    error_type: res.error_type,
    ...(res.need_param ? { need_param: res.need_param } : {}),
    user_message: res.user_message,
    refused: res.code,
  };
}
