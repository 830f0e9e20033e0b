/**
 * The HTTP exec config (docs/skill-authoring.md, A-47): the TOML file named by skill.toml
 * `[exec] config`, and `$NAME` substitution from the skill's parameters (R-CFG-04 order).
 */
import { readFile } from 'node:fs/promises';
import { parse, TomlError } from 'smol-toml';
import type { RuntimeContext } from '../runtime/types.ts';

/** A parsed `[request]` table. */
export interface HttpRequestConfig {
  /** Upper-case method; default `POST` (the input is the request body, R-FORM-11). */
  method: string;
  /** URL template (may contain `$NAME`). */
  url: string;
  /** Seconds, when given. */
  timeoutSec?: number;
  /** Header templates. */
  headers: Record<string, string>;
}

/** Methods whose request carries the input as a JSON body. */
export const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** A config the skill author must fix. */
export class HttpConfigError extends Error {
  override name = 'HttpConfigError';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Read and check the HTTP exec config.
 * @throws HttpConfigError when the file is unreadable, does not parse, has no `[request]`
 *   table or `url`, names a method that is not a token, a non-positive `timeout_sec`, or a
 *   non-string header value.
 */
export async function readHttpConfig(file: string): Promise<HttpRequestConfig> {
  let data: Record<string, unknown>;
  try {
    data = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    const msg = err instanceof TomlError ? `line ${err.line}, column ${err.column}: ${err.message.split('\n')[0]}` : (err as Error).message;
    throw new HttpConfigError(`the HTTP exec config cannot be read: ${msg}`);
  }
  const req = data.request;
  if (!isRecord(req)) throw new HttpConfigError('the HTTP exec config has no [request] table');
  if (typeof req.url !== 'string' || req.url.trim() === '') throw new HttpConfigError('[request] url is missing');
  const method = (typeof req.method === 'string' ? req.method : 'POST').trim().toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new HttpConfigError(`[request] method "${String(req.method)}" is not an HTTP method`);
  const out: HttpRequestConfig = { method, url: req.url.trim(), headers: {} };
  const t = req.timeout_sec;
  if (t !== undefined) {
    const n = typeof t === 'bigint' ? Number(t) : t;
    if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
      throw new HttpConfigError('[request] timeout_sec must be a positive number of seconds');
    out.timeoutSec = n;
  }
  if (req.headers !== undefined) {
    if (!isRecord(req.headers)) throw new HttpConfigError('[request.headers] must be a table');
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v !== 'string' && typeof v !== 'number') throw new HttpConfigError(`[request.headers] ${k} must be a string`);
      out.headers[k] = String(v);
    }
  }
  return out;
}

function filled(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
  return s !== null && s.trim() !== '' ? s : null;
}

/**
 * The value of skill parameter `name` (R-CFG-04): `ctx.skill_configs[skill][name]` →
 * `ctx.skill_configs[name]` → `ctx.skill_args[name]` → `ctx[name]` → `extra[name]` (the
 * call's secret env) → `env[name]`; the first non-null value that is not blank after trim
 * wins. @returns null when none.
 */
export function lookupParam(
  name: string,
  skill: string,
  ctx: RuntimeContext,
  extra: Record<string, string> = {},
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  const configs = isRecord(ctx.skill_configs) ? ctx.skill_configs : {};
  const own = configs[skill];
  const args = isRecord(ctx.skill_args) ? ctx.skill_args : {};
  const levels: unknown[] = [isRecord(own) ? own[name] : undefined, configs[name], args[name], ctx[name], extra[name], env[name]];
  for (const v of levels) {
    const s = filled(v);
    if (s !== null) return s;
  }
  return null;
}

/**
 * Replace `$NAME` and `${NAME}` (NAME = `[A-Za-z_][A-Za-z0-9_]*`) in `template` with
 * `lookup(NAME)`; an unknown name becomes "" (R-CFG-04) and is reported in `missing`.
 */
export function substitute(template: string, lookup: (name: string) => string | null, missing: Set<string>): string {
  return template.replace(
    /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
    (_m, braced: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare)!;
      const v = lookup(name);
      if (v === null) {
        missing.add(name);
        return '';
      }
      return v;
    },
  );
}
