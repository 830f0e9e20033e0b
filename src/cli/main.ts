/**
 * The `skillgate` command line (CONTRACTS.md §1–§4). Each sub-command lives in
 * `src/cli/commands/<name>.ts` and returns its exit code; this file only wires them.
 */
import { Command, CommanderError } from 'commander';
import { CliError, EXIT_FAILED, EXIT_REFUSED, processIO, type CliIO } from './io.ts';

/**
 * Run the CLI with `argv` (as `process.argv`: node, script, args…).
 * @returns the process exit code (0 ok, 1 refused, 2 could not run).
 */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  let exitCode = 0;
  const run =
    <A extends unknown[]>(fn: (...args: A) => Promise<number>) =>
    async (...args: A): Promise<void> => {
      exitCode = await fn(...args);
    };

  const program = new Command()
    .name('skillgate')
    .description('Self-hosted chat-channel gateway that runs skills')
    .option('--verbose', 'show stack traces on stderr')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) });

  program
    .command('serve')
    .description('start the gateway (what `npm start` runs)')
    .action(
      run(async () => {
        const { serveCommand } = await import('./commands/serve.ts');
        return serveCommand(io);
      }),
    );

  const db = program.command('db').description('database maintenance');
  db.command('migrate')
    .description('apply pending migrations of schema skillgate')
    .action(
      run(async () => {
        const { dbMigrateCommand } = await import('./commands/db-migrate.ts');
        return dbMigrateCommand(io);
      }),
    );

  const skill = program.command('skill').description('skill authoring and inspection');
  skill
    .command('check')
    .description('preflight one or more skill folders; exit 1 when any error remains')
    .option('--mode <mode>', 'create (strict) or install (problems are warnings)', 'create')
    .argument('<dir...>', 'skill folders')
    .action(
      run(async (dirs: string[], opts: { mode: string }) => {
        const { skillCheckCommand } = await import('./commands/skill-check.ts');
        return skillCheckCommand(dirs, opts, io);
      }),
    );
  skill
    .command('list')
    .description('the tools a model sees')
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .option('--json', 'print the OpenAI tools array')
    .action(
      run(async (opts: { role?: string; json?: boolean }) => {
        const { skillListCommand } = await import('./commands/skill-list.ts');
        return skillListCommand(opts, io);
      }),
    );

  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help / --version exit 0; usage errors are "input refused".
      return err.exitCode === 0 ? 0 : EXIT_REFUSED;
    }
    const verbose = program.opts<{ verbose?: boolean }>().verbose === true;
    if (err instanceof CliError) {
      io.stderr(`skillgate: ${err.message}\n`);
      if (verbose && err.stack) io.stderr(err.stack + '\n');
      return err.exitCode;
    }
    const e = err as Error;
    io.stderr(`skillgate: ${e?.message ?? String(err)}\n`);
    if (verbose && e?.stack) io.stderr(e.stack + '\n');
    return EXIT_FAILED;
  }
}
