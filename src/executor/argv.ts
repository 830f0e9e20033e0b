/**
 * argv of a CLI skill built from its input object (A-05, R-SUBCMD-04, R-FORM-06).
 */
import { revealsSecret } from './child-env.ts';

/** The input key carrying the sub-command. */
export const SUBCOMMAND_KEY = '_subcommand';

/** Options of {@link buildArgv}. */
export interface ArgvOptions {
  /** Top-level keys never put into argv (the skill's secret parameters, R-CFG-07). */
  omitKeys?: Iterable<string>;
  /** Secret values: an argument whose rendered value reveals one is left out (the value stays in SKILL_INPUT). */
  secretValues?: Iterable<string>;
}

function render(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * Build argv: `[<_subcommand>] --<key> <value>` for each top-level field except
 * `_subcommand`, in the input's key order. Strings as they are; numbers as written by
 * `String`; `true` → `--key` alone; `false`, `null`, `undefined` → omitted; arrays →
 * `--key v` repeated per item (objects inside JSON-encoded, null items skipped); objects →
 * JSON. A non-empty string `_subcommand` is argv[0] (R-SUBCMD-04). Keys in `omitKeys`, and
 * values revealing a secret value, are left out entirely (secrets never in argv).
 * @returns the argument list (without the program).
 */
export function buildArgv(input: Record<string, unknown>, opts: ArgvOptions = {}): string[] {
  const omit = new Set(opts.omitKeys ?? []);
  const secrets = [...(opts.secretValues ?? [])].filter((s) => s.length > 0);
  const hidden = (s: string): boolean => secrets.length > 0 && revealsSecret(s, secrets);
  const argv: string[] = [];
  const sub = input[SUBCOMMAND_KEY];
  if (typeof sub === 'string' && sub !== '') argv.push(sub);
  for (const [key, value] of Object.entries(input)) {
    if (key === SUBCOMMAND_KEY || omit.has(key) || value === undefined || value === null || value === false) continue;
    const flag = `--${key}`;
    if (value === true) {
      argv.push(flag);
      continue;
    }
    const items = Array.isArray(value) ? value.filter((v) => v !== null && v !== undefined) : [value];
    const rendered = items.map(render);
    if (rendered.some(hidden)) continue;
    for (const r of rendered) argv.push(flag, r);
  }
  return argv;
}
