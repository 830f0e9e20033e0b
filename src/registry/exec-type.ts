/**
 * Resolving how a handler skill runs: its entry file or skill.toml `[exec]` → ExecType.
 *
 * Source: docs/skill-authoring.md. Requirement ids:
 * R-FORM-05, R-FORM-08, R-FORM-10, R-ENTRY-06, R-ENTRY-07, R-PRE-05, A-04, D-14.
 */
import { basename, extname } from 'node:path';
import type { HandlerInspection } from './inspect/types.ts';
import { confine, isConfinedFile } from './paths.ts';
import type { SkillToml } from './skill-toml.ts';
import type { ExecConfig, ExecType, SkillIssue } from './types.ts';

/** Entry files in precedence order (docs/skill-authoring.md). */
export const HANDLER_FILES = ['handler.ts', 'handler.js', 'handler.mjs', 'handler.py'] as const;

/** `[exec] type` values a skill.toml may name (docs/skill-authoring.md, R-FORM-05, R-FORM-08). */
export const TOML_EXEC_TYPES = ['PYTHON', 'SHELL', 'INLINE_SHELL', 'NODE', 'RUBY', 'GO', 'HTTP', 'BROWSER', 'MCP'] as const;

/** Static handler inspection, `inspectHandler` of `./inspect/index.ts` or a test double. */
export type Inspector = (file: string) => Promise<HandlerInspection>;

/** How a handler skill runs, as far as the files tell. */
export interface ExecResolution {
  execType: ExecType | null;
  /** Absolute handler file for IN_PROCESS / PYTHON_BRIDGE (and handler-file CLIs). */
  entryFile?: string;
  exec?: ExecConfig;
  inspection: HandlerInspection | null;
  /** True when the skill must be marked broken (an `error` issue says why). */
  broken: boolean;
  /** D-14 legacy: a handler without entry falls back to a document skill. */
  docFallback: boolean;
}

/** Existing handler files of `dir` (absolute paths) in {@link HANDLER_FILES} order. */
export async function findHandlerFiles(dir: string): Promise<string[]> {
  const found = await Promise.all(
    HANDLER_FILES.map(async (f) => {
      const abs = confine(dir, f)!;
      return (await isConfinedFile(dir, abs)) ? abs : null;
    }),
  );
  return found.filter((f): f is string => f !== null);
}

function err(issues: SkillIssue[], code: string, message: string): void {
  issues.push({ severity: 'error', code, message });
}

/** Inspect a file, reporting `unavailable` as a warning (python3 missing…). */
async function inspectFile(file: string, inspect: Inspector, issues: SkillIssue[]): Promise<HandlerInspection> {
  let ins: HandlerInspection;
  try {
    ins = await inspect(file);
  } catch (e) {
    // Unreadable file or unsupported extension: reported like a parse failure.
    const language = extname(file) === '.py' ? 'python' : extname(file) === '.ts' ? 'ts' : 'js';
    return { file, language, parsed: false, parseError: (e as Error).message, entries: [], entry: null, isCli: false };
  }
  if (ins.unavailable)
    issues.push({
      severity: 'warning',
      code: 'handler.inspect_unavailable',
      message: `${basename(file)} could not be inspected (${ins.unavailable}); assuming it defines execute`,
    });
  return ins;
}

/** skill.toml `[exec]` → ExecType and config (docs/skill-authoring.md). */
async function fromToml(
  dir: string,
  exec: NonNullable<SkillToml['exec']>,
  inspect: Inspector,
  issues: SkillIssue[],
): Promise<ExecResolution> {
  const none: ExecResolution = { execType: null, inspection: null, broken: true, docFallback: false };
  const type = (exec.type ?? '').trim().toUpperCase();
  if (!type) {
    err(issues, 'exec.type_missing', 'skill.toml [exec] has no type');
    return none;
  }
  if (!(TOML_EXEC_TYPES as readonly string[]).includes(type)) {
    err(issues, 'exec.type_invalid', `skill.toml [exec] type "${exec.type}" is not one of ${TOML_EXEC_TYPES.join(', ')}`);
    return none;
  }
  const execType = type as ExecType;
  if (execType === 'INLINE_SHELL') {
    if (!exec.command?.trim()) {
      err(issues, 'exec.command_missing', 'skill.toml [exec] type INLINE_SHELL needs a command');
      return none;
    }
    return { execType, exec: { type: execType, command: exec.command }, inspection: null, broken: false, docFallback: false };
  }
  if (execType === 'BROWSER' || execType === 'MCP') {
    issues.push({
      severity: 'warning',
      code: 'exec.unsupported',
      message: `exec type ${execType} is recognised but not implemented; calls fail`,
    });
    const cfg = exec.config ? confine(dir, exec.config) : null;
    return {
      execType,
      exec: cfg ? { type: execType, config: cfg } : { type: execType },
      inspection: null,
      broken: false,
      docFallback: false,
    };
  }
  if (!exec.config?.trim()) {
    err(issues, 'exec.config_missing', `skill.toml [exec] type ${execType} needs config (the program, relative to the skill folder)`);
    return none;
  }
  const cfg = confine(dir, exec.config);
  if (cfg === null) {
    err(issues, 'exec.config_escape', `skill.toml [exec] config "${exec.config}" points outside the skill folder`);
    return none;
  }
  if (!(await isConfinedFile(dir, cfg))) {
    err(issues, 'exec.config_missing', `skill.toml [exec] config "${exec.config}" does not exist`);
    return none;
  }
  // R-ENTRY-07: a .py config with an entry function and no CLI markers runs in
  // process — here through the Python bridge; otherwise `python3 <config>`.
  if (execType === 'PYTHON' && extname(cfg) === '.py') {
    const ins = await inspectFile(cfg, inspect, issues);
    if (!ins.unavailable && !ins.parsed) {
      err(issues, 'handler.parse', `${basename(cfg)} does not parse: ${ins.parseError ?? 'syntax error'}`);
      return { ...none, inspection: ins };
    }
    if (!ins.unavailable && ins.entry && !ins.isCli)
      return { execType: 'PYTHON_BRIDGE', entryFile: cfg, inspection: ins, broken: false, docFallback: false };
    return { execType, exec: { type: execType, config: cfg }, inspection: ins, broken: false, docFallback: false };
  }
  return { execType, exec: { type: execType, config: cfg }, inspection: null, broken: false, docFallback: false };
}

