/**
 * The `skillgate` command line (README.md "The skillgate command"–§4). Each sub-command lives in
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
    .command('run')
    .description('run one skill through the whole pipeline; prints the final envelope as JSON')
    .argument('<skill>', 'a skill name (or <skill>__<sub>) or a skill folder')
    .option('--input <json>', 'the input object', '{}')
    .option('--context <json>', 'fixed and platform context keys (actor_*, org_id, channel, …)')
    .option('--workspace <dir>', 'the session workspace')
    .option('--raw-input <text>', "the user's original text of this turn")
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .action(
      run(async (target: string, opts: { input?: string; context?: string; workspace?: string; rawInput?: string; role?: string }) => {
        const { skillRunCommand } = await import('./commands/skill-run.ts');
        return skillRunCommand(target, opts, io);
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

  skill
    .command('install')
    .description('install a skill package (zip or folder): safe unpack, preflight as warnings, register, enable')
    .argument('<source>', 'a .zip file or a skill folder')
    .option('--role <role>', "install as this role's own skill (default: a shared skill in <data>/skills/)")
    .option('--json', 'print one JSON document')
    .action(
      run(async (source: string, opts: { role?: string; json?: boolean }) => {
        const { skillInstallCommand } = await import('./commands/skill-install.ts');
        return skillInstallCommand(source, opts, io);
      }),
    );

  const config = program.command('config').description('skill parameters and secrets per role');
  config
    .command('set')
    .description('save a skill parameter for a role; secrets with --secret, read from stdin')
    .argument('<skill>', 'skill name')
    .argument('<key>', 'parameter name (--api-token is stored as api_token)')
    .argument('[value]', 'the value (never for secrets: use --secret)')
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .option('--secret', 'read the value from stdin and store it encrypted')
    // `config set weather --api-token …`: a dashed key is an argument, not an option.
    .allowUnknownOption()
    .action(
      run(async (skillName: string, key: string, value: string | undefined, opts: { role?: string; secret?: boolean }) => {
        const { configSetCommand } = await import('./commands/config-set.ts');
        // An io may carry its own stdin (in-process tests); the process's otherwise.
        const stdin = (io as CliIO & { stdin?: NodeJS.ReadableStream }).stdin ?? process.stdin;
        return configSetCommand(skillName, key, value, opts, io, stdin);
      }),
    );
  config
    .command('get')
    .description("show a skill's parameters for a role (secrets masked)")
    .argument('<skill>', 'skill name')
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .option('--json', 'print one JSON document')
    .action(
      run(async (skillName: string, opts: { role?: string; json?: boolean }) => {
        const { configGetCommand } = await import('./commands/config-get.ts');
        return configGetCommand(skillName, opts, io);
      }),
    );

  const datatable = program.command('datatable').description('grants of the built-in datatable skill (docs/configuration.md)');
  const grantAction =
    (op: 'grant' | 'revoke' | 'list') =>
    async (
      table: string,
      opts: { role?: string; actions?: string; rowScope?: string; ownerField?: string; org?: string; json?: boolean },
    ) => {
      const { datatableGrantCommand } = await import('./commands/datatable-grant.ts');
      return datatableGrantCommand(op, table, opts, io);
    };
  datatable
    .command('grant')
    .description('grant a role actions and a row scope on a table (a table without grants is open to every role)')
    .argument('<table>', 'table title or id')
    .requiredOption('--role <role>', 'role id')
    .option('--actions <list>', 'comma-separated actions (default: every action)')
    .option('--row-scope <scope>', 'all (default) or own')
    .option('--owner-field <field>', "with --row-scope own: the field holding the owner's employee number")
    .option('--org <org>', 'organisation (default SKILLGATE_ORG_ID)')
    .option('--json', 'print one JSON document')
    .action(run(grantAction('grant')));
  datatable
    .command('revoke')
    .description("remove a role's grant on a table")
    .argument('<table>', 'table title or id')
    .requiredOption('--role <role>', 'role id')
    .option('--org <org>', 'organisation (default SKILLGATE_ORG_ID)')
    .option('--json', 'print one JSON document')
    .action(run(grantAction('revoke')));
  datatable
    .command('grants')
    .description('list the grants of a table')
    .argument('<table>', 'table title or id')
    .option('--org <org>', 'organisation (default SKILLGATE_ORG_ID)')
    .option('--json', 'print one JSON document')
    .action(run(grantAction('list')));

  program
    .command('directory')
    .description('the directory of contacts and departments')
    .command('import')
    .description('import contacts and departments from a CSV or JSON file (exit 1 when a row was refused)')
    .argument('<file>', 'a .csv or .json file')
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .option('--org <org>', "organisation (default: the role's org_id)")
    .option('--lang <lang>', 'language of row messages: zh-CN or en', 'zh-CN')
    .option('--json', 'print the report as one JSON document')
    .action(
      run(async (file: string, opts: { role?: string; org?: string; lang?: string; json?: boolean }) =>
        (await import('./commands/directory-import.ts')).directoryImportCommand(file, opts, io),
      ),
    );
  (await import('./commands/chain-register.ts')).registerChainCommands(program, run, io);
  {
    const target = program
      .command('notify')
      .description('notify targets of the built-in notify skill (Apprise)')
      .command('target')
      .description('aliases: Apprise URLs or an Apprise API config key[:tag]');
    const nt =
      (op: 'add' | 'list' | 'remove') =>
      async (...a: unknown[]) =>
        (await import('./commands/notify-target.ts')).notifyTargetCommand(
          op,
          op === 'list' ? undefined : (a[0] as string),
          op === 'add' ? (a[1] as string[]) : [],
          (a[op === 'list' ? 0 : op === 'add' ? 2 : 1] ?? {}) as { json?: boolean },
          io,
        );
    target
      .command('add')
      .argument('<name>')
      .argument('<spec...>', 'Apprise URLs, or one config-key[:tag]')
      .option('--json', 'print one JSON document')
      .action(run(nt('add')));
    target
      .command('list')
      .option('--json', 'print one JSON document')
      .action(run(nt('list')));
    target
      .command('remove')
      .argument('<name>')
      .option('--json', 'print one JSON document')
      .action(run(nt('remove')));
  }
  program
    .command('audit')
    .description('the audit log of skill calls, newest first')
    .option('--role <role>', 'only this role')
    .option('--skill <skill>', 'only this skill')
    .option('--actor <emp_no>', "only this actor's employee number")
    .option('--since <iso>', 'only calls at or after this ISO 8601 time')
    .option('--limit <n>', 'number of rows (default 50, at most 1000)')
    .option('--json', 'print one JSON document')
    .action(
      run(async (opts: { role?: string; skill?: string; actor?: string; since?: string; limit?: string; json?: boolean }) =>
        (await import('./commands/audit.ts')).auditCommand(opts, io),
      ),
    );
  {
    const inbox = program.command('inbox').description('quarantined inbound events (a turn that kept failing)');
    const ib =
      (op: 'list' | 'retry' | 'discard') =>
      async (...a: unknown[]) =>
        (await import('./commands/inbox.ts')).inboxCommand(
          { op, ...(op === 'list' ? (a[0] as object) : { id: a[0] as string, ...(a[1] as object) }) },
          io,
        );
    inbox
      .command('list')
      .option('--discarded', 'list discarded events instead')
      .option('--limit <n>', 'number of rows (default 50, at most 200)')
      .option('--json', 'print one JSON document')
      .action(run(ib('list')));
    inbox
      .command('retry')
      .argument('<id>')
      .option('--json', 'print one JSON document')
      .action(run(ib('retry')));
    inbox
      .command('discard')
      .argument('<id>')
      .option('--json', 'print one JSON document')
      .action(run(ib('discard')));
  }
  program
    .command('web')
    .description('web chat')
    .command('token')
    .description('issue a web chat sign-in token for a directory contact')
    .argument('<contact_key>')
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .option('--json', 'print one JSON document')
    .action(
      run(async (key: string, opts: { role?: string; json?: boolean }) =>
        (await import('./commands/web-token.ts')).webTokenCommand(key, opts, io),
      ),
    );
  {
    const mcp = program.command('mcp').description('skillgate as an MCP server (/mcp, docs/mcp.md)');
    mcp
      .command('token')
      .description('issue a bearer token of /mcp for a directory contact (shown once)')
      .argument('<contact_key>')
      .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
      .option('--json', 'print one JSON document')
      .action(
        run(async (key: string, opts: { role?: string; json?: boolean }) =>
          (await import('./commands/mcp-token.ts')).mcpTokenCommand(key, opts, io),
        ),
      );
    mcp
      .command('revoke')
      .description('revoke an MCP token by its id')
      .argument('<token_id>')
      .action(run(async (id: string) => (await import('./commands/mcp-token.ts')).mcpRevokeCommand(id, io)));
    mcp
      .command('tokens')
      .description('list MCP tokens (ids, never the tokens)')
      .option('--json', 'print one JSON document')
      .action(run(async (opts: { json?: boolean }) => (await import('./commands/mcp-token.ts')).mcpTokensCommand(opts, io)));
  }

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
