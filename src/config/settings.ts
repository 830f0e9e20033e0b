/**
 * Process settings from the environment and `.env` (docs/configuration.md
 * "Environment"). Loaded and validated once; every error names its variable.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseDotenv } from 'dotenv';
import { ConfigError } from './errors.ts';
import { resolveWalls, type WallSettings } from './walls.ts';
import { isKnownSecretField, processSecrets } from '../log/secret-values.ts';

/** `SKILLGATE_DEMO` (docs/configuration.md). */
export type DemoMode = 'auto' | 'on' | 'off';

/** A skill root, searched in order (docs/skill-authoring.md). */
export interface SkillRootSetting {
  /** Absolute folder. */
  dir: string;
  source: 'builtin' | 'shared';
}

/** Everything the process reads from its environment. */
export interface Settings {
  /** `DATABASE_URL`; undefined → embedded PGlite in `dataDir`. */
  databaseUrl?: string;
  /** Absolute data dir, `SKILLGATE_DATA_DIR` (default `./data`). */
  dataDir: string;
  /** `PORT` (default 8787; 0 = any free port). */
  port: number;
  /** `HOST`: the listen address (default `127.0.0.1`, loopback only). */
  host: string;
  /** `SKILLGATE_DEMO`: `auto` (demo identities on the embedded default on loopback), `on`, `off`. */
  demo: DemoMode;
  /** `SKILLGATE_PUBLIC_URL`, without a trailing slash. */
  publicUrl?: string;
  /** `SKILLGATE_SECRET_KEY`, decoded (32 bytes); undefined in embedded mode until generated. */
  secretKey?: Buffer;
  /** `SKILLGATE_ADMIN_TOKEN`. */
  adminToken?: string;
  /** `SKILLGATE_ORG_ID` (default `demo`). */
  orgId: string;
  /** `SKILLGATE_ROLE_ID` (default `default`). */
  roleId: string;
  /** Built-in `skills/` first, then each `SKILLGATE_SKILL_DIRS` entry. */
  skillRoots: SkillRootSetting[];
  /** `SKILLGATE_CONFIG`, else `./skillgate.config.yaml` when it exists. */
  configPath?: string;
  /** `SKILLGATE_FETCH_ALLOW`: `host[:port]` or CIDR entries. */
  fetchAllow: string[];
  /** `APPRISE_API_URL`. */
  appriseApiUrl?: string;
  /** OpenAI-compatible endpoint (`LLM_BASE_URL` includes `/v1`). */
  llm?: { baseUrl: string; apiKey?: string; model?: string };
  walls: WallSettings;
  /** `SKILLGATE_SHUTDOWN_GRACE_SEC`: how long a stop waits for running turns (default 10; docs/recovery.md). */
  shutdownGraceSec?: number;
}

/** Default of `SKILLGATE_SHUTDOWN_GRACE_SEC`, seconds. */
export const SHUTDOWN_GRACE_DEFAULT_SEC = 10;

/** The repository's built-in skills folder. */
export const BUILTIN_SKILLS_DIR = fileURLToPath(new URL('../../skills/', import.meta.url));

/** The example skills, one per exec type , a second built-in root. */
export const EXAMPLE_SKILLS_DIR = fileURLToPath(new URL('../../skills/examples/', import.meta.url));

