/**
 * Types of the skill registry: what a skill folder on disk becomes once loaded.
 *
 * Source: docs/skill-authoring.md. Requirement ids: R-FORM-*, R-LOAD-*, R-SCH-01..03,
 * R-SUBCMD-01..02.
 */

import type { Logger } from '../log/logger.ts';

/** A JSON Schema object, as read from schema.json or a code constant. */
export type JsonSchema = Record<string, unknown>;

/** Authored skill types (R-FORM-01); `chain` is produced by saving a chain. */
export type SkillType = 'handler' | 'skill_md' | 'knowledge' | 'chain';

/**
 * How a handler skill is executed (R-FORM-05, A-04).
 * - `IN_PROCESS`: handler.ts / handler.js / handler.mjs exporting an entry function.
 * - `PYTHON_BRIDGE`: handler.py with an entry function and no argparse + `__main__`.
 * - `PYTHON`: a Python CLI script (argparse + `__main__`), or `[exec] type = "PYTHON"`.
 * - `SHELL` | `INLINE_SHELL` | `NODE` | `RUBY` | `GO`: subprocess per skill.toml `[exec]`.
 * - `HTTP`: skill.toml `[exec] config` names a TOML request description.
 * - `BROWSER` | `MCP`: recognised, never executed (R-FORM-08).
 */
export type ExecType =
  | 'IN_PROCESS'
  | 'PYTHON_BRIDGE'
  | 'PYTHON'
  | 'SHELL'
  | 'INLINE_SHELL'
  | 'NODE'
  | 'RUBY'
  | 'GO'
  | 'HTTP'
  | 'BROWSER'
  | 'MCP';

/** Where a skill comes from (R-LOAD-04); `role` marks role-scoped skills created in chat. */
export type SkillSource = 'builtin' | 'shared' | 'market' | 'role';

/** One `requires.env` entry, normalised from either accepted shape (R-LOAD-07). */
export interface EnvRequirement {
  name: string;
  /** `required: false` entries never block. Default true. */
  required: boolean;
}

/** The frontmatter keys the platform reads (R-LOAD-03), typed and defaulted. */
export interface Frontmatter {
  name: string;
  description: string;
  /** `builtin` | `shared` | `market`; absent → undefined (the root decides). */
  source?: SkillSource;
  category?: string;
  /** `trigger-type`; only `explicit` enters the tool list (R-LOAD-05). Default `explicit`. */
  triggerType: string;
  costTier?: string;
  /** `tags: finance, price` → `["finance", "price"]` (R-LOAD-04). */
  tags: string[];
  /** Default false. */
  async: boolean;
  /**
   * `idempotent: true`: running a call again has no further effect (read-only skills), so a
   * call a crash interrupted is run again without asking (docs/recovery.md). Default false.
   */
  idempotent: boolean;
  /** Default false. */
  forceRawPrompt: boolean;
  skillType?: SkillType;
  /** metadata.openclaw.primaryEnv (R-LOAD-10). */
  primaryEnv?: string;
  requires: { env: EnvRequirement[]; bins: string[] };
  /** Alternative SKILL.md file name relative to the skill dir (R-LOAD-02, A-01). */
  skillMd?: string;
  /** `shell` | `runtime`: container skills, bins not checked on the host (R-LOAD-09). */
  execMode?: string;
  /** Seconds. */
  wallSec?: number;
  /** Seconds (docs/skill-authoring.md). */
  timeoutSec?: number;
  /** `cli_commands: {sub: schema}` from the frontmatter. */
  cliCommands?: Record<string, JsonSchema>;
  /** The parsed frontmatter object as written, for keys not typed above. */
  raw: Record<string, unknown>;
}

/** `[exec]` (or `[exec.primary]`) of skill.toml (docs/skill-authoring.md). */
export interface ExecConfig {
  type: ExecType;
  /** Absolute path of the program / HTTP TOML; undefined for INLINE_SHELL. */
  config?: string;
  /** INLINE_SHELL command line, run by `/bin/sh -c`. */
  command?: string;
}

