
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';
import { type NotifyTargetRequest, type NotifyTargetResult, runNotifyTargetCommand } from '../../admin/notify-targets.ts';

/** Run `notify target add|list|remove` with commander's arguments. @returns the exit code */
export async function notifyTargetCommand(op: NotifyTargetRequest['op'], name: string | undefined, spec: string[], opts: { json?: boolean }, io: CliIO): Promise<number> {
  const settings = configSettings();
  const req: NotifyTargetRequest = { op, name, spec };
  const done = await runAdminCommand<NotifyTargetResult>(settings, io, { direct: (db) => runNotifyTargetCommand(db, req), path: '/api/local/notify/target', request: req, json: opts.json });
  if ('exit' in done) return done.exit;
  const result = done.result;
  if (result.op === 'add') io.stdout(`notify target ${result.name}: ${result.target}\n`);
  else if (result.op === 'remove') io.stdout(`notify target ${result.name} removed\n`);
  else io.stdout(result.targets.length ? result.targets.map((t) => `${t.name}\t${t.target}\n`).join('') : '(no notify targets)\n');
  return EXIT_OK;
}
