/**
 * SKILL.md frontmatter: splitting the `---` block from the body and reading the keys the
 * platform uses into a typed, defaulted {@link Frontmatter}.
 *
 * Source: docs/skill-authoring.md. Requirement ids: R-LOAD-03, R-LOAD-04,
 * R-LOAD-07, R-LOAD-09, R-LOAD-10, A-03, A-07.
 */
import { yamlPackage } from '../config/lazy-packages.ts';
import { parseCached } from './inspect/parse-cache.ts';
import type { EnvRequirement, Frontmatter, JsonSchema, SkillIssue, SkillSource, SkillType } from './types.ts';

/** A SKILL.md split into its frontmatter and body. */
export interface ParsedSkillMd {
  /** True when the text starts with a `---` line and a closing `---` line exists. */
  hasFrontmatter: boolean;
  /** The parsed mapping; null when there is no frontmatter or it failed to parse. */
  data: Record<string, unknown> | null;
  /** The text after the closing `---` line (the whole text when there is no frontmatter). */
  body: string;
  /** Set when the block is not valid YAML or not a mapping (R-PRE-02). */
  error?: string;
}

const OPEN_RE = /^---[ \t]*\r?\n/;
const CLOSE_RE = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/**
 * Split a SKILL.md into frontmatter and body (R-PRE-02).
 *
 * The block must start on the very first line (a UTF-8 BOM is ignored); CRLF line endings are
 * accepted. An empty block gives `data: {}`. A block that is not YAML, or whose YAML is not a
 * mapping, gives `data: null` and `error`. No closing line → `hasFrontmatter: false`.
 */
export function splitSkillMd(text: string): ParsedSkillMd {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const open = OPEN_RE.exec(src);
  if (!open) return { hasFrontmatter: false, data: null, body: src };
  const rest = src.slice(open[0].length);
  // An immediately closing block ("---\n---") is an empty frontmatter.
  const close = CLOSE_RE.exec(rest);
  if (!close) return { hasFrontmatter: false, data: null, body: src };
  const yamlText = rest.slice(0, close.index);
  let bodyStart = close.index + close[0].length;
  if (rest.startsWith('\r\n', bodyStart)) bodyStart += 2;
  else if (rest.startsWith('\n', bodyStart)) bodyStart += 1;
  const body = rest.slice(bodyStart);

  const parsed = parseCached('frontmatter', yamlText, () => parseYamlBlock(yamlText), keepsInJson);
  if ('error' in parsed) return { hasFrontmatter: true, data: null, body, error: parsed.error };
  const value = parsed.value;
  if (value === null || value === undefined) return { hasFrontmatter: true, data: {}, body };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { hasFrontmatter: true, data: null, body, error: 'frontmatter is not a mapping of keys' };
  }
  return { hasFrontmatter: true, data: value as Record<string, unknown>, body };
}

/** The frontmatter block as YAML: its value, or the first error's message. */
function parseYamlBlock(yamlText: string): { value: unknown } | { error: string } {
  const doc = yamlPackage().parseDocument(yamlText, { prettyErrors: false });
  if (doc.errors.length > 0) return { error: `invalid YAML in frontmatter: ${doc.errors[0]!.message.split('\n')[0]}` };
  return { value: doc.toJS() as unknown };
}

/**
 * Whether `v` comes back the same from JSON (the parse cache's format): YAML's `.inf`, `.nan`
 * and `-0` do not, nor a `__proto__` key; such a block is parsed again at every read.
 */
function keepsInJson(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (Array.isArray(v)) return v.every(keepsInJson);
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return !Object.hasOwn(v, '__proto__') && Object.values(v).every(keepsInJson);
  }
  return false;
}

const SOURCES: readonly SkillSource[] = ['builtin', 'shared', 'market'];
const SKILL_TYPES: readonly SkillType[] = ['handler', 'skill_md', 'knowledge', 'chain'];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** First defined value among the given spellings of a key. */
function pick(data: Record<string, unknown>, ...keys: string[]): unknown {
  for (const k of keys) if (data[k] !== undefined && data[k] !== null) return data[k];
  return undefined;
}

function scalarString(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** `true`/`false`, "true"/"yes"/"1"… → boolean; anything else → undefined. */
function toBool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(s)) return true;
    if (['false', 'no', 'off', '0', ''].includes(s)) return false;
  }
  return undefined;
}

