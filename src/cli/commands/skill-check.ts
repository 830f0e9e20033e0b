/**
 * `skillgate skill check [--mode create|install] <dir>...` (README.md "The skillgate command"): run preflight
 * (R-PRE-01..06) on each folder and print one line per problem.
 */
import { preflight, type PreflightMode } from '../../registry/preflight.ts';
import { EXIT_OK, EXIT_REFUSED, type CliIO } from '../io.ts';

const MODES: readonly PreflightMode[] = ['create', 'install'];

/**
 * Check each folder of `dirs`, in order.
 *
 * stdout: for every issue one line `<dir>: <error|warning|notice>: <message>` (the folder as
 * the user typed it); a folder without any issue prints `<dir>: ok`, so a clean run is
 * visible. A bad `--mode` is reported on stderr.
 * @returns 1 when any `error` remains (or `--mode` is neither `create` nor `install`), else 0.
 */
export async function skillCheckCommand(dirs: string[], opts: { mode: string }, io: CliIO): Promise<number> {
  if (!(MODES as readonly string[]).includes(opts.mode)) {
    io.stderr(`skillgate: --mode must be create or install, not "${opts.mode}"\n`);
    return EXIT_REFUSED;
  }
  const mode = opts.mode as PreflightMode;
  let failed = false;
  for (const dir of dirs) {
    const issues = await preflight(dir, { mode });
    if (issues.length === 0) io.stdout(`${dir}: ok\n`);
    for (const issue of issues) {
      // One line per problem, even for a multi-line parser message.
      io.stdout(`${dir}: ${issue.severity}: ${issue.message.replace(/\s*\n\s*/g, ' ')}\n`);
      if (issue.severity === 'error') failed = true;
    }
  }
  return failed ? EXIT_REFUSED : EXIT_OK;
}