/** A handler file → IN_PROCESS | PYTHON_BRIDGE | PYTHON | NODE, or broken (D-14). */
async function fromHandlerFile(
  file: string,
  inspect: Inspector,
  legacyDocFallback: boolean,
  issues: SkillIssue[],
): Promise<ExecResolution> {
  const isPy = extname(file) === '.py';
  const ins = await inspectFile(file, inspect, issues);
  if (ins.unavailable)
    return { execType: isPy ? 'PYTHON_BRIDGE' : 'IN_PROCESS', entryFile: file, inspection: ins, broken: false, docFallback: false };
  if (!ins.parsed) {
    err(issues, 'handler.parse', `${basename(file)} does not parse: ${ins.parseError ?? 'syntax error'}`);
    return { execType: null, inspection: ins, broken: true, docFallback: false };
  }
  if (ins.isCli) {
    // a CLI-shaped script runs as a subprocess (R-ENTRY-07, R-ENTRY-09).
    const type: ExecType = isPy ? 'PYTHON' : 'NODE';
    issues.push({
      severity: 'notice',
      code: 'handler.cli',
      message: `${basename(file)} is a command-line script (${isPy ? 'argparse + __main__' : 'reads argv / runs as main'}); it runs as a ${type} subprocess`,
    });
    return { execType: type, entryFile: file, exec: { type, config: file }, inspection: ins, broken: false, docFallback: false };
  }
  if (ins.entry) {
    return { execType: isPy ? 'PYTHON_BRIDGE' : 'IN_PROCESS', entryFile: file, inspection: ins, broken: false, docFallback: false };
  }
  if (legacyDocFallback) {
    issues.push({
      severity: 'notice',
      code: 'handler.no_entry_legacy',
      message: `${basename(file)} defines no entry function; loaded as a document skill (legacy fallback)`,
    });
    return { execType: null, inspection: ins, broken: false, docFallback: true };
  }
  err(
    issues,
    'handler.no_entry',
    `${basename(file)} defines no entry function (execute, run, handler, main or handle); the skill is broken and not exposed (D-14)`,
  );
  return { execType: null, inspection: ins, broken: true, docFallback: false };
}

/**
 * Resolve the ExecType of a handler skill (R-FORM-05, A-04, D-14). skill.toml `[exec]` wins
 * over handler files; among handler files the first of {@link HANDLER_FILES} is used.
 * @returns `execType: null` with `broken: false` when there is neither `[exec]` nor a handler file.
 */
export async function resolveExec(
  dir: string,
  toml: SkillToml | null,
  handlerFiles: readonly string[],
  opts: { inspect: Inspector; legacyDocFallback: boolean },
  issues: SkillIssue[],
): Promise<ExecResolution> {
  if (toml?.exec) {
    const cfg = toml.exec.config ? confine(dir, toml.exec.config) : null;
    const ignored = handlerFiles.filter((f) => f !== cfg);
    if (ignored.length > 0)
      issues.push({
        severity: 'notice',
        code: 'exec.overrides_handler',
        message: `skill.toml [exec] decides how the skill runs; ${ignored.map((f) => basename(f)).join(', ')} is not used`,
      });
    return fromToml(dir, toml.exec, opts.inspect, issues);
  }
  const [file, ...others] = handlerFiles;
  if (!file) return { execType: null, inspection: null, broken: false, docFallback: false };
  if (others.length > 0)
    issues.push({
      severity: 'warning',
      code: 'handler.several',
      message: `several handler files (${handlerFiles.map((f) => basename(f)).join(', ')}); ${basename(file)} is used`,
    });
  return fromHandlerFile(file, opts.inspect, opts.legacyDocFallback, issues);
}