/** Positive finite number of seconds from a number or numeric string; else undefined. */
function toSeconds(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * `tags: finance, price` or `tags: [finance, price]` → `["finance","price"]` (R-LOAD-04).
 * Empty items are dropped.
 */
export function parseTags(v: unknown): string[] {
  const items = Array.isArray(v) ? v.map(scalarString) : typeof v === 'string' ? v.split(',') : [];
  return items.map((s) => (s ?? '').trim()).filter((s) => s !== '');
}

/**
 * `requires.env` in either shape (R-LOAD-07): `[A, B]`, `[{name: A, required: false}]`, a
 * mixture, or a single comma-separated string. `required` defaults to true.
 */
export function parseEnvRequirements(v: unknown, issues: SkillIssue[]): EnvRequirement[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : v == null ? [] : [v];
  const out: EnvRequirement[] = [];
  for (const item of list) {
    if (typeof item === 'string') {
      const name = item.trim();
      if (name) out.push({ name, required: true });
    } else if (isRecord(item) && typeof item.name === 'string' && item.name.trim() !== '') {
      out.push({ name: item.name.trim(), required: toBool(item.required) ?? true });
    } else {
      issues.push({
        severity: 'warning',
        code: 'frontmatter.requires_env_invalid',
        message: `requires.env entry ${JSON.stringify(item)} is neither a name nor {name, required}; ignored`,
      });
    }
  }
  return out;
}

function parseBins(v: unknown): string[] {
  return parseTags(v);
}

/**
 * `cli_commands: {sub: schema}`. A list of names is accepted as sub-commands with an
 * empty object schema. Values that are not objects become `{type:"object",properties:{}}`.
 */
function parseCliCommands(v: unknown, issues: SkillIssue[]): Record<string, JsonSchema> | undefined {
  if (v === undefined || v === null) return undefined;
  const empty = (): JsonSchema => ({ type: 'object', properties: {} });
  if (Array.isArray(v)) {
    const out: Record<string, JsonSchema> = {};
    for (const n of v) if (typeof n === 'string' && n.trim()) out[n.trim()] = empty();
    return out;
  }
  if (!isRecord(v)) {
    issues.push({
      severity: 'warning',
      code: 'frontmatter.cli_commands_invalid',
      message: 'cli_commands must be a mapping {sub: schema}; ignored',
    });
    return undefined;
  }
  const out: Record<string, JsonSchema> = {};
  for (const [k, s] of Object.entries(v)) out[k] = isRecord(s) ? s : empty();
  return out;
}

/**
 * Read the typed, defaulted frontmatter from a parsed mapping (R-LOAD-03/04/07/10).
 *
 * Accepted spellings: `trigger-type` | `trigger_type` | `trigger.type` (default `explicit`),
 * `cost-tier` | `cost_tier`, `skill_type` | `skill-type`, `force_raw_prompt` | `force-raw-prompt`,
 * `exec_mode` | `exec-mode`, `skill_md` | `skill-md`, `wall_sec`, `timeout_sec` (seconds),
 * `cli_commands` | `cli-commands`. `requires` is read from `metadata.openclaw.requires`, then a
 * top-level `requires`; `primaryEnv` from `metadata.openclaw.primaryEnv` (R-LOAD-10).
 * `fallbackName` is used when `name` is missing (the caller reports that).
 * Unknown values of enumerated keys (source, skill_type) give a warning and are ignored.
 */
export function readFrontmatter(data: Record<string, unknown>, fallbackName: string): { frontmatter: Frontmatter; issues: SkillIssue[] } {
  const issues: SkillIssue[] = [];
  const name = scalarString(data.name) || fallbackName;
  const description = scalarString(data.description) ?? '';

  let source: SkillSource | undefined;
  const rawSource = scalarString(data.source);
  if (rawSource) {
    if ((SOURCES as readonly string[]).includes(rawSource)) source = rawSource as SkillSource;
    else
      issues.push({
        severity: 'warning',
        code: 'frontmatter.source_invalid',
        message: `source "${rawSource}" is not builtin, shared or market; ignored`,
      });
  }

  const trigger = isRecord(data.trigger) ? data.trigger.type : undefined;
  const triggerType = scalarString(pick(data, 'trigger-type', 'trigger_type', 'triggerType') ?? trigger) || 'explicit';

  let skillType: SkillType | undefined;
  const rawType = scalarString(pick(data, 'skill_type', 'skill-type', 'skillType'));
  if (rawType) {
    if ((SKILL_TYPES as readonly string[]).includes(rawType)) skillType = rawType as SkillType;
    else
      issues.push({
        severity: 'warning',
        code: 'frontmatter.skill_type_invalid',
        message: `skill_type "${rawType}" is not handler, skill_md or knowledge; ignored`,
      });
  }

  const metadata = isRecord(data.metadata) ? data.metadata : {};
  const openclaw = isRecord(metadata.openclaw) ? metadata.openclaw : {};
  const req = isRecord(openclaw.requires) ? openclaw.requires : isRecord(data.requires) ? data.requires : {};
  const primaryEnv = scalarString(pick(openclaw, 'primaryEnv', 'primary_env') ?? pick(data, 'primaryEnv', 'primary_env'));

  const category = scalarString(data.category);
  const costTier = scalarString(pick(data, 'cost-tier', 'cost_tier', 'costTier'));
  const skillMd = scalarString(pick(data, 'skill_md', 'skill-md', 'skillMd'));
  const execMode = scalarString(pick(data, 'exec_mode', 'exec-mode', 'execMode'));
  const wallSec = toSeconds(pick(data, 'wall_sec', 'wall-sec'));
  const timeoutSec = toSeconds(pick(data, 'timeout_sec', 'timeout-sec'));
  const cliCommands = parseCliCommands(pick(data, 'cli_commands', 'cli-commands'), issues);

  const frontmatter: Frontmatter = {
    name,
    description,
    triggerType,
    tags: parseTags(data.tags),
    async: toBool(data.async) ?? false,
    idempotent: toBool(data.idempotent) ?? false,
    forceRawPrompt: toBool(pick(data, 'force_raw_prompt', 'force-raw-prompt')) ?? false,
    requires: { env: parseEnvRequirements(req.env, issues), bins: parseBins(req.bins) },
    raw: data,
  };
  if (source) frontmatter.source = source;
  if (category) frontmatter.category = category;
  if (costTier) frontmatter.costTier = costTier;
  if (skillType) frontmatter.skillType = skillType;
  if (primaryEnv) frontmatter.primaryEnv = primaryEnv;
  if (skillMd) frontmatter.skillMd = skillMd;
  if (execMode) frontmatter.execMode = execMode;
  if (wallSec !== undefined) frontmatter.wallSec = wallSec;
  if (timeoutSec !== undefined) frontmatter.timeoutSec = timeoutSec;
  if (cliCommands) frontmatter.cliCommands = cliCommands;
  return { frontmatter, issues };
}