/** One problem found while loading or pre-checking a skill (R-PRE-*, README.md "The skillgate command"). */
export interface SkillIssue {
  /** `error` blocks create/edit; `warning` never blocks; `notice` is information ("will default"). */
  severity: 'error' | 'warning' | 'notice';
  /** A stable machine code, e.g. `frontmatter.name_mismatch`. */
  code: string;
  /** Human text (English in the CLI output). */
  message: string;
}

/** A loaded skill. */
export interface SkillRecord {
  /** Registered name: frontmatter `name` (R-LOAD-14), else skill.toml `[skill].name`, else folder name. */
  name: string;
  /** Absolute folder path. */
  dir: string;
  /** The skill root it was discovered under (absolute). */
  root: string;
  source: SkillSource;
  /**
   * The role that owns it when `source` is `role` and it was found under
   * `<data>/role-skills/<role>/` (set by the skill lifecycle, `src/lifecycle/live.ts`);
   * undefined elsewhere (a saved chain has `source: role` and no owner).
   */
  ownerRole?: string;
  skillType: SkillType;
  /** Null for skill_md / knowledge skills. */
  execType: ExecType | null;
  /** Absolute path of handler.ts|js|mjs|py for IN_PROCESS / PYTHON_BRIDGE / PYTHON handler files. */
  entryFile?: string;
  exec?: ExecConfig;
  /** Version from skill.toml; "0.0.0" when not given (R-FORM-10 "will default"). */
  version: string;
  /** Absolute path of the located SKILL.md (R-LOAD-02), or null when none exists. */
  skillMdPath: string | null;
  /** SKILL.md body after the frontmatter ("" when none). */
  doc: string;
  frontmatter: Frontmatter;
  /** Normalised input schema (bare-string properties repaired, R-SCH-02). `{type:"object",properties:{}}` when none. */
  inputSchema: JsonSchema;
  /** Where the input schema came from (R-LOAD-13). */
  schemaSource: 'schema.json' | 'code' | 'none';
  /** `x-output-schema` of schema.json or `output_schema` in code. */
  outputSchema?: JsonSchema;
  /** Sub-commands with their (normalised) schemas, null when none declared (R-SUBCMD-01, A-03). */
  subcommands: Record<string, JsonSchema> | null;
  /** Top-level input properties detected as secrets (R-CFG-05..07, docs/skill-authoring.md). */
  secretParams: string[];
  /** `ok`, or `broken` (never exposed, never executed — D-14). */
  status: 'ok' | 'broken';
  /** Problems found while loading (a subset of what preflight reports). */
  issues: SkillIssue[];
  /** Set on the tools of a configured MCP server (exec type `MCP`, docs/mcp.md); absent elsewhere. */
  mcp?: McpBinding;
}

/**
 * How the executor reaches one MCP tool (built by `src/mcp/`): without a binding an
 * `exec: MCP` skill stays refused as unsupported.
 */
export interface McpBinding {
  /** The server's configured name. */
  server: string;
  /** The tool's name as the server spells it. */
  tool: string;
  /** Roles that see it (`*` = all). */
  roles: readonly string[];
  /**
   * Call the tool under `wallSec` (seconds); never throws for the server's fault. `ctx` is the
   * call's runtime context and the result a raw outcome (src/runtime/types.ts,
   * src/envelope/types.ts; kept opaque here so the registry depends on neither).
   */
  run(
    input: Record<string, unknown>,
    ctx: object,
    opts: { wallSec: number; abortSignal?: AbortSignal; log: Logger; onProgress?: (note: string) => void; lang?: 'zh-CN' | 'en' },
  ): Promise<unknown>;
}

/** A tool in the OpenAI tools form, as the model sees it (README.md "The skillgate command"). */
export interface ModelTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}
