/**
 * Preflight of the handler file: parsed
 * statically, never executed.
 *
 * Requirement ids: R-PRE-04, R-ENTRY-01, R-ENTRY-08, R-ENTRY-09, R-LOAD-15, D-14, D-15, A-04.
 */
import { basename, extname } from 'node:path';
import { scanHandler, type HandlerScan } from '../inspect/index.ts';
import type { EntryInfo, HandlerInspection } from '../inspect/types.ts';
import { advice, notice, problem, type Finding } from './findings.ts';
import { crossSkillImports } from './imports.ts';
import type { TomlExec } from './skill-toml.ts';

/** The entry every new skill uses, verbatim (R-ENTRY-08). */
const SIGNATURE = {
  ts: 'export async function execute(input_data, runtime_context)',
  js: 'export async function execute(input_data, runtime_context)',
  python: 'async def execute(input_data, runtime_context)',
} as const;

/** Result of {@link checkHandler}. */
export interface HandlerCheck {
  findings: Finding[];
  /** The inspection of the checked file (for its schema constants), or null. */
  inspection: HandlerInspection | null;
}

/**
 * Choose the file that runs and check it.
 *
 * Which file: with a skill.toml `[exec]` table (`tomlExec` not null), its PYTHON `.py`
 * config (the only config that may run in process, R-ENTRY-07) and no handler file — an
 * existing handler file is then unused (`handler.unused` notice). Without `[exec]`, the
 * first of `handlerFiles` (HANDLER_FILES order); several → `handler.several`.
 *
 * Checks of that file, each violation separately:
 * - it parses (`handler.parse`); an unreadable file is `handler.unreadable`;
 * - python3 missing → advice `handler.inspect_unavailable` (the file is not checked);
 * - CLI-shaped without `execute` (none, or only a legacy `main()` and the like) →
 *   notice `handler.cli`: a command-line script, run as a subprocess, no entry checks;
 *   CLI markers next to `execute` → `handler.cli_markers` (R-ENTRY-09: the markers change
 *   the exec form; the entry checks below still run);
 * - no entry at all → `handler.no_entry` (D-14: broken, not loaded, no document fallback);
 * - no `execute` (only run/handler/main/handle) → `handler.no_execute`;
 * - `execute` parameters not `(input_data, runtime_context, …)` → `handler.params`;
 *   not async → `handler.not_async` (R-PRE-04);
 * - a default on the entry's second parameter → advice `handler.ctx_default` (D-15);
 * - imports reaching outside the skill folder → `handler.cross_skill_import` (R-LOAD-15).
 */
export async function checkHandler(dir: string, handlerFiles: readonly string[], tomlExec: TomlExec | null): Promise<HandlerCheck> {
  const findings: Finding[] = [];
  let file: string | undefined;
  if (tomlExec) {
    const unused = handlerFiles.filter((f) => f !== tomlExec.configPath).map((f) => basename(f));
    if (unused.length > 0) {
      findings.push(notice('handler.unused', `skill.toml [exec] decides how the skill runs; ${unused.join(', ')} is not used`));
    }
    if (tomlExec.type === 'PYTHON' && tomlExec.configPath && extname(tomlExec.configPath) === '.py') file = tomlExec.configPath;
  } else {
    file = handlerFiles[0];
    if (handlerFiles.length > 1) {
      const names = handlerFiles.map((f) => basename(f));
      findings.push(problem('handler.several', `several handler files (${names.join(', ')}): only ${names[0]} is used; delete the others`));
    }
  }
  if (!file) return { findings, inspection: null };

  let scan: HandlerScan;
  try {
    scan = await scanHandler(file);
  } catch (err) {
    findings.push(problem('handler.unreadable', `${basename(file)} cannot be read: ${(err as Error).message}`));
    return { findings, inspection: null };
  }
  findings.push(...(await checkInspection(dir, scan)));
  return { findings, inspection: scan.inspection };
}

/** The checks of {@link checkHandler} on one inspected file. */
async function checkInspection(dir: string, { inspection: ins, imports }: HandlerScan): Promise<Finding[]> {
  const file = basename(ins.file);
  const out: Finding[] = [];
  if (ins.unavailable) {
    out.push(advice('handler.inspect_unavailable', `${file} could not be checked (${ins.unavailable}); install python3 to check it`));
    return out;
  }
  if (!ins.parsed) {
    out.push(problem('handler.parse', `${file} does not parse: ${ins.parseError ?? 'syntax error'}`));
    return out;
  }
  for (const spec of await crossSkillImports(ins.file, dir, ins.language, imports)) {
    out.push(
      problem(
        'handler.cross_skill_import',
        `${file} imports "${spec}" from outside the skill folder; every skill is loaded on its own, so use runtime_context.call_skill to reuse another skill, or copy the code into this folder`,
      ),
    );
  }

  const markers = ins.language === 'python' ? 'argparse + if __name__ == "__main__"' : 'process.argv + a run-as-main check';
  const execute = ins.entries.find((e) => e.name === 'execute');
  if (ins.isCli && !execute) {
    out.push(
      notice(
        'handler.cli',
        `${file} is a command-line script (${markers}): it runs as a subprocess with its input in argv / SKILL_INPUT, not in process`,
      ),
    );
    return out;
  }
  if (ins.isCli) {
    out.push(
      problem(
        'handler.cli_markers',
        `${file} defines execute but also has ${markers}, which makes the platform run it as a command-line subprocess instead of calling execute in process; move the self-test into a separate file`,
      ),
    );
  }

  const signature = SIGNATURE[ins.language];
  if (!ins.entry) {
    out.push(
      problem(
        'handler.no_entry',
        `${file} defines no entry function (execute, run, handler, main or handle): the skill is broken and will not be loaded (it is not downgraded to a document skill); add ${signature}`,
      ),
    );
    return out;
  }
  if (!execute) {
    out.push(
      problem(
        'handler.no_execute',
        `${file} has no execute (only the legacy entry ${ins.entry.name}, kept for old skills); rename it to ${signature}`,
      ),
    );
  } else {
    out.push(...checkExecute(file, execute, signature, ins.language === 'python' ? '*' : '...'));
  }
  const ctx = ins.entry.params[1];
  if (ctx && !ctx.rest && ctx.hasDefault) {
    out.push(
      advice(
        'handler.ctx_default',
        `the second parameter of ${ins.entry.name} in ${file} ("${ctx.name}") has a default value; skillgate still passes runtime_context, but other binders call ${ins.entry.name}(input) and lose it — remove the default`,
      ),
    );
  }
  return out;
}

/** R-PRE-04 on `execute`: parameter names and async, one finding each. */
function checkExecute(file: string, execute: EntryInfo, signature: string, restPrefix: string): Finding[] {
  const out: Finding[] = [];
  const [first, second] = execute.params;
  const positional = (p: typeof first, name: string) => p !== undefined && !p.rest && p.name === name;
  if (!positional(first, 'input_data') || !positional(second, 'runtime_context')) {
    const found = execute.params.map((p) => (p.rest ? `${restPrefix}${p.name}` : p.name)).join(', ');
    out.push(
      problem(
        'handler.params',
        `execute in ${file} takes (${found}); its first two parameters must be named input_data and runtime_context: ${signature}`,
      ),
    );
  }
  if (!execute.isAsync) {
    out.push(problem('handler.not_async', `execute in ${file} is not async; declare it as ${signature}`));
  }
  return out;
}
