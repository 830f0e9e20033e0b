/**
 * `skillgate notify target add|list|remove` — the aliases of the built-in `notify` skill
 * (R-MSG-01), stored in `skillgate.notify_targets`:
 *
 *   skillgate notify target add ops 'json://hooks.example/ops' 'mailto://bot:pw@mail.example'
 *   skillgate notify target add devops team_cfg:devops     # an Apprise API config key + tag
 *   skillgate notify target list [--json]                  # URLs shown masked (credentials)
 *   skillgate notify target remove ops
 *
 * Exit codes (README.md "The skillgate command"): 0 done; 1 refused (bad alias or spec, nothing to remove);
 * 2 the database could not be reached. While `serve` runs on an embedded data dir the command
 * goes through the local admin API `POST /api/local/notify/target` (the server mounts
 * {@link runNotifyTargetCommand}).
 */
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';
import { type NotifyTargetRequest, type NotifyTargetResult, runNotifyTargetCommand } from '../../admin/notify-targets.ts';

/** Run `notify target add|list|remove` with commander's arguments. @returns the exit code */
export async function notifyTargetCommand(
  op: NotifyTargetRequest['op'],
  name: string | undefined,
  spec: string[],
  opts: { json?: boolean },
  io: CliIO,
): Promise<number> {
  const settings = configSettings();
  const req: NotifyTargetRequest = { op, name, spec };
  const done = await runAdminCommand<NotifyTargetResult>(settings, io, {
    direct: (db) => runNotifyTargetCommand(db, req),
    path: '/api/local/notify/target',
    request: req,
    json: opts.json,
  });
  if ('exit' in done) return done.exit;
  const result = done.result;
  if (result.op === 'add') io.stdout(`notify target ${result.name}: ${result.target}\n`);
  else if (result.op === 'remove') io.stdout(`notify target ${result.name} removed\n`);
  else io.stdout(result.targets.length ? result.targets.map((t) => `${t.name}\t${t.target}\n`).join('') : '(no notify targets)\n');
  return EXIT_OK;
}