function nonBlank(env: NodeJS.ProcessEnv, key: string): string | undefined {
  const v = env[key];
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * Read `.env` in `cwd` (when present) into a copy of `env`; variables already set win,
 * as with every dotenv loader.
 */
export function withDotenv(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): NodeJS.ProcessEnv {
  const file = resolve(cwd, '.env');
  if (!existsSync(file)) return { ...env };
  const parsed = parseDotenv(readFileSync(file));
  return { ...parsed, ...env };
}

/**
 * Decode `SKILLGATE_SECRET_KEY` (base64 of 32 bytes).
 * @throws ConfigError when it is not base64 of exactly 32 bytes.
 */
export function decodeSecretKey(value: string, key = 'SKILLGATE_SECRET_KEY'): Buffer {
  const buf = Buffer.from(value.trim(), 'base64');
  if (buf.length !== 32 || buf.toString('base64').replace(/=+$/, '') !== value.trim().replace(/=+$/, '')) {
    throw new ConfigError(`${key} must be 32 bytes encoded as base64 (e.g. \`openssl rand -base64 32\`)`, key);
  }
  return buf;
}

/**
 * Build the settings from an environment (normally `withDotenv(process.env)`).
 * @throws ConfigError naming the variable at fault.
 */
export function loadSettings(env: NodeJS.ProcessEnv = withDotenv(process.env), cwd = process.cwd()): Settings {
  const databaseUrl = nonBlank(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL', 'DATABASE_URL');
  }
  const portRaw = nonBlank(env, 'PORT');
  const port = portRaw === undefined ? 8787 : Number(portRaw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be a port number (0-65535), got "${portRaw}"`, 'PORT');
  }
  const host = nonBlank(env, 'HOST') ?? '127.0.0.1';
  const graceRaw = nonBlank(env, 'SKILLGATE_SHUTDOWN_GRACE_SEC');
  const shutdownGraceSec = graceRaw === undefined ? SHUTDOWN_GRACE_DEFAULT_SEC : Number(graceRaw);
  if (!Number.isFinite(shutdownGraceSec) || shutdownGraceSec < 0) {
    throw new ConfigError(
      `SKILLGATE_SHUTDOWN_GRACE_SEC must be a number of seconds (0 or more), got "${graceRaw}"`,
      'SKILLGATE_SHUTDOWN_GRACE_SEC',
    );
  }
  const demoRaw = (nonBlank(env, 'SKILLGATE_DEMO') ?? 'auto').toLowerCase();
  if (demoRaw !== 'auto' && demoRaw !== 'on' && demoRaw !== 'off') {
    throw new ConfigError(`SKILLGATE_DEMO must be auto, on or off, got "${demoRaw}"`, 'SKILLGATE_DEMO');
  }
  const demo = demoRaw as DemoMode;
  if (demo === 'on' && !isLoopbackHost(host)) {
    throw new ConfigError(
      `SKILLGATE_DEMO=on is refused while HOST=${host} serves beyond loopback: anyone who reaches the port would sign in as a demo owner. Unset SKILLGATE_DEMO, or listen on 127.0.0.1`,
      'SKILLGATE_DEMO',
    );
  }
  const secretRaw = nonBlank(env, 'SKILLGATE_SECRET_KEY');
  const secretKey = secretRaw ? decodeSecretKey(secretRaw) : undefined;
  if (databaseUrl && !secretKey) {
    throw new ConfigError(
      'SKILLGATE_SECRET_KEY is required with DATABASE_URL (replicas must share it): set it to 32 random bytes in base64',
      'SKILLGATE_SECRET_KEY',
    );
  }
  const publicUrl = nonBlank(env, 'SKILLGATE_PUBLIC_URL')?.replace(/\/+$/, '');
  if (publicUrl && !/^https?:\/\//.test(publicUrl)) {
    throw new ConfigError('SKILLGATE_PUBLIC_URL must start with http:// or https://', 'SKILLGATE_PUBLIC_URL');
  }
  const skillRoots: SkillRootSetting[] = [
    { dir: BUILTIN_SKILLS_DIR, source: 'builtin' },
    { dir: EXAMPLE_SKILLS_DIR, source: 'builtin' },
  ];
  for (const dir of (env.SKILLGATE_SKILL_DIRS ?? '').split(':')) {
    if (dir.trim() !== '') skillRoots.push({ dir: resolve(cwd, dir.trim()), source: 'shared' });
  }
  let configPath = nonBlank(env, 'SKILLGATE_CONFIG');
  if (configPath) {
    configPath = resolve(cwd, configPath);
    if (!existsSync(configPath)) {
      throw new ConfigError(`SKILLGATE_CONFIG points to a missing file: ${configPath}`, 'SKILLGATE_CONFIG');
    }
  } else if (existsSync(resolve(cwd, 'skillgate.config.yaml'))) {
    configPath = resolve(cwd, 'skillgate.config.yaml');
  }
  const llmBase = nonBlank(env, 'LLM_BASE_URL');
  // Every secret of the environment is scrubbed by value from logs and outbound text (src/log/secret-values.ts).
  for (const [k, v] of Object.entries(env)) if (isKnownSecretField(k)) processSecrets().add(v);
  return {
    databaseUrl,
    dataDir: resolve(cwd, nonBlank(env, 'SKILLGATE_DATA_DIR') ?? './data'),
    port,
    host,
    demo,
    publicUrl,
    secretKey,
    adminToken: nonBlank(env, 'SKILLGATE_ADMIN_TOKEN'),
    orgId: nonBlank(env, 'SKILLGATE_ORG_ID') ?? 'demo',
    roleId: nonBlank(env, 'SKILLGATE_ROLE_ID') ?? 'default',
    skillRoots,
    configPath,
    fetchAllow: (env.SKILLGATE_FETCH_ALLOW ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    appriseApiUrl: nonBlank(env, 'APPRISE_API_URL'),
    llm: llmBase
      ? { baseUrl: llmBase.replace(/\/+$/, ''), apiKey: nonBlank(env, 'LLM_API_KEY'), model: nonBlank(env, 'LLM_MODEL') }
      : undefined,
    walls: resolveWalls(env),
    shutdownGraceSec,
  };
}

/**
 * True when `host` (a `HOST` value) is a loopback address or `localhost`: nothing but this
 * machine can connect. `0.0.0.0`, `::`, other addresses and other names are not.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^(0{0,4}:){7}0{0,3}1$/.test(h) || /^::ffff:127\./.test(h);
  return false;
}

/**
 * Whether demo identities are offered: only while listening on loopback alone, never when
 * `SKILLGATE_DEMO=off`; `auto` turns them on for the embedded default (no `DATABASE_URL`).
 */
export function demoIdentitiesOn(settings: Pick<Settings, 'host' | 'demo' | 'databaseUrl'>): boolean {
  if (settings.demo === 'off' || !isLoopbackHost(settings.host)) return false;
  return settings.demo === 'on' || !settings.databaseUrl;
}
