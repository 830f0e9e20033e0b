/**
 * Registration of `skillgate chain …` and `skillgate schedule …` on the command line
 * (docs/chains.md). Kept here so src/cli/main.ts only calls it.
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.ts';

/** main.ts's wrapper that records a command's exit code. */
export type RunWrapper = <A extends unknown[]>(fn: (...args: A) => Promise<number>) => (...args: A) => Promise<void>;

/** Add the chain and schedule commands to `program`. */
export function registerChainCommands(program: Command, run: RunWrapper, io: CliIO): void {
  const chain = program.command('chain').description('chains of skills (docs/chains.md)');
  chain
    .command('check')
    .description('check a chain document against the save rules; exit 1 with one line per problem')
    .argument('<file>', 'a chain document (JSON)')
    .option('--json', 'print {"ok", "problems"} as one JSON document')
    .action(run(async (file: string, opts: { json?: boolean }) => (await import('./chain-check.ts')).chainCheckCommand(file, opts, io)));
  chain
    .command('run')
    .description('run a chain file or a saved chain; prints the return object as JSON')
    .argument('<chain>', 'a chain document file or a saved chain name')
    .option('--input <json>', 'the chain inputs', '{}')
    .option('--context <json>', 'context keys of the caller (actor_*, raw_input, …)')
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .action(
      run(async (target: string, opts: { input?: string; context?: string; role?: string }) =>
        (await import('./chain-run.ts')).chainRunCommand(target, opts, io),
      ),
    );
  chain
    .command('save')
    .description('validate and save a chain; it becomes a skill of type chain')
    .argument('<file>', 'a chain document (JSON)')
    .action(run(async (file: string) => (await import('./chain-save.ts')).chainSaveCommand(file, io)));
  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    chain
      .command(verb)
      .description(enabled ? 'show a saved chain to the model' : 'hide a saved chain from the model')
      .argument('<name>')
      .action(run(async (name: string) => (await import('./chain-save.ts')).chainEnableCommand(name, enabled, io)));
  }

  const schedule = program.command('schedule').description('skills and chains on a cron expression');
  schedule
    .command('add')
    .description('add (or replace) a schedule')
    .argument('<name>', 'schedule name (lower-case letters, digits, _ and -)')
    .requiredOption('--cron <expr>', 'cron expression, e.g. "0 9 * * 1-5"')
    .option('--skill <skill>', 'the skill to run')
    .option('--chain <chain>', 'the saved chain to run')
    .option('--input <json>', 'the input object', '{}')
    .option('--to <target>', 'where the result goes: notify:<alias|apprise-url> or <channel>[@<account>]:<id>')
    .option('--tz <zone>', 'time zone of the cron expression', 'UTC')
    .option('--role <role>', 'role id (default SKILLGATE_ROLE_ID or "default")')
    .option('--missed <policy>', 'occurrences missed while no gateway ran: skip | once | all (docs/schedules.md)', 'once')
    .action(run(async (name: string, opts: ScheduleAddFlags) => (await import('./schedule-add.ts')).scheduleAddCommand(name, opts, io)));
  schedule
    .command('list')
    .description('list the schedules with their latest occurrences')
    .option('--json', 'print one JSON document')
    .action(run(async (opts: { json?: boolean }) => (await import('./schedule-list.ts')).scheduleListCommand(opts, io)));
  schedule
    .command('remove')
    .description('remove a schedule')
    .argument('<name>')
    .action(run(async (name: string) => (await import('./schedule-remove.ts')).scheduleRemoveCommand(name, io)));
}

/** Options of `schedule add` as commander gives them. */
export interface ScheduleAddFlags {
  cron: string;
  skill?: string;
  chain?: string;
  input?: string;
  to?: string;
  tz?: string;
  role?: string;
  missed?: string;
}
